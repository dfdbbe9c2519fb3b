// Aristotle-style microbenchmark pair for a Column iMAP (seed 001, section
// 4.3): work-item (tx, ty) walks the whole column tx, computing the circular
// autocorrelation of that column at lag ty. Two kernels:
//   map_column_global - every read from global memory ("LM w/o");
//   map_column_local  - the work-group's get_local_size(0) columns staged in
//                       local memory first, each work-item loading a strided
//                       share of the rows ("LM w/i").

__kernel void map_column_global(const __global float *in, __global float *out, int width,
                                int height)
{
    const int tx = get_global_id(0);
    const int ty = get_global_id(1);
    float sum = 0.0f;
    for (int k = 0; k < height; k++)
        sum += in[k * width + tx] * in[((k + ty) % height) * width + tx];
    out[ty * width + tx] = sum;
}

__kernel void map_column_local(const __global float *in, __global float *out, int width,
                               int height, __local float *columns)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int tx = get_global_id(0);
    const int ty = get_global_id(1);
    const int group_width = get_local_size(0);

    for (int k = ly; k < height; k += get_local_size(1))
        columns[k * group_width + lx] = in[k * width + tx];
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    for (int k = 0; k < height; k++)
        sum += columns[k * group_width + lx] * columns[((k + ty) % height) * group_width + lx];
    out[ty * width + tx] = sum;
}
