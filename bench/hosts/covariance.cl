/* covariance of m variables observed n times: data is n x m (row: observation), symmat is
 * m x m. Three kernels: the means, centring, and one row of the matrix per work-item. */

__kernel void covariance_mean(__global float *mean, __global const float *data, int n, int m)
{
    int j = get_global_id(0);
    if (j < m) {
        mean[j] = 0.0f;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= (float)n;
    }
}

__kernel void covariance_centre(__global const float *mean, __global float *data, int n, int m)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < n && j < m)
        data[i * m + j] -= mean[j];
}

__kernel void covariance_matrix(__global float *symmat, __global const float *data, int n, int m)
{
    int j1 = get_global_id(0);
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            symmat[j1 * m + j2] = 0.0f;
            for (int i = 0; i < n; i++)
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            symmat[j1 * m + j2] /= (float)(n - 1);
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}
