// expect-error: 4: invalid suffix 'count' on integer constant
// A variable name cannot start with a digit.
__kernel void k(__global int *out)
{   int 3count = 0;
    out[0] = 0;
}
