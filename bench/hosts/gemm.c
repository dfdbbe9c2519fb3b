/* gemm: C = alpha A B + beta C.
 * Usage: ./gemm [NI [NJ [NK]]]   (NJ and NK default to NI; default 512) */
#include "bench.h"

int main(int argc, char **argv)
{
    int ni = bench_size(argc, argv, 1, 512);
    int nj = bench_size(argc, argv, 2, ni);
    int nk = bench_size(argc, argv, 3, ni);
    float alpha = 1.25f, beta = 0.5f;
    float *a = malloc((size_t)ni * nk * sizeof *a), *bm = malloc((size_t)nk * nj * sizeof *bm);
    float *c = malloc((size_t)ni * nj * sizeof *c), *c_device = malloc((size_t)ni * nj * sizeof *c);
    struct bench b = bench_open("gemm");
    cl_kernel kernel = bench_kernel(&b, "gemm");
    cl_mem a_buffer, b_buffer, c_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, k, mismatches;

    for (i = 0; i < ni; i++)
        for (k = 0; k < nk; k++)
            a[(size_t)i * nk + k] = (float)((i * 5 + k) % 13) / 13.0f;
    for (k = 0; k < nk; k++)
        for (j = 0; j < nj; j++)
            bm[(size_t)k * nj + j] = (float)((k + j * 3) % 17) / 17.0f;
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++)
            c[(size_t)i * nj + j] = (float)((i + j) % 11) / 11.0f;
    a_buffer = bench_buffer(&b, (size_t)ni * nk, a);
    b_buffer = bench_buffer(&b, (size_t)nk * nj, bm);
    c_buffer = bench_buffer(&b, (size_t)ni * nj, c);
    bench_arg(kernel, 0, sizeof a_buffer, &a_buffer);
    bench_arg(kernel, 1, sizeof b_buffer, &b_buffer);
    bench_arg(kernel, 2, sizeof c_buffer, &c_buffer);
    bench_arg(kernel, 3, sizeof alpha, &alpha);
    bench_arg(kernel, 4, sizeof beta, &beta);
    bench_arg(kernel, 5, sizeof ni, &ni);
    bench_arg(kernel, 6, sizeof nj, &nj);
    bench_arg(kernel, 7, sizeof nk, &nk);

    start = bench_now();
    bench_launch_2d(&b, kernel, nj, ni);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, c_buffer, (size_t)ni * nj, c_device);

    start = bench_now();
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            c[(size_t)i * nj + j] *= beta;
            for (k = 0; k < nk; k++)
                c[(size_t)i * nj + j] += alpha * a[(size_t)i * nk + k] * bm[(size_t)k * nj + j];
        }
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(c, c_device, (size_t)ni * nj);
    snprintf(sizes, sizeof sizes, "NI=%d NJ=%d NK=%d", ni, nj, nk);
    clReleaseMemObject(a_buffer);
    clReleaseMemObject(b_buffer);
    clReleaseMemObject(c_buffer);
    clReleaseKernel(kernel);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, (size_t)ni * nj);
}
