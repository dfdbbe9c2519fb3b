// PolyBench/GPU 2MM: D = alpha * A * B * C + beta * D, as two kernels:
// tmp = alpha * A * B (ni x nj), then D = tmp * C + beta * D (ni x nl).
// Pattern: two chained matrix products in global memory (seed 003; also a
// producer/consumer pair for kernel fusion, seed 002).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void mm2_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *B,
                          __global DATA_TYPE *tmp, DATA_TYPE alpha, int ni, int nj, int nk)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nj) {
        DATA_TYPE sum = 0;
        for (int k = 0; k < nk; k++)
            sum += alpha * A[i * nk + k] * B[k * nj + j];
        tmp[i * nj + j] = sum;
    }
}

__kernel void mm2_kernel2(const __global DATA_TYPE *tmp, const __global DATA_TYPE *C,
                          __global DATA_TYPE *D, DATA_TYPE beta, int ni, int nl, int nj)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nl) {
        DATA_TYPE sum = D[i * nl + j] * beta;
        for (int k = 0; k < nj; k++)
            sum += tmp[i * nj + k] * C[k * nl + j];
        D[i * nl + j] = sum;
    }
}
