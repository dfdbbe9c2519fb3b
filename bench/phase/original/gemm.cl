// PolyBench/GPU GEMM in the suite's style: C = alpha * A * B + beta * C (A ni x nk,
// B nk x nj). One work-item per element of C; the element is scaled and then accumulated in
// global memory, a load and a store per step of the k loop. A compiler may keep it in a
// register only if it proves that C aliases neither A nor B.
// Register-accumulating version of the same computation: tests/corpus/pb_gemm.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void gemm(const __global DATA_TYPE *a, const __global DATA_TYPE *b, __global DATA_TYPE *c,
                   DATA_TYPE alpha, DATA_TYPE beta, int ni, int nj, int nk)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}
