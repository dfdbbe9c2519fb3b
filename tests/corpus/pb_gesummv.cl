// PolyBench/GPU GESUMMV: y = alpha * A * x + beta * B * x for n x n A and B;
// tmp receives A * x. Pattern: two matrix-vector row walks fused in one loop.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void gesummv(const __global DATA_TYPE *a, const __global DATA_TYPE *b,
                      const __global DATA_TYPE *x, __global DATA_TYPE *y,
                      __global DATA_TYPE *tmp, DATA_TYPE alpha, DATA_TYPE beta, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        DATA_TYPE ax = 0;
        DATA_TYPE bx = 0;
        for (int j = 0; j < n; j++) {
            ax += a[i * n + j] * x[j];
            bx += b[i * n + j] * x[j];
        }
        tmp[i] = ax;
        y[i] = alpha * ax + beta * bx;
    }
}
