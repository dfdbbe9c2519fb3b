// expect-error: 5: component
// .x and .s1 come from different component naming sets and cannot be mixed.
__kernel void k(__global float2 *out)
{   float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    out[0] = v.xs1;
}
