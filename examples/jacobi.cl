// One Jacobi smoothing step on a 1-D grid: each interior point becomes the mean of itself
// and its two neighbours; the ends are copied. Neighbours are staged in local memory.
__kernel void jacobi_step(__global const float *in, __global float *out, uint n,
                          __local float *halo)
{
    uint i = get_global_id(0);
    uint l = get_local_id(0);
    uint size = get_local_size(0);
    halo[l + 1] = in[i];
    if (l == 0)
        halo[0] = i > 0 ? in[i - 1] : in[i];
    if (l == size - 1)
        halo[size + 1] = i + 1 < n ? in[i + 1] : in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0 || i + 1 == n)
        out[i] = in[i];
    else
        out[i] = (halo[l] + halo[l + 1] + halo[l + 2]) / 3.0f;
}
