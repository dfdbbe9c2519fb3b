// One step of a HotSpot-like thermal simulation of a chip: each cell's
// temperature moves towards its four neighbours, the ambient temperature, and
// rises with the power dissipated in it. Pattern: Rodinia hotspot: a local
// tile of temperatures with a one-cell halo (borders clamped), power read
// directly from global memory, run as a host loop with buffers swapped.

#define TILE 16

__kernel void hotspot_step(const __global float *power,
                           const __global float *temp_in,
                           __global float *temp_out,
                           const int cols,
                           const int rows,
                           const float step_div_cap,
                           const float rx_inv,
                           const float ry_inv,
                           const float rz_inv,
                           const float ambient)
{
    __local float t[TILE + 2][TILE + 2];
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);

    t[ly + 1][lx + 1] = temp_in[y * cols + x];
    if (lx == 0)
        t[ly + 1][0] = temp_in[y * cols + max(x - 1, 0)];
    if (lx == TILE - 1)
        t[ly + 1][TILE + 1] = temp_in[y * cols + min(x + 1, cols - 1)];
    if (ly == 0)
        t[0][lx + 1] = temp_in[max(y - 1, 0) * cols + x];
    if (ly == TILE - 1)
        t[TILE + 1][lx + 1] = temp_in[min(y + 1, rows - 1) * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    const float centre = t[ly + 1][lx + 1];
    const float delta =
        step_div_cap * (power[y * cols + x] +
                        (t[ly][lx + 1] + t[ly + 2][lx + 1] - 2.0f * centre) * ry_inv +
                        (t[ly + 1][lx] + t[ly + 1][lx + 2] - 2.0f * centre) * rx_inv +
                        (ambient - centre) * rz_inv);
    temp_out[y * cols + x] = centre + delta;
}
