/* 2dconv: a 3 x 3 convolution with an asymmetric stencil over an NI x NJ image.
 * Usage: ./2dconv [NI [NJ]]   (NJ defaults to NI; default 4096) */
#include "bench.h"

static float convolve(const float *in, int nj, int i, int j)
{
    return 0.1f * in[(size_t)(i - 1) * nj + (j - 1)] - 0.2f * in[(size_t)(i - 1) * nj + j] +
           0.3f * in[(size_t)(i - 1) * nj + (j + 1)] + 0.4f * in[(size_t)i * nj + (j - 1)] + 0.5f * in[(size_t)i * nj + j] -
           0.6f * in[(size_t)i * nj + (j + 1)] + 0.7f * in[(size_t)(i + 1) * nj + (j - 1)] +
           0.8f * in[(size_t)(i + 1) * nj + j] - 0.9f * in[(size_t)(i + 1) * nj + (j + 1)];
}

int main(int argc, char **argv)
{
    int ni = bench_size(argc, argv, 1, 4096);
    int nj = bench_size(argc, argv, 2, ni);
    size_t count = (size_t)ni * nj;
    float *in = malloc(count * sizeof *in), *out = calloc(count, sizeof *out), *out_device = malloc(count * sizeof *out);
    struct bench b = bench_open("2dconv");
    cl_kernel kernel = bench_kernel(&b, "convolution_3x3");
    cl_mem in_buffer, out_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j, mismatches;

    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++)
            in[(size_t)i * nj + j] = (float)((i * 13 + j * 7) % 64) / 8.0f;
    in_buffer = bench_buffer(&b, count, in);
    out_buffer = bench_buffer(&b, count, out);
    bench_arg(kernel, 0, sizeof in_buffer, &in_buffer);
    bench_arg(kernel, 1, sizeof out_buffer, &out_buffer);
    bench_arg(kernel, 2, sizeof ni, &ni);
    bench_arg(kernel, 3, sizeof nj, &nj);

    start = bench_now();
    bench_launch_2d(&b, kernel, nj, ni);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, out_buffer, count, out_device);

    start = bench_now();
    for (i = 1; i < ni - 1; i++)
        for (j = 1; j < nj - 1; j++)
            out[(size_t)i * nj + j] = convolve(in, nj, i, j);
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(out, out_device, count);
    snprintf(sizes, sizeof sizes, "NI=%d NJ=%d", ni, nj);
    clReleaseMemObject(in_buffer);
    clReleaseMemObject(out_buffer);
    clReleaseKernel(kernel);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, count);
}
