// One Jacobi relaxation step in 1D: b[i] = (a[i-1] + a[i] + a[i+1]) / 3 for
// interior points, end points copied. Pattern: 1D stencil with a local tile of
// get_local_size(0) + 2 cells; the two halo cells are loaded by the first and
// last work-item. Run as a host loop with the buffers swapped every step.

__kernel void jacobi1d_step(const __global float *a,
                            __global float *b,
                            const uint n,
                            __local float *tile)
{
    const uint i = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);

    tile[lid + 1] = a[i];
    if (lid == 0)
        tile[0] = i > 0 ? a[i - 1] : a[i];
    if (lid == size - 1)
        tile[size + 1] = i + 1 < n ? a[i + 1] : a[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    if (i == 0 || i == n - 1)
        b[i] = tile[lid + 1];
    else
        b[i] = (tile[lid] + tile[lid + 1] + tile[lid + 2]) * (1.0f / 3.0f);
}
