// jacobi1d: one step of a 3-point Jacobi smoothing on a 1-D grid of n points.
//
// Each interior point becomes the mean of itself and its two neighbours. The two end
// points are outside the guard and are never written, so they keep whatever the output
// buffer held before: a fixed (Dirichlet) boundary taken from each buffer's initial data.
//
// The host runs this kernel `steps` times and swaps `a` and `b` after every step
// (ping-pong), so step t reads what step t-1 wrote. Each step depends only on the
// previous one through a 1-point halo, which is what makes a chain of steps a candidate
// for cross-kernel tiling and fusion (several steps per launch, trading redundant halo
// work for fewer passes over memory).
__kernel void jacobi1d_step(__global const float *in, __global float *out, int n)
{
    const int i = get_global_id(0);
    if (i > 0 && i < n - 1)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) * (1.0f / 3.0f);
}
