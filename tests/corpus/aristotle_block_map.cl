// Aristotle-style microbenchmark pair for a Block iMAP (seed 001, section 5):
// each work-item averages the (2R+1) x (2R+1) block centred on its own cell
// (eMAP: row = ty, column = tx), borders clamped. Two kernels:
//   map_block_global  - every read from global memory ("LM w/o");
//   map_block_local   - the work-group's range staged in local memory first
//                       ("LM w/i"): max-approach allocation (WG + 2R)^2, FCTH
//                       staging (the base cells first, then the border), and
//                       one column of padding against bank conflicts.

#ifndef RADIUS
#define RADIUS 3
#endif
#ifndef WG
#define WG 8
#endif
#define SPAN (WG + 2 * RADIUS)
#define PITCH (SPAN + 1)
#define BLOCK_CELLS ((2 * RADIUS + 1) * (2 * RADIUS + 1))

static float read_clamped(const __global float *in, int row, int col, int width, int height)
{
    return in[clamp(row, 0, height - 1) * width + clamp(col, 0, width - 1)];
}

__kernel void map_block_global(const __global float *in, __global float *out, int width, int height)
{
    const int tx = get_global_id(0);
    const int ty = get_global_id(1);
    float sum = 0.0f;
    for (int dy = -RADIUS; dy <= RADIUS; dy++)
        for (int dx = -RADIUS; dx <= RADIUS; dx++)
            sum += read_clamped(in, ty + dy, tx + dx, width, height);
    out[ty * width + tx] = sum * (1.0f / BLOCK_CELLS);
}

__kernel __attribute__((reqd_work_group_size(WG, WG, 1)))
void map_block_local(const __global float *in, __global float *out, int width, int height)
{
    __local float range[SPAN * PITCH];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int tx = get_global_id(0);
    const int ty = get_global_id(1);
    const int origin_x = get_group_id(0) * WG - RADIUS;
    const int origin_y = get_group_id(1) * WG - RADIUS;

    // First come: every work-item loads the cell of its own base index.
    range[(ly + RADIUS) * PITCH + lx + RADIUS] = read_clamped(in, ty, tx, width, height);
    // Then help: the work-items share the border cells round-robin.
    for (int cell = ly * WG + lx; cell < SPAN * SPAN; cell += WG * WG) {
        const int r = cell / SPAN;
        const int c = cell % SPAN;
        const bool in_base = r >= RADIUS && r < RADIUS + WG && c >= RADIUS && c < RADIUS + WG;
        if (!in_base)
            range[r * PITCH + c] = read_clamped(in, origin_y + r, origin_x + c, width, height);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    for (int dy = -RADIUS; dy <= RADIUS; dy++)
        for (int dx = -RADIUS; dx <= RADIUS; dx++)
            sum += range[(ly + RADIUS + dy) * PITCH + lx + RADIUS + dx];
    out[ty * width + tx] = sum * (1.0f / BLOCK_CELLS);
}
