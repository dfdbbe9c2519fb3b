// expect-error: 5: const
// limit is const and cannot be assigned.
__kernel void k(__global int *out)
{   const int limit = 4;
    limit = 5;
    out[0] = limit;
}
