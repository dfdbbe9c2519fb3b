/* fdtd-2d: TMAX time steps of a 2-D FDTD update, three kernels per step.
 * Usage: ./fdtd-2d [N [TMAX]]   (fields are N x N; default 2048 and 500 steps) */
#include "bench.h"

int main(int argc, char **argv)
{
    int n = bench_size(argc, argv, 1, 2048);
    int tmax = bench_size(argc, argv, 2, 500);
    int nx = n, ny = n;
    size_t count = (size_t)nx * ny;
    float *fict = malloc(tmax * sizeof *fict);
    float *ex = malloc(count * sizeof *ex), *ey = malloc(count * sizeof *ey), *hz = malloc(count * sizeof *hz);
    float *ex_device = malloc(count * sizeof *ex), *ey_device = malloc(count * sizeof *ey);
    float *hz_device = malloc(count * sizeof *hz);
    struct bench b = bench_open("fdtd-2d");
    cl_kernel ey_kernel = bench_kernel(&b, "fdtd_ey"), ex_kernel = bench_kernel(&b, "fdtd_ex");
    cl_kernel hz_kernel = bench_kernel(&b, "fdtd_hz");
    cl_mem fict_buffer, ex_buffer, ey_buffer, hz_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, t, mismatches;

    for (t = 0; t < tmax; t++)
        fict[t] = (float)t * 0.01f;
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++) {
            ex[(size_t)i * ny + j] = (float)((i * (j + 1)) % 10) / 10.0f;
            ey[(size_t)i * ny + j] = (float)((i * (j + 2)) % 7) / 7.0f;
            hz[(size_t)i * ny + j] = (float)((i * (j + 3)) % 13) / 13.0f;
        }
    fict_buffer = bench_buffer(&b, tmax, fict);
    ex_buffer = bench_buffer(&b, count, ex);
    ey_buffer = bench_buffer(&b, count, ey);
    hz_buffer = bench_buffer(&b, count, hz);
    bench_arg(ey_kernel, 0, sizeof fict_buffer, &fict_buffer);
    bench_arg(ey_kernel, 1, sizeof ey_buffer, &ey_buffer);
    bench_arg(ey_kernel, 2, sizeof hz_buffer, &hz_buffer);
    bench_arg(ey_kernel, 4, sizeof nx, &nx);
    bench_arg(ey_kernel, 5, sizeof ny, &ny);
    bench_arg(ex_kernel, 0, sizeof ex_buffer, &ex_buffer);
    bench_arg(ex_kernel, 1, sizeof hz_buffer, &hz_buffer);
    bench_arg(ex_kernel, 2, sizeof nx, &nx);
    bench_arg(ex_kernel, 3, sizeof ny, &ny);
    bench_arg(hz_kernel, 0, sizeof ex_buffer, &ex_buffer);
    bench_arg(hz_kernel, 1, sizeof ey_buffer, &ey_buffer);
    bench_arg(hz_kernel, 2, sizeof hz_buffer, &hz_buffer);
    bench_arg(hz_kernel, 3, sizeof nx, &nx);
    bench_arg(hz_kernel, 4, sizeof ny, &ny);

    start = bench_now();
    for (t = 0; t < tmax; t++) {
        bench_arg(ey_kernel, 3, sizeof t, &t);
        bench_launch_2d(&b, ey_kernel, ny, nx);
        bench_launch_2d(&b, ex_kernel, ny, nx);
        bench_launch_2d(&b, hz_kernel, ny, nx);
    }
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, ex_buffer, count, ex_device);
    bench_read(&b, ey_buffer, count, ey_device);
    bench_read(&b, hz_buffer, count, hz_device);

    start = bench_now();
    for (t = 0; t < tmax; t++) {
        for (j = 0; j < ny; j++)
            ey[j] = fict[t];
        for (i = 1; i < nx; i++)
            for (j = 0; j < ny; j++)
                ey[(size_t)i * ny + j] = ey[(size_t)i * ny + j] - 0.5f * (hz[(size_t)i * ny + j] - hz[(size_t)(i - 1) * ny + j]);
        for (i = 0; i < nx; i++)
            for (j = 1; j < ny; j++)
                ex[(size_t)i * ny + j] = ex[(size_t)i * ny + j] - 0.5f * (hz[(size_t)i * ny + j] - hz[(size_t)i * ny + (j - 1)]);
        for (i = 0; i < nx - 1; i++)
            for (j = 0; j < ny - 1; j++)
                hz[(size_t)i * ny + j] =
                    hz[(size_t)i * ny + j] - 0.7f * (ex[(size_t)i * ny + (j + 1)] - ex[(size_t)i * ny + j] +
                                                     ey[(size_t)(i + 1) * ny + j] - ey[(size_t)i * ny + j]);
    }
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(ex, ex_device, count) + bench_mismatches(ey, ey_device, count) +
                 bench_mismatches(hz, hz_device, count);
    snprintf(sizes, sizeof sizes, "N=%d TMAX=%d", n, tmax);
    clReleaseMemObject(fict_buffer);
    clReleaseMemObject(ex_buffer);
    clReleaseMemObject(ey_buffer);
    clReleaseMemObject(hz_buffer);
    clReleaseKernel(ey_kernel);
    clReleaseKernel(ex_kernel);
    clReleaseKernel(hz_kernel);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, 3 * count);
}
