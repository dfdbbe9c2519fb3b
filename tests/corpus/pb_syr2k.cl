// PolyBench/GPU SYR2K: symmetric rank-2k update
// C = alpha * A * B^T + alpha * B * A^T + beta * C, A and B n x m, C n x n.
// Pattern: two rows of A and two rows of B per element of C (seed 003).

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void syr2k(const __global DATA_TYPE *a, const __global DATA_TYPE *b, __global DATA_TYPE *c,
                    DATA_TYPE alpha, DATA_TYPE beta, int m, int n)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < n && j < n) {
        DATA_TYPE sum = c[i * n + j] * beta;
        for (int k = 0; k < m; k++)
            sum += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
        c[i * n + j] = sum;
    }
}
