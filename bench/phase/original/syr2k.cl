// PolyBench/GPU SYR2K in the suite's style: symmetric rank-2k update
// C = alpha * A * B^T + alpha * B * A^T + beta * C, A and B n x m, C n x n. One work-item per
// element of C, scaled and then updated in global memory twice per step of the k loop.
// Register-accumulating version: tests/corpus/pb_syr2k.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void syr2k(const __global DATA_TYPE *a, const __global DATA_TYPE *b, __global DATA_TYPE *c,
                    DATA_TYPE alpha, DATA_TYPE beta, int m, int n)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < n && j < n) {
        c[i * n + j] *= beta;
        for (int k = 0; k < m; k++) {
            c[i * n + j] += alpha * a[i * m + k] * b[j * m + k];
            c[i * n + j] += alpha * b[i * m + k] * a[j * m + k];
        }
    }
}
