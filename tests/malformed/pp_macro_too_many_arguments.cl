// expect-error: 5: requires 2 arguments, but 3 were given
// MUL takes two arguments but is given three.
#define MUL(a, b) ((a) * (b))
__kernel void k(__global int *out)
{   out[0] = MUL(1, 2, 3);
}
