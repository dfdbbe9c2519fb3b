// Matrix multiply with tiles of A staged in local memory.
// Pattern: seed 004, Appendix B ("coalescedAMultiply"): a TILE_DIM x TILE_DIM
// tile of A is loaded cooperatively per iteration; B is still read from global
// memory. Reproduced with the seed's structure and names.

#ifndef TILE_DIM
#define TILE_DIM 16
#endif

__kernel void coalescedAMultiply(const __global float *A,
                                 const __global float *B,
                                 __global float *C,
                                 const int N)
{
    __local float aTile[TILE_DIM][TILE_DIM];

    const int localRow = get_local_id(0);
    const int localCol = get_local_id(1);

    const int globalRow = get_global_id(0);
    const int globalCol = get_global_id(1);

    __private float sum = 0.0f;
    const int numTiles = N / TILE_DIM;
    __private const int tiledRow = globalRow * N + localCol;
    for (int i = 0; i < numTiles; i++) {
        aTile[localRow][localCol] = A[tiledRow + i * TILE_DIM];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_DIM; k++) {
            sum += aTile[localRow][k] * B[(i * TILE_DIM + k) * N + globalCol];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    C[globalRow * N + globalCol] = sum;
}
