/* gesummv: y = alpha A x + beta B x, two matrix-vector products summed in one kernel.
 * Usage: ./gesummv [N]   (A and B are N x N; default 4096) */
#include "bench.h"

int main(int argc, char **argv)
{
    int n = bench_size(argc, argv, 1, 4096);
    size_t nn = (size_t)n * n;
    float alpha = 1.5f, beta = 0.75f;
    float *a = malloc(nn * sizeof *a), *bm = malloc(nn * sizeof *bm);
    float *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y), *tmp = calloc(n, sizeof *tmp);
    float *y_device = malloc(n * sizeof *y);
    struct bench b = bench_open("gesummv");
    cl_kernel kernel = bench_kernel(&b, "gesummv");
    cl_mem a_buffer, b_buffer, x_buffer, y_buffer, tmp_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, mismatches;

    for (i = 0; i < n; i++) {
        x[i] = (float)(i % 10) / 10.0f + 0.1f;
        for (j = 0; j < n; j++) {
            a[(size_t)i * n + j] = (float)((i * 3 + j * 7) % 29) / 29.0f;
            bm[(size_t)i * n + j] = (float)((i * 11 + j) % 31) / 31.0f;
        }
    }
    a_buffer = bench_buffer(&b, nn, a);
    b_buffer = bench_buffer(&b, nn, bm);
    x_buffer = bench_buffer(&b, n, x);
    y_buffer = bench_buffer(&b, n, y);
    tmp_buffer = bench_buffer(&b, n, tmp);
    bench_arg(kernel, 0, sizeof a_buffer, &a_buffer);
    bench_arg(kernel, 1, sizeof b_buffer, &b_buffer);
    bench_arg(kernel, 2, sizeof x_buffer, &x_buffer);
    bench_arg(kernel, 3, sizeof y_buffer, &y_buffer);
    bench_arg(kernel, 4, sizeof tmp_buffer, &tmp_buffer);
    bench_arg(kernel, 5, sizeof alpha, &alpha);
    bench_arg(kernel, 6, sizeof beta, &beta);
    bench_arg(kernel, 7, sizeof n, &n);

    start = bench_now();
    bench_launch_1d(&b, kernel, n);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, y_buffer, n, y_device);

    start = bench_now();
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            tmp[i] += a[(size_t)i * n + j] * x[j];
            y[i] += bm[(size_t)i * n + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(y, y_device, n);
    snprintf(sizes, sizeof sizes, "N=%d", n);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(b_buffer);
    clReleaseMemObject(x_buffer);
    clReleaseMemObject(y_buffer);
    clReleaseMemObject(tmp_buffer);
    clReleaseKernel(kernel);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, n);
}
