/* covariance: the sample covariance matrix of M variables from N observations, in three
 * kernels (means, centring, the matrix).
 * Usage: ./covariance [M [N]]   (N defaults to M; default 2048) */
#include "bench.h"

int main(int argc, char **argv)
{
    int m = bench_size(argc, argv, 1, 2048);
    int n = bench_size(argc, argv, 2, m);
    float *data = malloc((size_t)n * m * sizeof *data);
    float *mean = malloc(m * sizeof *mean);
    float *symmat = malloc((size_t)m * m * sizeof *symmat), *symmat_device = malloc((size_t)m * m * sizeof *symmat);
    struct bench b = bench_open("covariance");
    cl_kernel mean_kernel = bench_kernel(&b, "covariance_mean");
    cl_kernel centre_kernel = bench_kernel(&b, "covariance_centre");
    cl_kernel matrix_kernel = bench_kernel(&b, "covariance_matrix");
    cl_mem data_buffer, mean_buffer, symmat_buffer;
    double start, device_seconds, host_seconds;
    char sizes[64];
    int i, j1, j2, mismatches;

    if (n < 2) {
        fprintf(stderr, "covariance: N must be at least 2\n");
        return 2;
    }
    /* Variables with different means and spreads, correlated through i. */
    for (i = 0; i < n; i++)
        for (j1 = 0; j1 < m; j1++)
            data[(size_t)i * m + j1] = (float)(j1 % 4) + (float)((i * (j1 % 7 + 1)) % 10) / 2.0f +
                                       (float)((i + 3 * j1) % 5) / 4.0f;
    data_buffer = bench_buffer(&b, (size_t)n * m, data);
    mean_buffer = bench_buffer(&b, m, NULL);
    symmat_buffer = bench_buffer(&b, (size_t)m * m, NULL);
    bench_arg(mean_kernel, 0, sizeof mean_buffer, &mean_buffer);
    bench_arg(mean_kernel, 1, sizeof data_buffer, &data_buffer);
    bench_arg(mean_kernel, 2, sizeof n, &n);
    bench_arg(mean_kernel, 3, sizeof m, &m);
    bench_arg(centre_kernel, 0, sizeof mean_buffer, &mean_buffer);
    bench_arg(centre_kernel, 1, sizeof data_buffer, &data_buffer);
    bench_arg(centre_kernel, 2, sizeof n, &n);
    bench_arg(centre_kernel, 3, sizeof m, &m);
    bench_arg(matrix_kernel, 0, sizeof symmat_buffer, &symmat_buffer);
    bench_arg(matrix_kernel, 1, sizeof data_buffer, &data_buffer);
    bench_arg(matrix_kernel, 2, sizeof n, &n);
    bench_arg(matrix_kernel, 3, sizeof m, &m);

    start = bench_now();
    bench_launch_1d(&b, mean_kernel, m);
    bench_launch_2d(&b, centre_kernel, m, n);
    bench_launch_1d(&b, matrix_kernel, m);
    BENCH_CHECK(clFinish(b.queue));
    device_seconds = bench_now() - start;
    bench_read(&b, symmat_buffer, (size_t)m * m, symmat_device);

    start = bench_now();
    for (j1 = 0; j1 < m; j1++) {
        mean[j1] = 0.0f;
        for (i = 0; i < n; i++)
            mean[j1] += data[(size_t)i * m + j1];
        mean[j1] /= (float)n;
    }
    for (i = 0; i < n; i++)
        for (j1 = 0; j1 < m; j1++)
            data[(size_t)i * m + j1] -= mean[j1];
    for (j1 = 0; j1 < m; j1++)
        for (j2 = j1; j2 < m; j2++) {
            symmat[(size_t)j1 * m + j2] = 0.0f;
            for (i = 0; i < n; i++)
                symmat[(size_t)j1 * m + j2] += data[(size_t)i * m + j1] * data[(size_t)i * m + j2];
            symmat[(size_t)j1 * m + j2] /= (float)(n - 1);
            symmat[(size_t)j2 * m + j1] = symmat[(size_t)j1 * m + j2];
        }
    host_seconds = bench_now() - start;

    mismatches = bench_mismatches(symmat, symmat_device, (size_t)m * m);
    snprintf(sizes, sizeof sizes, "M=%d N=%d", m, n);
    clReleaseMemObject(data_buffer);
    clReleaseMemObject(mean_buffer);
    clReleaseMemObject(symmat_buffer);
    clReleaseKernel(mean_kernel);
    clReleaseKernel(centre_kernel);
    clReleaseKernel(matrix_kernel);
    return bench_finish(&b, sizes, device_seconds, host_seconds, mismatches, (size_t)m * m);
}
