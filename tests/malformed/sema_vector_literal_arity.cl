// expect-error: 4: too few elements
// A float4 literal needs four components (or one to splat); three are given.
__kernel void k(__global float4 *out, float a, float b, float c)
{   out[0] = (float4)(a, b, c);
}
