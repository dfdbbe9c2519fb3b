// PolyBench/GPU GEMM: C = alpha * A * B + beta * C (A ni x nk, B nk x nj).
// Pattern: one work-item per element of C, row of A times column of B (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void gemm(const __global DATA_TYPE *a, const __global DATA_TYPE *b, __global DATA_TYPE *c,
                   DATA_TYPE alpha, DATA_TYPE beta, int ni, int nj, int nk)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nj) {
        DATA_TYPE sum = c[i * nj + j] * beta;
        for (int k = 0; k < nk; k++)
            sum += alpha * a[i * nk + k] * b[k * nj + j];
        c[i * nj + j] = sum;
    }
}
