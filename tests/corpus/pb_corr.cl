// PolyBench/GPU CORR: correlation matrix of m variables over n observations
// (data is n x m, row = observation), as four kernels: column means, column
// standard deviations, centring and scaling of the data, and the symmetric
// m x m correlation matrix. Pattern: column walks and a triangular loop (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif


__kernel void corr_mean(const __global DATA_TYPE *data, __global DATA_TYPE *mean,
                        DATA_TYPE float_n, int m, int n)
{
    const int j = get_global_id(0);
    if (j < m) {
        DATA_TYPE sum = 0;
        for (int i = 0; i < n; i++)
            sum += data[i * m + j];
        mean[j] = sum / float_n;
    }
}

__kernel void corr_std(const __global DATA_TYPE *data, const __global DATA_TYPE *mean,
                       __global DATA_TYPE *std_dev, DATA_TYPE float_n, DATA_TYPE eps,
                       int m, int n)
{
    const int j = get_global_id(0);
    if (j < m) {
        DATA_TYPE sum = 0;
        for (int i = 0; i < n; i++) {
            const DATA_TYPE centred = data[i * m + j] - mean[j];
            sum += centred * centred;
        }
        const DATA_TYPE deviation = sqrt(sum / float_n);
        // A near-constant column would divide by ~0 below; PolyBench uses 1 instead.
        std_dev[j] = deviation <= eps ? 1.0f : deviation;
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
            DATA_TYPE sum = 0;
            for (int i = 0; i < n; i++)
                sum += data[i * m + j1] * data[i * m + j2];
            symmat[j1 * m + j2] = sum;
            symmat[j2 * m + j1] = sum;
        }
    }
}
