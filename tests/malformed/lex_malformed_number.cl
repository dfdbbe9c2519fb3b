// expect-error: 4: invalid suffix
// A floating constant with two decimal points.
__kernel void k(__global float *out)
{   out[0] = 1.2.3f;
}
