// Adds an optional bias buffer, but forgets to test it for NULL.
__kernel void add_bias(__global const int *bias, __global int *out)
{
    int i = get_global_id(0);
    out[i] += bias[0];
}
