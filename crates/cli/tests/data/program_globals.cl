// OpenCL C 2.0: program-scope variables keep their contents from one launch of the program to
// the next, and a launch may end in a smaller work-group.
global int sums[6];
global int launches = 100;

// Adds `in` into `sums`, one entry per work-item.
__kernel void accumulate(__global const int *in)
{
    int i = get_global_id(0);
    sums[i] += in[i];
}

// Counts its launches (one work-item).
__kernel void count(void)
{
    launches += 1;
}

// What the earlier launches left, and the size of each work-item's group.
__kernel void collect(__global int *out)
{
    int i = get_global_id(0);
    out[i] = sums[i] * 1000 + launches * 10 + get_local_size(0);
}
