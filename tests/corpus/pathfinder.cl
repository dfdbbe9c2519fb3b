// Minimum-cost path from the top row to each cell of the bottom row of a cost
// grid, moving down one row at a time to the same or an adjacent column.
// Pattern: Rodinia PathFinder dynamic programming: the current row of partial
// costs lives in local memory and is updated once per grid row, with barriers
// inside the row loop. Each work-group solves one independent grid whose width
// equals the work-group size.

__kernel void pathfinder(const __global int *wall,
                         __global int *result,
                         const int rows,
                         __local int *prev)
{
    const int x = get_local_id(0);
    const int cols = get_local_size(0);
    const __global int *grid = wall + get_group_id(0) * rows * cols;

    prev[x] = grid[x];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int r = 1; r < rows; r++) {
        const int left = prev[max(x - 1, 0)];
        const int up = prev[x];
        const int right = prev[min(x + 1, cols - 1)];
        const int shortest = min(min(left, up), right);
        barrier(CLK_LOCAL_MEM_FENCE); // every read of the old row is done
        prev[x] = shortest + grid[r * cols + x];
        barrier(CLK_LOCAL_MEM_FENCE); // the new row is complete
    }

    result[get_group_id(0) * cols + x] = prev[x];
}
