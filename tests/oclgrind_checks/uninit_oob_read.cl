// Copies a window of the input at an offset the host gives: past the end, the values read are
// no data at all, and storing them is a second error.
__kernel void window(__global const int *in, __global int *out, int offset)
{
    int i = get_global_id(0);
    out[i] = in[i + offset];
}
