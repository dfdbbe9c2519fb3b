// expect-error: 6: different size
// Vectors of different sizes cannot be combined.
__kernel void k(__global float4 *out)
{   float4 a = (float4)(1.0f);
    float2 b = (float2)(2.0f);
    out[0] = a + b;
}
