// PolyBench/GPU 2DCONV in the suite's style: 3x3 convolution of an ni x nj matrix with fixed
// coefficients, one work-item per point; border points are left untouched. There is no
// reduction loop: the kernel is the same in both kernel sets, and only the inputs (uniform
// random values in [0, 1), as the suite draws them) follow the suite.
// The other version: tests/corpus/pb_2dconv.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void conv2d(const __global DATA_TYPE *A, __global DATA_TYPE *B, int ni, int nj)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);

    const DATA_TYPE c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
    const DATA_TYPE c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
    const DATA_TYPE c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;

    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1) {
        B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c12 * A[i * nj + (j - 1)] +
                        c13 * A[(i + 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + j] +
                        c22 * A[i * nj + j] + c23 * A[(i + 1) * nj + j] +
                        c31 * A[(i - 1) * nj + (j + 1)] + c32 * A[i * nj + (j + 1)] +
                        c33 * A[(i + 1) * nj + (j + 1)];
    }
}
