// expect-error: 4: expected identifier
// A variable name cannot start with a digit.
__kernel void k(__global int *out)
{   int 3count = 0;
    out[0] = 0;
}
