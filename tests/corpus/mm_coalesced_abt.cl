// Matrix multiply with tiles of A and B in local memory, the A tile stored
// transposed. Pattern: seed 004, section 2 ("coalescedABT"): coalescedAB with
// only its two tile stores changed, exactly as the seed prints them:
//     ASub[localCol][localRow] = A[tiledRow];
//     BSub[localRow][localCol] = B[tiledCol];
// The inner product loop is kept as in coalescedAB, as the seed says, so the
// memory access pattern is the published one; the values it computes are
// therefore not A * B but a fixed permutation of its terms, which is fine for
// metric comparison and differential testing.

#ifndef TILE_DIM
#define TILE_DIM 16
#endif

__kernel void coalescedABTMultiply(const __global float *A,
                                   const __global float *B,
                                   __global float *C,
                                   const int N)
{
    __local float ASub[TILE_DIM][TILE_DIM];
    __local float BSub[TILE_DIM][TILE_DIM];
    const int localRow = get_local_id(0);
    const int localCol = get_local_id(1);
    const int globalRow = get_global_id(0);
    const int globalCol = get_global_id(1);
    float acc = 0.0f;
    const int numTiles = N / TILE_DIM;
    for (int i = 0; i < numTiles; i++) {
        const int tiledRow = globalRow * N + i * TILE_DIM + localCol;
        const int tiledCol = globalCol + (TILE_DIM * i + localRow) * N;
        ASub[localCol][localRow] = A[tiledRow];
        BSub[localRow][localCol] = B[tiledCol];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_DIM; k++) {
            acc += ASub[localRow][k] * BSub[k][localCol];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[globalRow * N + globalCol] = acc;
}
