// PolyBench/GPU COVAR in the suite's style: the covariance matrix of m variables over n
// observations (data is n x m) as three kernels: column means, centring, and the symmetric
// m x m covariance matrix (unnormalised, as in PolyBench) with one work-item per row. Means
// and covariances are accumulated in global memory inside their loops; the means divide by
// float_n, a constant of the benchmark.
// Register-accumulating version: tests/corpus/pb_covar.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void covar_mean(const __global DATA_TYPE *data, __global DATA_TYPE *mean,
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

__kernel void covar_reduce(__global DATA_TYPE *data, const __global DATA_TYPE *mean, int m, int n)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < n && j < m)
        data[i * m + j] -= mean[j];
}

__kernel void covar_covar(const __global DATA_TYPE *data, __global DATA_TYPE *symmat, int m, int n)
{
    const int j1 = get_global_id(0);
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            symmat[j1 * m + j2] = 0;
            for (int i = 0; i < n; i++)
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}
