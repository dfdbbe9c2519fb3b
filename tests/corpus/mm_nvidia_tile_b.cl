// Matrix multiply C = A * B with only the tiles of B in local memory; A is
// read from global memory in the inner loop. Pattern: NVIDIA SDK oclMatrixMul
// with the A tile removed (seed 000, Table III row NVD-MM-B: GL (lx+b, ly),
// LS (lx, ly), LL (lx, k)). A is hA x wA, B is wA x wB.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

#define BS(i, j) Bs[(i) * BLOCK_SIZE + (j)]

__kernel void matrixMul_tile_b(__global float *C,
                               __global const float *A,
                               __global const float *B,
                               __local float *Bs,
                               int wA,
                               int wB)
{
    const int bx = get_group_id(0);
    const int by = get_group_id(1);
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);

    const int aBegin = wA * BLOCK_SIZE * by;
    const int aEnd = aBegin + wA - 1;
    const int aStep = BLOCK_SIZE;
    const int bBegin = BLOCK_SIZE * bx;
    const int bStep = BLOCK_SIZE * wB;

    float Csub = 0.0f;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        BS(ty, tx) = B[b + wB * ty + tx];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += A[a + wA * ty + k] * BS(k, tx);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    C[get_global_id(1) * get_global_size(0) + get_global_id(0)] = Csub;
}
