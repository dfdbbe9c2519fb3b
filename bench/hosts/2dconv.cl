/* 2dconv: a 3 x 3 convolution of an ni x nj image; one work-item per pixel (x: column j,
 * y: row i). The border keeps the value the output buffer had. */

__kernel void convolution_3x3(__global const float *in, __global float *out, int ni, int nj)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1) {
        out[i * nj + j] = 0.1f * in[(i - 1) * nj + (j - 1)] - 0.2f * in[(i - 1) * nj + j] + 0.3f * in[(i - 1) * nj + (j + 1)]
                        + 0.4f * in[i * nj + (j - 1)] + 0.5f * in[i * nj + j] - 0.6f * in[i * nj + (j + 1)]
                        + 0.7f * in[(i + 1) * nj + (j - 1)] + 0.8f * in[(i + 1) * nj + j] - 0.9f * in[(i + 1) * nj + (j + 1)];
    }
}
