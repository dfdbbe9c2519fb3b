// 256-bin histogram of bytes, plus the sum of all bytes.
// Pattern: per-work-group private histogram in local memory updated with
// local atomics (atomic_inc on __local uint, atomic_add for the running sum),
// then merged into the global histogram with global atomic_add.

#define BINS 256

__kernel void histogram_local_atomics(const __global uchar *data,
                                      const uint items_per_work_item,
                                      __global uint *histogram,
                                      __global uint *byte_sum)
{
    __local uint bins[BINS];
    __local uint group_sum;
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);

    for (uint b = lid; b < BINS; b += size)
        bins[b] = 0;
    if (lid == 0)
        group_sum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    // Interleaved so that neighbouring work-items read neighbouring bytes.
    const uint base = get_group_id(0) * size * items_per_work_item;
    uint my_sum = 0;
    for (uint i = 0; i < items_per_work_item; i++) {
        const uchar value = data[base + i * size + lid];
        atomic_inc(&bins[value]);
        my_sum += value;
    }
    atomic_add(&group_sum, my_sum);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint b = lid; b < BINS; b += size) {
        if (bins[b] != 0)
            atomic_add(&histogram[b], bins[b]);
    }
    if (lid == 0)
        atomic_add(byte_sum, group_sum);
}
