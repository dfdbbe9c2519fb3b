// hotspot: one explicit time step of a 2-D thermal simulation of a chip, HotSpot style.
//
// `temp` holds the temperature of each cell of a rows x cols grid and `power` the power
// dissipated in it. The new temperature of an interior cell is
//
//     next = t + dt_cap * (power
//                          + (north + south - 2 t) * ry_inv
//                          + (east + west - 2 t) * rx_inv
//                          + (ambient - t) * rz_inv)
//
// with the thermal constants passed as float scalars (dt_cap = time step / capacitance,
// rx_inv, ry_inv, rz_inv = inverse thermal resistances along x, y and to the ambient).
// Cells on the outer ring are outside the guard and are never written: the boundary keeps
// the temperatures it started with (both ping-pong buffers start from the same data).
//
// The host runs `steps` steps and swaps `temp` and `next` after each one. Every step reads
// a 1-cell halo of the previous step's result, the classic shape that the well-known
// benchmark suites' pyramid kernels fuse several steps of into one launch.
__kernel void hotspot_step(__global const float *power, __global const float *temp,
                           __global float *next, int cols, int rows, float dt_cap,
                           float rx_inv, float ry_inv, float rz_inv, float ambient)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x > 0 && x < cols - 1 && y > 0 && y < rows - 1) {
        const int c = y * cols + x;
        const float t = temp[c];
        const float north = temp[c - cols];
        const float south = temp[c + cols];
        const float west = temp[c - 1];
        const float east = temp[c + 1];
        const float delta = dt_cap * (power[c]
                                      + (north + south - 2.0f * t) * ry_inv
                                      + (east + west - 2.0f * t) * rx_inv
                                      + (ambient - t) * rz_inv);
        next[c] = t + delta;
    }
}
