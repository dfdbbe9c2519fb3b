// expect-error: 4: expected ';'
// The declaration of x has no semicolon.
__kernel void k(__global int *out)
{   int x = 1
    out[0] = x;
}
