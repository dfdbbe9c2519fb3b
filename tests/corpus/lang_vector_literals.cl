// Front-end coverage: vector literals in every arity mix (scalars, smaller
// vectors, splats), from float2 + 2 floats to float16 built from halves.

__kernel void lang_vector_literals(__global const float2 *pairs,
                                   __global const float *scalars,
                                   __global float4 *out4,
                                   __global int8 *out8,
                                   __global float16 *out16)
{
    const size_t i = get_global_id(0);
    const float2 p = pairs[i];
    const float s = scalars[i];

    const float4 a = (float4)(p, s, 1.0f);   // float2 + 2 floats
    const float4 b = (float4)(s, p, 2.0f);   // float, float2, float
    const float4 c = (float4)(s, 3.0f, p);   // 2 floats + float2
    const float4 d = (float4)(s);            // splat
    const float4 e = (float4)(p, p);         // two float2
    const float3 f3 = (float3)(p, s);        // float3 from float2 + float
    const float4 f = (float4)(f3, -s);       // float3 + float
    const float8 g = (float8)(a, b);         // two float4
    const float16 h = (float16)(g, c, d);    // float8 + two float4

    const int4 v4 = (int4)(1, 2, 3, (int)s);
    const int8 w = (int8)(v4, v4);           // two int4
    const int2 q = (int2)(7);                // integer splat
    const int8 w2 = (int8)(q, v4.xy, 5, 6, q);

    out4[i] = a + b + c + d + e + f;
    out8[i] = w + w2;
    out16[i] = h + (float16)(g, g);
}
