// PolyBench/GPU SYRK in the suite's style: symmetric rank-k update
// C = alpha * A * A^T + beta * C, A n x m, C n x n. One work-item per element of C, scaled
// and then accumulated in global memory inside the k loop.
// Register-accumulating version: tests/corpus/pb_syrk.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void syrk(const __global DATA_TYPE *a, __global DATA_TYPE *c,
                   DATA_TYPE alpha, DATA_TYPE beta, int m, int n)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < n && j < n) {
        c[i * n + j] *= beta;
        for (int k = 0; k < m; k++)
            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
    }
}
