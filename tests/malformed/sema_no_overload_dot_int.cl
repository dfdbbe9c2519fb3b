// expect-error: 5: no matching
// dot is defined for floating-point vectors only.
__kernel void k(__global int *out)
{   int4 a = (int4)(1, 2, 3, 4);
    out[0] = dot(a, a);
}
