// PolyBench/GPU 3DCONV in the suite's style: the suite's 15-tap 3x3x3 convolution of an
// ni x nj x nk volume (its stencil repeats some taps; kept as defined), border points left
// untouched. As in the suite, the host loops over the interior planes i and launches a 2D
// grid over (k, j) for each; the plane is a kernel argument. No reduction loop.
// The other version (one 3D launch): tests/corpus/pb_3dconv.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define AT(i, j, k) A[((i) * nj + (j)) * nk + (k)]

__kernel void conv3d(const __global DATA_TYPE *A, __global DATA_TYPE *B, int ni, int nj, int nk,
                     int i)
{
    const int k = get_global_id(0);
    const int j = get_global_id(1);

    const DATA_TYPE c11 = +2, c21 = +5, c31 = -8;
    const DATA_TYPE c12 = -3, c22 = +6, c32 = -9;
    const DATA_TYPE c13 = +4, c23 = +7, c33 = +10;

    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1 && k > 0 && k < nk - 1) {
        B[(i * nj + j) * nk + k] =
            c11 * AT(i - 1, j - 1, k - 1) + c13 * AT(i + 1, j - 1, k - 1) +
            c21 * AT(i - 1, j - 1, k - 1) + c23 * AT(i + 1, j - 1, k - 1) +
            c31 * AT(i - 1, j - 1, k - 1) + c33 * AT(i + 1, j - 1, k - 1) +
            c12 * AT(i, j - 1, k) + c22 * AT(i, j, k) + c32 * AT(i, j + 1, k) +
            c11 * AT(i - 1, j - 1, k + 1) + c13 * AT(i + 1, j - 1, k + 1) +
            c21 * AT(i - 1, j, k + 1) + c23 * AT(i + 1, j, k + 1) +
            c31 * AT(i - 1, j + 1, k + 1) + c33 * AT(i + 1, j + 1, k + 1);
    }
}
