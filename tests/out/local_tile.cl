__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void transpose(__global const float *in, __global float *out, int width, int height) {
    __local float tile[16][17];
    int gx = get_group_id(0) * 16 + get_local_id(0);
    int gy = get_group_id(1) * 16 + get_local_id(1);
    if (gx < width && gy < height) {
        tile[get_local_id(1)][get_local_id(0)] = in[gy * width + gx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    gx = get_group_id(1) * 16 + get_local_id(0);
    gy = get_group_id(0) * 16 + get_local_id(1);
    if (gx < height && gy < width) {
        out[gy * height + gx] = tile[get_local_id(0)][get_local_id(1)];
    }
}

__kernel void reduce(__global const float *in, __global float *partial, __local float *scratch) {
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (lid < stride) {
            scratch[lid] += scratch[lid + stride];
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}
