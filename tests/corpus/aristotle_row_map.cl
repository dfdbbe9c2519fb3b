// Aristotle-style microbenchmark pair for a Row iMAP (seed 001, section 4.3):
// work-item (tx, ty) walks the whole row ty, computing the circular
// autocorrelation of that row at lag tx. Two kernels:
//   map_row_global - every read from global memory ("LM w/o");
//   map_row_local  - the work-group's get_local_size(1) rows staged in local
//                    memory first, loaded cooperatively along each row ("LM w/i").

__kernel void map_row_global(const __global float *in, __global float *out, int width)
{
    const int tx = get_global_id(0);
    const int ty = get_global_id(1);
    const __global float *row = in + ty * width;
    float sum = 0.0f;
    for (int k = 0; k < width; k++)
        sum += row[k] * row[(k + tx) % width];
    out[ty * width + tx] = sum;
}

__kernel void map_row_local(const __global float *in, __global float *out, int width,
                            __local float *rows)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int tx = get_global_id(0);
    const int ty = get_global_id(1);

    __local float *my_row = rows + ly * width;
    for (int k = lx; k < width; k += get_local_size(0))
        my_row[k] = in[ty * width + k];
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    for (int k = 0; k < width; k++)
        sum += my_row[k] * my_row[(k + tx) % width];
    out[ty * width + tx] = sum;
}
