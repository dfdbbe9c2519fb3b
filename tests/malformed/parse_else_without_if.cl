// expect-error: 5: else without
// The else follows a plain statement, not an if.
__kernel void k(__global int *out)
{   out[0] = 1;
    else out[0] = 2;
}
