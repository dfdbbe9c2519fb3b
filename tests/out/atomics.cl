#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable

__kernel void histogram(__global const uchar *pixels, __global uint *bins, __local uint *local_bins) {
    uint lid = get_local_id(0);
    local_bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&local_bins[pixels[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(bins + lid, local_bins[lid]);
    atom_max(&bins[0], lid);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    uint old = atomic_cmpxchg(&bins[1], 0u, lid);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    if (old == 0) {
        atomic_xchg(&bins[2], old);
    }
}
