// Kernels whose accesses fusion must refuse, each for its own reason.

// A gather: which element is read depends on the data in `index`.
__kernel void gather(__global const float *in, __global const int *index, __global float *out)
{
    int i = get_global_id(0);
    out[i] = in[index[i]];
}

// A histogram: every work-item may update any bin.
__kernel void histogram(__global const float *in, __global int *bins, int nbins)
{
    int i = get_global_id(0);
    int b = (int)(in[i] * nbins);
    atomic_inc(&bins[b]);
}

// A prefix step in place: each work-item reads its neighbour's element of the buffer it
// updates, so the result depends on the order work-items run in.
__kernel void shift_in_place(__global float *a, int n)
{
    int i = get_global_id(0);
    if (i > 0 && i < n)
        a[i] = a[i] + a[i - 1];
}

// A plain scaling, to give the others a neighbour to be fused with.
__kernel void scale(__global const float *in, __global float *out)
{
    int i = get_global_id(0);
    out[i] = 2.0f * in[i];
}
