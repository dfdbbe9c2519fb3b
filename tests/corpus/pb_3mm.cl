// PolyBench/GPU 3MM: G = (A * B) * (C * D) as three kernels:
// E = A * B (ni x nj), F = C * D (nj x nl), G = E * F (ni x nl).
// Pattern: three matrix products, the third consuming the first two (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void mm3_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *B,
                          __global DATA_TYPE *E, int ni, int nj, int nk)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nj) {
        DATA_TYPE sum = 0;
        for (int k = 0; k < nk; k++)
            sum += A[i * nk + k] * B[k * nj + j];
        E[i * nj + j] = sum;
    }
}

__kernel void mm3_kernel2(const __global DATA_TYPE *C, const __global DATA_TYPE *D,
                          __global DATA_TYPE *F, int nj, int nl, int nm)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < nj && j < nl) {
        DATA_TYPE sum = 0;
        for (int k = 0; k < nm; k++)
            sum += C[i * nm + k] * D[k * nl + j];
        F[i * nl + j] = sum;
    }
}

__kernel void mm3_kernel3(const __global DATA_TYPE *E, const __global DATA_TYPE *F,
                          __global DATA_TYPE *G, int ni, int nl, int nj)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nl) {
        DATA_TYPE sum = 0;
        for (int k = 0; k < nj; k++)
            sum += E[i * nj + k] * F[k * nl + j];
        G[i * nl + j] = sum;
    }
}
