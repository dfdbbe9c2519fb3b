// Adds up the first `count` values; a launch may hand it a buffer of no values at all.
__kernel void sum_first(__global const int *values, __global int *total, int count)
{
    int s = 0;
    for (int i = 0; i < count; i++)
        s += values[i];
    total[get_global_id(0)] = s;
}
