// PolyBench/GPU 3MM in the suite's style: G = (A * B) * (C * D) as three kernels,
// E = A * B (ni x nj), F = C * D (nj x nl), G = E * F (ni x nl), each output element
// cleared and then accumulated in global memory inside its reduction loop.
// Register-accumulating version: tests/corpus/pb_3mm.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void mm3_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *B,
                          __global DATA_TYPE *E, int ni, int nj, int nk)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nj) {
        E[i * nj + j] = 0;
        for (int k = 0; k < nk; k++)
            E[i * nj + j] += A[i * nk + k] * B[k * nj + j];
    }
}

__kernel void mm3_kernel2(const __global DATA_TYPE *C, const __global DATA_TYPE *D,
                          __global DATA_TYPE *F, int nj, int nl, int nm)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < nj && j < nl) {
        F[i * nl + j] = 0;
        for (int k = 0; k < nm; k++)
            F[i * nl + j] += C[i * nm + k] * D[k * nl + j];
    }
}

__kernel void mm3_kernel3(const __global DATA_TYPE *E, const __global DATA_TYPE *F,
                          __global DATA_TYPE *G, int ni, int nl, int nj)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nl) {
        G[i * nl + j] = 0;
        for (int k = 0; k < nj; k++)
            G[i * nl + j] += E[i * nj + k] * F[k * nl + j];
    }
}
