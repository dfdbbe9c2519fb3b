// A HotSpot-like thermal simulation in the shape of Rodinia's host loop: each time step runs
// `hotspot_step` (new temperatures into `next`) and then `copy_back` (`next` into `temp`),
// and the host passes the number of the first simulated step of each round (`start_step`,
// growing by the pyramid height per round), which here scales the dissipated power as a
// chip warming up would. A heater cell is clamped by the host before every step.

__kernel void hotspot_step(__global const float *power, __global const float *temp,
                           __global float *next, int cols, int rows, int start_step,
                           float ambient)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int i = y * cols + x;
    const float centre = temp[i];
    const float north = temp[max(y - 1, 0) * cols + x];
    const float south = temp[min(y + 1, rows - 1) * cols + x];
    const float west = temp[y * cols + max(x - 1, 0)];
    const float east = temp[y * cols + min(x + 1, cols - 1)];
    const float heat = power[i] * (1.0f + 0.25f * (float)start_step);
    next[i] = centre + 0.125f * (north + south + west + east - 4.0f * centre)
              + 0.0625f * (ambient - centre) + heat;
}

__kernel void copy_back(__global const float *from, __global float *to)
{
    const int i = get_global_id(1) * get_global_size(0) + get_global_id(0);
    to[i] = from[i];
}
