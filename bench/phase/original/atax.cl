// PolyBench/GPU ATAX in the suite's style: y = A^T * (A * x) for an nx x ny matrix A, as two
// kernels: tmp = A * x (one work-item per row), then y = A^T * tmp (one per column). Each
// result is cleared and accumulated in global memory inside its loop.
// Register-accumulating version: tests/corpus/pb_atax.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void atax_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *x,
                           __global DATA_TYPE *tmp, int nx, int ny)
{
    const int i = get_global_id(0);
    if (i < nx) {
        tmp[i] = 0;
        for (int j = 0; j < ny; j++)
            tmp[i] += A[i * ny + j] * x[j];
    }
}

__kernel void atax_kernel2(const __global DATA_TYPE *A, const __global DATA_TYPE *tmp,
                           __global DATA_TYPE *y, int nx, int ny)
{
    const int j = get_global_id(0);
    if (j < ny) {
        y[j] = 0;
        for (int i = 0; i < nx; i++)
            y[j] += A[i * ny + j] * tmp[i];
    }
}
