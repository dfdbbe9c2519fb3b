// PolyBench/GPU ATAX: y = A^T * (A * x) for an nx x ny matrix A, as two
// kernels: tmp = A * x (row walk), then y = A^T * tmp (column walk).
// Pattern: row-wise versus column-wise traversal of the same matrix (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void atax_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *x,
                           __global DATA_TYPE *tmp, int nx, int ny)
{
    const int i = get_global_id(0);
    if (i < nx) {
        DATA_TYPE sum = 0;
        for (int j = 0; j < ny; j++)
            sum += A[i * ny + j] * x[j];
        tmp[i] = sum;
    }
}

__kernel void atax_kernel2(const __global DATA_TYPE *A, const __global DATA_TYPE *tmp,
                           __global DATA_TYPE *y, int nx, int ny)
{
    const int j = get_global_id(0);
    if (j < ny) {
        DATA_TYPE sum = 0;
        for (int i = 0; i < nx; i++)
            sum += A[i * ny + j] * tmp[i];
        y[j] = sum;
    }
}
