// expect-error: 4: expected ')'
// The condition has one more '(' than ')'.
__kernel void k(__global int *out)
{   if ((out[0] > 0) {
        out[0] = 0;
    }
}
