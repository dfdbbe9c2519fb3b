// PolyBench/GPU BICG in the suite's style: the two products of the BiCG solver,
// s = A^T * r (one work-item per column) and q = A * p (one per row), for an nx x ny matrix
// A, as two independent kernels accumulating in global memory.
// Register-accumulating version: tests/corpus/pb_bicg.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void bicg_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *r,
                           __global DATA_TYPE *s, int nx, int ny)
{
    const int j = get_global_id(0);
    if (j < ny) {
        s[j] = 0;
        for (int i = 0; i < nx; i++)
            s[j] += r[i] * A[i * ny + j];
    }
}

__kernel void bicg_kernel2(const __global DATA_TYPE *A, const __global DATA_TYPE *p,
                           __global DATA_TYPE *q, int nx, int ny)
{
    const int i = get_global_id(0);
    if (i < nx) {
        q[i] = 0;
        for (int j = 0; j < ny; j++)
            q[i] += A[i * ny + j] * p[j];
    }
}
