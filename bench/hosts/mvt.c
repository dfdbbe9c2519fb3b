/* mvt: two matrix-vector products with one matrix, x1 += A y1 and x2 += A^T y2.
 * Usage: ./mvt [N]   (A is N x N; default 4096) */
#include "bench.h"

int main(int argc, char **argv)
{
    int n = bench_size(argc, argv, 1, 4096);
    size_t nn = (size_t)n * n;
    float *a = malloc(nn * sizeof *a);
    float *x1 = malloc(n * sizeof *x1), *x2 = malloc(n * sizeof *x2);
    float *y1 = malloc(n * sizeof *y1), *y2 = malloc(n * sizeof *y2);
    float *x1_device = malloc(n * sizeof *x1), *x2_device = malloc(n * sizeof *x2);
    struct bench b = bench_open("mvt");
    cl_kernel rows = bench_kernel(&b, "mvt_rows"), columns = bench_kernel(&b, "mvt_columns");
    cl_mem a_buffer, x1_buffer, x2_buffer, y1_buffer, y2_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, mismatches;

    for (i = 0; i < n; i++) {
        x1[i] = (float)(i % 5) * 0.25f;
        x2[i] = (float)(i % 3) * 0.5f;
        y1[i] = (float)((i * 3) % 11) / 11.0f;
        y2[i] = (float)((i * 7) % 13) / 13.0f;
        for (j = 0; j < n; j++)
            a[(size_t)i * n + j] = (float)((i + 2 * j) % 17 + 1) / 17.0f;
    }
    a_buffer = bench_buffer(&b, nn, a);
    x1_buffer = bench_buffer(&b, n, x1);
    x2_buffer = bench_buffer(&b, n, x2);
    y1_buffer = bench_buffer(&b, n, y1);
    y2_buffer = bench_buffer(&b, n, y2);
    bench_arg(rows, 0, sizeof a_buffer, &a_buffer);
    bench_arg(rows, 1, sizeof x1_buffer, &x1_buffer);
    bench_arg(rows, 2, sizeof y1_buffer, &y1_buffer);
    bench_arg(rows, 3, sizeof n, &n);
    bench_arg(columns, 0, sizeof a_buffer, &a_buffer);
    bench_arg(columns, 1, sizeof x2_buffer, &x2_buffer);
    bench_arg(columns, 2, sizeof y2_buffer, &y2_buffer);
    bench_arg(columns, 3, sizeof n, &n);

    start = bench_now();
    bench_launch_1d(&b, rows, n);
    bench_launch_1d(&b, columns, n);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, x1_buffer, n, x1_device);
    bench_read(&b, x2_buffer, n, x2_device);

    start = bench_now();
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x1[i] += a[(size_t)i * n + j] * y1[j];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x2[i] += a[(size_t)j * n + i] * y2[j];
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(x1, x1_device, n) + bench_mismatches(x2, x2_device, n);
    snprintf(sizes, sizeof sizes, "N=%d", n);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(x1_buffer);
    clReleaseMemObject(x2_buffer);
    clReleaseMemObject(y1_buffer);
    clReleaseMemObject(y2_buffer);
    clReleaseKernel(rows);
    clReleaseKernel(columns);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, 2 * (size_t)n);
}
