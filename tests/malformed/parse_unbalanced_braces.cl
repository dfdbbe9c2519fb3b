// expect-error: 8: expected '}'
// The body of the loop is closed but not the body of the kernel.
__kernel void k(__global int *out)
{
    for (int i = 0; i < 4; i++) {
        out[i] = i;
    }

