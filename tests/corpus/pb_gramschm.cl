// PolyBench/GPU GRAMSCHM: QR decomposition of an m x n matrix A by modified
// Gram-Schmidt. For each column k the host runs three kernels: the norm of
// column k into R[k][k] (a single work-item), the normalised column into Q,
// and the projection of the remaining columns j > k (R[k][j], then A updated).
// Pattern: column walks, a serial kernel, and a triangular update (seed 003).

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
        DATA_TYPE dot_qa = 0;
        for (int i = 0; i < m; i++)
            dot_qa += q[i * n + k] * a[i * n + j];
        r[k * n + j] = dot_qa;
        for (int i = 0; i < m; i++)
            a[i * n + j] -= q[i * n + k] * dot_qa;
    }
}
