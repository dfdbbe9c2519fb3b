// expect-error: 5: requires 2 arguments, but 1 was given
// ADD takes two arguments but is given one.
#define ADD(a, b) ((a) + (b))
__kernel void k(__global int *out)
{   out[0] = ADD(1);
}
