/* gemm: C = alpha A B + beta C. A is ni x nk, B is nk x nj, C is ni x nj; one work-item per
 * element of C (x: column j, y: row i). */

__kernel void gemm(__global const float *a, __global const float *b, __global float *c, float alpha, float beta,
                   int ni, int nj, int nk)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}
