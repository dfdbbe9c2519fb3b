// PolyBench/GPU CORR in the suite's style: the correlation matrix of m variables over n
// observations (data is n x m, one row per observation) as four kernels: column means,
// column standard deviations, centring and scaling of the data, and the symmetric m x m
// correlation matrix with one work-item per row. Means, deviations and correlations are
// accumulated in global memory inside their loops. As in PolyBench, the means and
// deviations divide by float_n, a constant of the benchmark, not by the number of rows.
// Register-accumulating version: tests/corpus/pb_corr.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void corr_mean(const __global DATA_TYPE *data, __global DATA_TYPE *mean,
                        DATA_TYPE float_n, int m, int n)
{
    const int j = get_global_id(0);
    if (j < m) {
        mean[j] = 0;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= float_n;
    }
}

__kernel void corr_std(const __global DATA_TYPE *data, const __global DATA_TYPE *mean,
                       __global DATA_TYPE *std_dev, DATA_TYPE float_n, DATA_TYPE eps,
                       int m, int n)
{
    const int j = get_global_id(0);
    if (j < m) {
        std_dev[j] = 0;
        for (int i = 0; i < n; i++)
            std_dev[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        std_dev[j] /= float_n;
        std_dev[j] = sqrt(std_dev[j]);
        // A constant column would be divided by ~0 below; PolyBench uses 1 instead.
        if (std_dev[j] <= eps)
            std_dev[j] = 1.0f;
    }
}

__kernel void corr_reduce(__global DATA_TYPE *data, const __global DATA_TYPE *mean,
                          const __global DATA_TYPE *std_dev, DATA_TYPE float_n, int m, int n)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < n && j < m) {
        data[i * m + j] -= mean[j];
        data[i * m + j] /= sqrt(float_n) * std_dev[j];
    }
}

__kernel void corr_corr(const __global DATA_TYPE *data, __global DATA_TYPE *symmat, int m, int n)
{
    const int j1 = get_global_id(0);
    if (j1 < m) {
        symmat[j1 * m + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 < m; j2++) {
            symmat[j1 * m + j2] = 0;
            for (int i = 0; i < n; i++)
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}
