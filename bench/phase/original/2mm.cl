// PolyBench/GPU 2MM in the suite's style: D = alpha * A * B * C + beta * D as two kernels,
// tmp = alpha * A * B (ni x nj), then D = tmp * C + beta * D (ni x nl). Each output element
// is accumulated in global memory inside its reduction loop.
// Register-accumulating version: tests/corpus/pb_2mm.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void mm2_kernel1(const __global DATA_TYPE *A, const __global DATA_TYPE *B,
                          __global DATA_TYPE *tmp, DATA_TYPE alpha, int ni, int nj, int nk)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nj) {
        tmp[i * nj + j] = 0;
        for (int k = 0; k < nk; k++)
            tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
}

__kernel void mm2_kernel2(const __global DATA_TYPE *tmp, const __global DATA_TYPE *C,
                          __global DATA_TYPE *D, DATA_TYPE beta, int ni, int nl, int nj)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nl) {
        D[i * nl + j] *= beta;
        for (int k = 0; k < nj; k++)
            D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
    }
}
