// Front-end coverage: explicit conversions with saturation and rounding modes
// (convert_int4_sat_rte, convert_uchar4_sat, convert_short2_sat,
// convert_float4), reinterpretation (as_uint, as_int4, as_float4), vector
// comparisons yielding int masks, select, shuffle and shuffle2, C casts.

__kernel void lang_conversions(__global const float4 *in,
                               __global int4 *rounded,
                               __global uchar4 *bytes,
                               __global uint *bits,
                               __global float4 *mixed)
{
    const size_t i = get_global_id(0);
    const float4 v = in[i] * 300.0f;

    const int4 r = convert_int4_sat_rte(v);
    const uchar4 b = convert_uchar4_sat(v);
    const uint u = as_uint(v.x);
    const int4 positive = v > (float4)(0.0f); // -1 where true, 0 where false
    const float4 magnitude = select(-v, v, positive);
    const float4 reversed = shuffle(v, (uint4)(3, 2, 1, 0));
    const float8 interleaved = shuffle2(v, magnitude, (uint8)(0, 4, 1, 5, 2, 6, 3, 7));
    const float4 round_trip = convert_float4(r) + as_float4(as_int4(v));
    const short2 clipped = convert_short2_sat((int2)(100000, (int)v.y * 1000));
    const int truncated = (int)v.z;

    rounded[i] = r + positive;
    bytes[i] = b;
    bits[i] = u ^ (uint)truncated;
    mixed[i] = magnitude + reversed + interleaved.lo + interleaved.hi + round_trip +
               (float4)(clipped.x, clipped.y, (float)truncated, (float)(uchar)b.w);
}
