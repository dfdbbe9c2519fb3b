// cell3d: one generation of a 3-D cellular automaton on a depth x rows x cols grid of
// cells that are 0 (dead) or 1 (alive).
//
// Rule (7-point majority): an interior cell counts the live cells among itself and its
// six face neighbours (west/east, north/south, below/above); it is alive in the next
// generation when at least 4 of those 7 are alive. The outer layer of the box is outside
// the guard and never written, so it stays as initialised (both ping-pong buffers start
// from the same data, making it a fixed boundary).
//
// The grid is stored row-major as (z * rows + y) * cols + x and the NDRange is 3-D, one
// work-item per cell. The host runs `steps` generations and swaps `cur` and `nxt` after
// each; each generation reads a 1-cell halo of the previous one in all three dimensions,
// so several generations can be fused into one launch over 3-D tiles with ghost zones.
__kernel void cell3d_step(__global const int *cur, __global int *nxt, int cols, int rows,
                          int depth)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int z = get_global_id(2);
    if (x > 0 && x < cols - 1 && y > 0 && y < rows - 1 && z > 0 && z < depth - 1) {
        const int plane = rows * cols;
        const int c = (z * rows + y) * cols + x;
        const int alive = cur[c]
                          + cur[c - 1] + cur[c + 1]
                          + cur[c - cols] + cur[c + cols]
                          + cur[c - plane] + cur[c + plane];
        nxt[c] = alive >= 4 ? 1 : 0;
    }
}
