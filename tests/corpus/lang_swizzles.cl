// Front-end coverage: swizzles as rvalues and lvalues: .xyzw, .s0123 and
// hex-digit forms (.sCDEF, .s89ab), repeated components (.xxyy), .lo/.hi/
// .even/.odd on both sides of an assignment, float3 components, compound
// assignment through a swizzle.

__kernel void lang_swizzles(__global const float4 *in,
                            __global float4 *out,
                            __global float8 *out8)
{
    const size_t i = get_global_id(0);
    const float4 v = in[i];

    const float4 reversed = v.wzyx;
    const float4 numbered = v.s3210 + v.s0123;
    const float4 doubled = v.xxyy + v.zzww;
    const float2 lo = v.lo;
    const float2 hi = v.hi;
    const float2 even = v.even;
    const float2 odd = v.odd;

    float4 t = v;
    t.xy = hi;        // lvalue swizzle
    t.zw = lo.yx;     // lvalue swizzle from a swizzle
    t.s0 += 1.0f;     // compound assignment to one component
    t.w *= 2.0f;

    const float8 w = (float8)(v, reversed);
    float8 w2;
    w2.lo = w.hi;     // lvalue .lo/.hi on a float8
    w2.hi = w.lo;
    w2.s7 = even.x;
    w2.odd.x = odd.y; // swizzle of a swizzle as an lvalue

    const float16 big = (float16)(w, w2);
    const float4 tail = big.sCDEF + big.s89ab;

    float3 x3 = v.xyz;
    x3.zx = odd;

    out[i] = reversed + numbered + doubled + t + (float4)(lo, hi) + (float4)(even, odd) +
             tail + (float4)(x3, v.w);
    out8[i] = w2;
}
