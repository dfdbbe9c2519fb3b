/* bicg: s = A^T r and q = A p, the two matrix-vector products of a BiCG iteration.
 * Usage: ./bicg [NX [NY]]   (A is NX x NY; NY defaults to NX; default 4096) */
#include "bench.h"

int main(int argc, char **argv)
{
    int nx = bench_size(argc, argv, 1, 4096);
    int ny = bench_size(argc, argv, 2, nx);
    float *a = malloc((size_t)nx * ny * sizeof *a);
    float *r = malloc(nx * sizeof *r), *p = malloc(ny * sizeof *p);
    float *s = calloc(ny, sizeof *s), *q = calloc(nx, sizeof *q);
    float *s_device = malloc(ny * sizeof *s), *q_device = malloc(nx * sizeof *q);
    struct bench b = bench_open("bicg");
    cl_kernel transposed = bench_kernel(&b, "bicg_transposed"), product = bench_kernel(&b, "bicg_product");
    cl_mem a_buffer, r_buffer, p_buffer, s_buffer, q_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, mismatches;

    for (i = 0; i < nx; i++)
        r[i] = 0.5f + (float)(i % 7) / 7.0f;
    for (j = 0; j < ny; j++)
        p[j] = 0.25f + (float)(j % 5) / 5.0f;
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++)
            a[(size_t)i * ny + j] = (float)((i + 5 * j) % 19 + 1) / 19.0f;
    a_buffer = bench_buffer(&b, (size_t)nx * ny, a);
    r_buffer = bench_buffer(&b, nx, r);
    p_buffer = bench_buffer(&b, ny, p);
    s_buffer = bench_buffer(&b, ny, s);
    q_buffer = bench_buffer(&b, nx, q);
    bench_arg(transposed, 0, sizeof a_buffer, &a_buffer);
    bench_arg(transposed, 1, sizeof r_buffer, &r_buffer);
    bench_arg(transposed, 2, sizeof s_buffer, &s_buffer);
    bench_arg(transposed, 3, sizeof nx, &nx);
    bench_arg(transposed, 4, sizeof ny, &ny);
    bench_arg(product, 0, sizeof a_buffer, &a_buffer);
    bench_arg(product, 1, sizeof p_buffer, &p_buffer);
    bench_arg(product, 2, sizeof q_buffer, &q_buffer);
    bench_arg(product, 3, sizeof nx, &nx);
    bench_arg(product, 4, sizeof ny, &ny);

    start = bench_now();
    bench_launch_1d(&b, transposed, ny);
    bench_launch_1d(&b, product, nx);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, s_buffer, ny, s_device);
    bench_read(&b, q_buffer, nx, q_device);

    start = bench_now();
    for (j = 0; j < ny; j++)
        for (i = 0; i < nx; i++)
            s[j] += r[i] * a[(size_t)i * ny + j];
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++)
            q[i] += a[(size_t)i * ny + j] * p[j];
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(s, s_device, ny) + bench_mismatches(q, q_device, nx);
    snprintf(sizes, sizeof sizes, "NX=%d NY=%d", nx, ny);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(r_buffer);
    clReleaseMemObject(p_buffer);
    clReleaseMemObject(s_buffer);
    clReleaseMemObject(q_buffer);
    clReleaseKernel(transposed);
    clReleaseKernel(product);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, (size_t)nx + ny);
}
