// Exclusive prefix sum of blocks of 2 * get_local_size(0) elements, plus the
// total of each block (for a later pass that adds block offsets).
// Pattern: work-efficient (Blelloch) scan in local memory: an up-sweep builds
// partial sums in place, the root is cleared, a down-sweep distributes them.

__kernel void scan_local(const __global uint *in,
                         __global uint *out,
                         __global uint *block_sums,
                         __local uint *temp)
{
    const uint lid = get_local_id(0);
    const uint n = 2 * get_local_size(0);
    const uint base = get_group_id(0) * n;

    temp[2 * lid] = in[base + 2 * lid];
    temp[2 * lid + 1] = in[base + 2 * lid + 1];

    uint offset = 1;
    for (uint active = n >> 1; active > 0; active >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < active) {
            const uint left = offset * (2 * lid + 1) - 1;
            const uint right = offset * (2 * lid + 2) - 1;
            temp[right] += temp[left];
        }
        offset <<= 1;
    }

    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        block_sums[get_group_id(0)] = temp[n - 1];
        temp[n - 1] = 0;
    }

    for (uint active = 1; active < n; active <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < active) {
            const uint left = offset * (2 * lid + 1) - 1;
            const uint right = offset * (2 * lid + 2) - 1;
            const uint carried = temp[left];
            temp[left] = temp[right];
            temp[right] += carried;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    out[base + 2 * lid] = temp[2 * lid];
    out[base + 2 * lid + 1] = temp[2 * lid + 1];
}
