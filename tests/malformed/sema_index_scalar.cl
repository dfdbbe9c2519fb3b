// expect-error: 5: subscript
// total is a scalar and cannot be indexed.
__kernel void k(__global float *out)
{   float total = 1.0f;
    out[0] = total[2];
}
