/* bicg: the two products of a BiCG step, s = A^T r and q = A p. A is nx x ny. */

__kernel void bicg_transposed(__global const float *a, __global const float *r, __global float *s, int nx, int ny)
{
    int j = get_global_id(0);
    if (j < ny) {
        for (int i = 0; i < nx; i++)
            s[j] += r[i] * a[i * ny + j];
    }
}

__kernel void bicg_product(__global const float *a, __global const float *p, __global float *q, int nx, int ny)
{
    int i = get_global_id(0);
    if (i < nx) {
        for (int j = 0; j < ny; j++)
            q[i] += a[i * ny + j] * p[j];
    }
}
