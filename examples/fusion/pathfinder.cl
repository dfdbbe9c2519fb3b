// pathfinder: dynamic programming over a wall of `rows` x `cols` integer costs.
//
// A path enters at the top row and moves down one row per step, to the same column or to
// one of its two diagonal neighbours. After processing row `row`, dst[x] holds the
// cheapest total cost of a path from the top row down to (row, x):
//
//     dst[x] = wall[row * cols + x] + min(src[x - 1], src[x], src[x + 1])
//
// At the left and right edges the neighbour index is clamped, so the missing neighbour
// is replaced by the cell itself; every work-item writes its element.
//
// The host launches this kernel once per row (row = 1 .. rows - 1, passed as a scalar
// that changes with the repetition) and swaps `src` and `dst` after every launch. Each
// launch reads only a 1-column halo of the previous one, so consecutive rows can be
// fused into one launch over a shrinking (pyramid-shaped) dependency cone.
__kernel void pathfinder_row(__global const int *wall, __global const int *src,
                             __global int *dst, int cols, int row)
{
    const int x = get_global_id(0);
    const int left = src[max(x - 1, 0)];
    const int up = src[x];
    const int right = src[min(x + 1, cols - 1)];
    dst[x] = wall[row * cols + x] + min(min(left, up), right);
}
