/* atax: y = A^T (A x), two kernels through an intermediate vector.
 * Usage: ./atax [NX [NY]]   (A is NX x NY; NY defaults to NX; default 4096) */
#include "bench.h"

int main(int argc, char **argv)
{
    int nx = bench_size(argc, argv, 1, 4096);
    int ny = bench_size(argc, argv, 2, nx);
    float *a = malloc((size_t)nx * ny * sizeof *a);
    float *x = malloc(ny * sizeof *x), *y = calloc(ny, sizeof *y), *tmp = calloc(nx, sizeof *tmp);
    float *y_device = malloc(ny * sizeof *y);
    struct bench b = bench_open("atax");
    cl_kernel product = bench_kernel(&b, "atax_product"), transposed = bench_kernel(&b, "atax_transposed");
    cl_mem a_buffer, x_buffer, y_buffer, tmp_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, mismatches;

    for (j = 0; j < ny; j++)
        x[j] = 1.0f + (float)(j % 9) / 9.0f;
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++)
            a[(size_t)i * ny + j] = (float)((3 * i + j) % 23) / (23.0f * (float)ny);
    a_buffer = bench_buffer(&b, (size_t)nx * ny, a);
    x_buffer = bench_buffer(&b, ny, x);
    y_buffer = bench_buffer(&b, ny, y);
    tmp_buffer = bench_buffer(&b, nx, tmp);
    bench_arg(product, 0, sizeof a_buffer, &a_buffer);
    bench_arg(product, 1, sizeof x_buffer, &x_buffer);
    bench_arg(product, 2, sizeof tmp_buffer, &tmp_buffer);
    bench_arg(product, 3, sizeof nx, &nx);
    bench_arg(product, 4, sizeof ny, &ny);
    bench_arg(transposed, 0, sizeof a_buffer, &a_buffer);
    bench_arg(transposed, 1, sizeof tmp_buffer, &tmp_buffer);
    bench_arg(transposed, 2, sizeof y_buffer, &y_buffer);
    bench_arg(transposed, 3, sizeof nx, &nx);
    bench_arg(transposed, 4, sizeof ny, &ny);

    start = bench_now();
    bench_launch_1d(&b, product, nx);
    bench_launch_1d(&b, transposed, ny);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, y_buffer, ny, y_device);

    start = bench_now();
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++)
            tmp[i] += a[(size_t)i * ny + j] * x[j];
    for (j = 0; j < ny; j++)
        for (i = 0; i < nx; i++)
            y[j] += a[(size_t)i * ny + j] * tmp[i];
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(y, y_device, ny);
    snprintf(sizes, sizeof sizes, "NX=%d NY=%d", nx, ny);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(x_buffer);
    clReleaseMemObject(y_buffer);
    clReleaseMemObject(tmp_buffer);
    clReleaseKernel(product);
    clReleaseKernel(transposed);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, ny);
}
