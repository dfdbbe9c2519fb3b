// Adds a bias that is only set when the host asks for one: otherwise `bias` is never assigned.
__kernel void add_bias(__global int *data, int has_bias)
{
    int bias;
    if (has_bias)
        bias = 10;
    int i = get_global_id(0);
    data[i] += bias;
}
