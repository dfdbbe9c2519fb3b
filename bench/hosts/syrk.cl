/* syrk: C = alpha A A^T + beta C. A is n x m, C is n x n; one work-item per element of C
 * (x: column j, y: row i). */

__kernel void syrk(__global const float *a, __global float *c, float alpha, float beta, int n, int m)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < n && j < n) {
        c[i * n + j] *= beta;
        for (int k = 0; k < m; k++)
            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
    }
}
