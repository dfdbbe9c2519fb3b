// Front-end coverage: math built-ins (fma, fmin, fmax, hypot, sqrt, rsqrt,
// exp, log, pow, sin, cos, fabs, floor, ceil, fmod, mix, clamp, step,
// smoothstep, sign), implementation-precision variants (native_exp,
// native_divide, half_sqrt, half_exp), geometric functions (dot, length,
// normalize, cross, distance) and relational functions (isnan, isinf, any,
// all, isgreater, signbit). The native_/half_ results have their own, looser
// tolerance in the workload: their precision is left to the device.

__kernel void lang_math_builtins(__global const float4 *in,
                                 __global float4 *precise,
                                 __global float *approximate,
                                 __global int *flags)
{
    const size_t i = get_global_id(0);
    const float4 v = in[i];

    float4 p = fma(v, (float4)(2.0f), (float4)(0.5f));
    p += fmin(v, v.wzyx) - fmax(v, (float4)(0.0f));
    p.x += hypot(v.x, v.y) + sqrt(fabs(v.z)) + rsqrt(1.0f + v.w * v.w);
    p.y += exp(v.x) + log(2.0f + v.y) + pow(1.5f, v.z) + sin(v.w) * cos(v.x);
    p.z += floor(v.x * 10.0f) + ceil(v.y * 10.0f) + fmod(v.z * 10.0f, 3.0f);
    p.w += mix(v.x, v.y, 0.25f) + clamp(v.z, -0.5f, 0.5f) + step(0.0f, v.w) +
           smoothstep(-1.0f, 1.0f, v.x) + sign(v.y);

    const float3 a = v.xyz;
    const float3 b = v.wzx;
    const float3 c = cross(a, b);
    p += (float4)(c, dot(v, v) + length(a) + distance(a, b));
    p.xyz += normalize(a + (float3)(2.0f));
    precise[i] = p;

    approximate[i] = native_exp(v.x) + native_divide(v.y, 2.0f + v.z) +
                     half_sqrt(fabs(v.w) + 1.0f) + half_exp(v.z);

    const float4 roots = sqrt(v); // NaN for negative lanes
    const int4 nan_lanes = isnan(roots);
    flags[i] = any(nan_lanes) + 2 * all(nan_lanes) + 4 * isinf(1.0f / (v.x - v.x + 0.0f)) +
               8 * isgreater(v.x, v.y) + 16 * signbit(v.z) + 32 * any(v > (float4)(0.9f));
}
