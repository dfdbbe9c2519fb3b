// PolyBench/GPU MVT in the suite's style: x1 = x1 + A * y1 and x2 = x2 + A^T * y2 for an
// n x n matrix A, as two kernels, each updating its element of x in global memory at every
// step of the loop. Register-accumulating version: tests/corpus/pb_mvt.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void mvt_kernel1(const __global DATA_TYPE *a, __global DATA_TYPE *x1,
                          const __global DATA_TYPE *y1, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
    }
}

__kernel void mvt_kernel2(const __global DATA_TYPE *a, __global DATA_TYPE *x2,
                          const __global DATA_TYPE *y2, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        for (int j = 0; j < n; j++)
            x2[i] += a[j * n + i] * y2[j];
    }
}
