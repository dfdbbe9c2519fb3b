/* 2mm: two chained matrix products, D = alpha A B C + beta D.
 * Usage: ./2mm [N]   (every matrix is N x N; default 2048) */
#include "bench.h"

int main(int argc, char **argv)
{
    int n = bench_size(argc, argv, 1, 2048);
    int ni = n, nj = n, nk = n, nl = n;
    size_t nn = (size_t)n * n;
    float alpha = 0.75f, beta = 1.5f;
    float *a = malloc(nn * sizeof *a), *bm = malloc(nn * sizeof *bm), *c = malloc(nn * sizeof *c);
    float *d = malloc(nn * sizeof *d), *tmp = malloc(nn * sizeof *tmp), *d_device = malloc(nn * sizeof *d);
    struct bench b = bench_open("2mm");
    cl_kernel first = bench_kernel(&b, "mm2_first"), second = bench_kernel(&b, "mm2_second");
    cl_mem a_buffer, b_buffer, c_buffer, d_buffer, tmp_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, k, mismatches;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            a[(size_t)i * n + j] = (float)((i * 2 + j) % 9) / 9.0f;
            bm[(size_t)i * n + j] = (float)((i + j * 4) % 7) / 7.0f;
            c[(size_t)i * n + j] = (float)((i * 3 + j * 5) % 11) / 11.0f;
            d[(size_t)i * n + j] = (float)((i + j) % 13) / 13.0f;
        }
    a_buffer = bench_buffer(&b, nn, a);
    b_buffer = bench_buffer(&b, nn, bm);
    c_buffer = bench_buffer(&b, nn, c);
    d_buffer = bench_buffer(&b, nn, d);
    tmp_buffer = bench_buffer(&b, nn, NULL);
    bench_arg(first, 0, sizeof a_buffer, &a_buffer);
    bench_arg(first, 1, sizeof b_buffer, &b_buffer);
    bench_arg(first, 2, sizeof tmp_buffer, &tmp_buffer);
    bench_arg(first, 3, sizeof alpha, &alpha);
    bench_arg(first, 4, sizeof ni, &ni);
    bench_arg(first, 5, sizeof nj, &nj);
    bench_arg(first, 6, sizeof nk, &nk);
    bench_arg(second, 0, sizeof tmp_buffer, &tmp_buffer);
    bench_arg(second, 1, sizeof c_buffer, &c_buffer);
    bench_arg(second, 2, sizeof d_buffer, &d_buffer);
    bench_arg(second, 3, sizeof beta, &beta);
    bench_arg(second, 4, sizeof ni, &ni);
    bench_arg(second, 5, sizeof nj, &nj);
    bench_arg(second, 6, sizeof nl, &nl);

    start = bench_now();
    bench_launch_2d(&b, first, nj, ni);
    bench_launch_2d(&b, second, nl, ni);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, d_buffer, nn, d_device);

    start = bench_now();
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            tmp[(size_t)i * nj + j] = 0.0f;
            for (k = 0; k < nk; k++)
                tmp[(size_t)i * nj + j] += alpha * a[(size_t)i * nk + k] * bm[(size_t)k * nj + j];
        }
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            d[(size_t)i * nl + j] *= beta;
            for (k = 0; k < nj; k++)
                d[(size_t)i * nl + j] += tmp[(size_t)i * nj + k] * c[(size_t)k * nl + j];
        }
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(d, d_device, nn);
    snprintf(sizes, sizeof sizes, "N=%d", n);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(b_buffer);
    clReleaseMemObject(c_buffer);
    clReleaseMemObject(d_buffer);
    clReleaseMemObject(tmp_buffer);
    clReleaseKernel(first);
    clReleaseKernel(second);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, nn);
}
