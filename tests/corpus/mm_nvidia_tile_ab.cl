// Matrix multiply C = A * B with tiles of both A and B in local memory.
// Pattern: NVIDIA SDK oclMatrixMul (seed 000, NVD-MM-AB): the work-group walks
// A along a row of tiles and B down a column of tiles, BLOCK_SIZE at a time.
// A is hA x wA, B is wA x wB; both local tiles are kernel arguments.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

#define AS(i, j) As[(i) * BLOCK_SIZE + (j)]
#define BS(i, j) Bs[(i) * BLOCK_SIZE + (j)]

__kernel void matrixMul_tile_ab(__global float *C,
                                __global const float *A,
                                __global const float *B,
                                __local float *As,
                                __local float *Bs,
                                int wA,
                                int wB)
{
    const int bx = get_group_id(0);
    const int by = get_group_id(1);
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);

    // First, last and step of the tiles of A this group visits.
    const int aBegin = wA * BLOCK_SIZE * by;
    const int aEnd = aBegin + wA - 1;
    const int aStep = BLOCK_SIZE;
    // First tile and step of B.
    const int bBegin = BLOCK_SIZE * bx;
    const int bStep = BLOCK_SIZE * wB;

    float Csub = 0.0f;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        AS(ty, tx) = A[a + wA * ty + tx];
        BS(ty, tx) = B[b + wB * ty + tx];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += AS(ty, k) * BS(k, tx);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    C[get_global_id(1) * get_global_size(0) + get_global_id(0)] = Csub;
}
