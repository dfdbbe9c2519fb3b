// expect-error: 5: pointer
// count is an int, not a pointer.
__kernel void k(__global int *out)
{   int count = 3;
    out[0] = *count;
}
