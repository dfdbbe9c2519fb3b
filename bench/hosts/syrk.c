/* syrk: the symmetric rank-k update C = alpha A A^T + beta C.
 * Usage: ./syrk [N [M]]   (A is N x M, M defaults to N; default 1024) */
#include "bench.h"

int main(int argc, char **argv)
{
    int n = bench_size(argc, argv, 1, 1024);
    int m = bench_size(argc, argv, 2, n);
    float alpha = 0.5f, beta = 2.0f;
    float *a = malloc((size_t)n * m * sizeof *a);
    float *c = malloc((size_t)n * n * sizeof *c), *c_device = malloc((size_t)n * n * sizeof *c);
    struct bench b = bench_open("syrk");
    cl_kernel kernel = bench_kernel(&b, "syrk");
    cl_mem a_buffer, c_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, k, mismatches;

    for (i = 0; i < n; i++)
        for (k = 0; k < m; k++)
            a[(size_t)i * m + k] = (float)((i * 7 + k * 2) % 15) / 15.0f;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            c[(size_t)i * n + j] = (float)((i * j) % 5) / 5.0f;
    a_buffer = bench_buffer(&b, (size_t)n * m, a);
    c_buffer = bench_buffer(&b, (size_t)n * n, c);
    bench_arg(kernel, 0, sizeof a_buffer, &a_buffer);
    bench_arg(kernel, 1, sizeof c_buffer, &c_buffer);
    bench_arg(kernel, 2, sizeof alpha, &alpha);
    bench_arg(kernel, 3, sizeof beta, &beta);
    bench_arg(kernel, 4, sizeof n, &n);
    bench_arg(kernel, 5, sizeof m, &m);

    start = bench_now();
    bench_launch_2d(&b, kernel, n, n);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, c_buffer, (size_t)n * n, c_device);

    start = bench_now();
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            c[(size_t)i * n + j] *= beta;
            for (k = 0; k < m; k++)
                c[(size_t)i * n + j] += alpha * a[(size_t)i * m + k] * a[(size_t)j * m + k];
        }
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(c, c_device, (size_t)n * n);
    snprintf(sizes, sizeof sizes, "N=%d M=%d", n, m);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(c_buffer);
    clReleaseKernel(kernel);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, (size_t)n * n);
}
