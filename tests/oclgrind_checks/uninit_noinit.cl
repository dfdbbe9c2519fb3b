// Accumulates into a buffer the host never initialised: only the first pass (`first` set)
// may read nothing from it.
__kernel void accumulate(__global int *acc, __global const int *in, int first)
{
    int i = get_global_id(0);
    if (first)
        acc[i] = in[i];
    else
        acc[i] += in[i];
}
