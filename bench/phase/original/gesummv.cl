// PolyBench/GPU GESUMMV in the suite's style: y = alpha * A * x + beta * B * x for n x n A
// and B, one work-item per row; tmp receives A * x. Both tmp[i] and y[i] are accumulated in
// global memory inside the loop and combined at the end.
// Register-accumulating version: tests/corpus/pb_gesummv.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void gesummv(const __global DATA_TYPE *a, const __global DATA_TYPE *b,
                      const __global DATA_TYPE *x, __global DATA_TYPE *y,
                      __global DATA_TYPE *tmp, DATA_TYPE alpha, DATA_TYPE beta, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        tmp[i] = 0;
        y[i] = 0;
        for (int j = 0; j < n; j++) {
            tmp[i] = a[i * n + j] * x[j] + tmp[i];
            y[i] = b[i * n + j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}
