// PolyBench/GPU MVT: x1 = x1 + A * y1 and x2 = x2 + A^T * y2 for an n x n
// matrix A, as two kernels. Pattern: row walk and column walk (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void mvt_kernel1(const __global DATA_TYPE *a, __global DATA_TYPE *x1,
                          const __global DATA_TYPE *y1, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        DATA_TYPE sum = x1[i];
        for (int j = 0; j < n; j++)
            sum += a[i * n + j] * y1[j];
        x1[i] = sum;
    }
}

__kernel void mvt_kernel2(const __global DATA_TYPE *a, __global DATA_TYPE *x2,
                          const __global DATA_TYPE *y2, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        DATA_TYPE sum = x2[i];
        for (int j = 0; j < n; j++)
            sum += a[j * n + i] * y2[j];
        x2[i] = sum;
    }
}
