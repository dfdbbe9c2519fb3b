/* gesummv: y = alpha A x + beta B x, one work-item per row. */

__kernel void gesummv(__global const float *a, __global const float *b, __global const float *x, __global float *y,
                      __global float *tmp, float alpha, float beta, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        for (int j = 0; j < n; j++) {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}
