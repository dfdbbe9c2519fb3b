/* atax: y = A^T (A x). A is nx x ny; tmp = A x has nx elements, y has ny. */

__kernel void atax_product(__global const float *a, __global const float *x, __global float *tmp, int nx, int ny)
{
    int i = get_global_id(0);
    if (i < nx) {
        for (int j = 0; j < ny; j++)
            tmp[i] += a[i * ny + j] * x[j];
    }
}

__kernel void atax_transposed(__global const float *a, __global const float *tmp, __global float *y, int nx, int ny)
{
    int j = get_global_id(0);
    if (j < ny) {
        for (int i = 0; i < nx; i++)
            y[j] += a[i * ny + j] * tmp[i];
    }
}
