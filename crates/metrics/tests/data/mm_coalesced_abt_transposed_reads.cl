// coalescedABT as it must read its transposed A tile to compute A * B: the tile is stored
// transposed (ASub[localCol][localRow]) and read back as ASub[k][localRow], so the work-items
// of a group that differ in localRow read neighbouring words at every step of the inner loop.
//
// The seed's listing changes only the two tile stores and keeps coalescedAB's reads. A store
// of a whole tile touches the same set of addresses in either order, so with the listing's
// reads every time step of coalescedABT accesses the same multiset of addresses as
// coalescedAB, and no per-time-step metric can tell them apart. This kernel is the variant
// whose accesses differ, used to show the separation of the seed's Figure 2.

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
            acc += ASub[k][localRow] * BSub[k][localCol];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[globalRow * N + globalCol] = acc;
}
