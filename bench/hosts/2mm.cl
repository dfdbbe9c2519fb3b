/* 2mm: D = alpha A B C + beta D in two products: tmp = alpha A B (ni x nj), then
 * D = tmp C + beta D (ni x nl). One work-item per output element (x: column, y: row). */

__kernel void mm2_first(__global const float *a, __global const float *b, __global float *tmp, float alpha, int ni,
                        int nj, int nk)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < ni && j < nj) {
        tmp[i * nj + j] = 0.0f;
        for (int k = 0; k < nk; k++)
            tmp[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}

__kernel void mm2_second(__global const float *tmp, __global const float *c, __global float *d, float beta, int ni,
                         int nj, int nl)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < ni && j < nl) {
        d[i * nl + j] *= beta;
        for (int k = 0; k < nj; k++)
            d[i * nl + j] += tmp[i * nj + k] * c[k * nl + j];
    }
}
