/* mvt: x1 = x1 + A y1 and x2 = x2 + A^T y2, one work-item per element of x1 or x2. */

__kernel void mvt_rows(__global const float *a, __global float *x1, __global const float *y1, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
    }
}

__kernel void mvt_columns(__global const float *a, __global float *x2, __global const float *y2, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        for (int j = 0; j < n; j++)
            x2[i] += a[j * n + i] * y2[j];
    }
}
