// PolyBench/GPU BICG: the two products of the BiCG solver, s = A^T * r and
// q = A * p, for an nx x ny matrix A, as two independent kernels.
// Pattern: column walk and row walk over one matrix (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void bicg_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *r,
                           __global DATA_TYPE *s, int nx, int ny)
{
    const int j = get_global_id(0);
    if (j < ny) {
        DATA_TYPE sum = 0;
        for (int i = 0; i < nx; i++)
            sum += r[i] * A[i * ny + j];
        s[j] = sum;
    }
}

__kernel void bicg_kernel2(const __global DATA_TYPE *A, const __global DATA_TYPE *p,
                           __global DATA_TYPE *q, int nx, int ny)
{
    const int i = get_global_id(0);
    if (i < nx) {
        DATA_TYPE sum = 0;
        for (int j = 0; j < ny; j++)
            sum += A[i * ny + j] * p[j];
        q[i] = sum;
    }
}
