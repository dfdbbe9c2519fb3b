// expect-error: 5: incompatible type
// Vectors are not converted implicitly: int4 -> float4 needs convert_float4.
__kernel void k(__global float4 *out)
{   int4 counts = (int4)(1, 2, 3, 4);
    float4 values = counts;
    out[0] = values;
}
