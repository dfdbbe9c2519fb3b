// PolyBench/GPU GRAMSCHM in the suite's style: QR decomposition of an m x n matrix A by
// Gram-Schmidt with the projections applied column by column. The host loops over the
// columns k and runs three kernels for each: the norm of column k into R[k][k] (one
// work-item of a group does it), the normalised column into Q, and the projection of every
// later column j > k: R[k][j] is accumulated in global memory, then A is updated.
// Register-accumulating version: tests/corpus/pb_gramschm.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void gramschmidt_kernel1(const __global DATA_TYPE *a, __global DATA_TYPE *r,
                                  __global DATA_TYPE *q, int k, int m, int n)
{
    if (get_global_id(0) == 0) {
        DATA_TYPE norm = 0;
        for (int i = 0; i < m; i++)
            norm += a[i * n + k] * a[i * n + k];
        r[k * n + k] = sqrt(norm);
    }
}

__kernel void gramschmidt_kernel2(const __global DATA_TYPE *a, const __global DATA_TYPE *r,
                                  __global DATA_TYPE *q, int k, int m, int n)
{
    const int i = get_global_id(0);
    if (i < m)
        q[i * n + k] = a[i * n + k] / r[k * n + k];
}

__kernel void gramschmidt_kernel3(__global DATA_TYPE *a, __global DATA_TYPE *r,
                                  const __global DATA_TYPE *q, int k, int m, int n)
{
    const int j = get_global_id(0);
    if (j > k && j < n) {
        r[k * n + j] = 0;
        for (int i = 0; i < m; i++)
            r[k * n + j] += q[i * n + k] * a[i * n + j];
        for (int i = 0; i < m; i++)
            a[i * n + j] -= q[i * n + k] * r[k * n + j];
    }
}
