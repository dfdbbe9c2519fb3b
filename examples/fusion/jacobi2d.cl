// jacobi2d: one step of a 5-point Jacobi smoothing on a rows x cols grid.
//
// Each interior point becomes the mean of itself and its four neighbours (north, south,
// west, east). The outer ring is outside the guard and never written: it keeps its
// initial values, a fixed boundary (both ping-pong buffers start from the same data).
//
// The host runs `steps` steps and swaps `a` and `b` after each. A step reads a 1-point
// halo of the previous step in both dimensions, so k steps can be fused into one launch
// over 2-D tiles that overlap by k points on each side.
__kernel void jacobi2d_step(__global const float *in, __global float *out, int cols,
                            int rows)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x > 0 && x < cols - 1 && y > 0 && y < rows - 1) {
        const int c = y * cols + x;
        out[c] = 0.2f * (in[c] + in[c - cols] + in[c + cols] + in[c - 1] + in[c + 1]);
    }
}
