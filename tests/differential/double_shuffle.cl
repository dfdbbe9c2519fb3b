// Double conversions and shuffles, the corners float_corners.cl and vector_corners.cl leave out.
//
// `from_double`: double-to-integer conversions, saturated in every rounding mode (NaN gives 0,
// out-of-range values clamp) and unsaturated where they are defined, and double-to-float
// conversions in every rounding mode (ties, values between two floats, subnormals, overflow).
// Their results are integers or floats, exact by the specification, so they must agree
// exactly. `shuffles`: shuffle and shuffle2 of every width, with masks of random bits (only
// the low bits that index the inputs count) and of the edge indices.
//
// Work-items 0 to 63 take `edge[i]`; the rest build doubles from random bits, with exponents
// that cover every integer range and beyond.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

double operand(__global const double *edge, __global const uint *bits, int i)
{
    if (i < 64)
        return edge[i];
    const uint hi = bits[2 * i];
    const uint lo = bits[2 * i + 1];
    // Sign, an exponent from 2^-40 to 2^87 and random mantissa bits.
    const ulong exponent = 983UL + (ulong)((hi >> 20) % 128u);
    const ulong mantissa = ((ulong)(hi & 0xfffffu) << 32) | lo;
    return as_double(((ulong)(hi & 0x80000000u) << 32) | (exponent << 52) | mantissa);
}

__kernel void from_double(__global const double *edge, __global const uint *bits,
                          __global int *out_i, __global uint *out_u, __global long *out_l,
                          __global ulong *out_ul, __global short *out_s, __global float *out_f)
{
    const int i = get_global_id(0);
    const double d = operand(edge, bits, i);
    out_i[8 * i] = convert_int_sat(d);
    out_i[8 * i + 1] = convert_int_sat_rte(d);
    out_i[8 * i + 2] = convert_int_sat_rtz(d);
    out_i[8 * i + 3] = convert_int_sat_rtp(d);
    out_i[8 * i + 4] = convert_int_sat_rtn(d);
    const bool in_int = d > -2147483649.0 && d < 2147483648.0;
    out_i[8 * i + 5] = in_int ? convert_int(d) : 0;
    const bool in_int_rounded = d > -2147483648.5 && d < 2147483647.5;
    out_i[8 * i + 6] = in_int_rounded ? convert_int_rte(d) : 0;
    out_i[8 * i + 7] = (d >= -2147483648.0 && d <= 2147483647.0)
                           ? convert_int_rtp(d) ^ convert_int_rtn(d)
                           : 0;
    out_u[4 * i] = convert_uint_sat(d);
    out_u[4 * i + 1] = convert_uint_sat_rte(d);
    out_u[4 * i + 2] = convert_uint_sat_rtp(d);
    out_u[4 * i + 3] = convert_uint_sat_rtn(d);
    out_l[4 * i] = convert_long_sat(d);
    out_l[4 * i + 1] = convert_long_sat_rte(d);
    out_l[4 * i + 2] = convert_long_sat_rtp(d);
    out_l[4 * i + 3] = convert_long_sat_rtn(d);
    out_ul[2 * i] = convert_ulong_sat(d);
    out_ul[2 * i + 1] = convert_ulong_sat_rte(d) ^ (convert_ulong_sat_rtp(d) << 1);
    out_s[8 * i] = convert_short_sat(d);
    out_s[8 * i + 1] = convert_short_sat_rte(d);
    out_s[8 * i + 2] = convert_short_sat_rtp(d);
    out_s[8 * i + 3] = convert_short_sat_rtn(d);
    out_s[8 * i + 4] = (short)convert_ushort_sat_rte(d);
    out_s[8 * i + 5] = convert_char_sat_rte(d);
    out_s[8 * i + 6] = convert_uchar_sat_rtn(d);
    out_s[8 * i + 7] = convert_char_sat(d) + (short)convert_uchar_sat_rtp(d) * 256;
    out_f[8 * i] = (float)d;
    out_f[8 * i + 1] = convert_float(d);
    out_f[8 * i + 2] = convert_float_rte(d);
    out_f[8 * i + 3] = convert_float_rtz(d);
    out_f[8 * i + 4] = convert_float_rtp(d);
    out_f[8 * i + 5] = convert_float_rtn(d);
    // Vector conversions take each component on its own.
    const double2 pair = (double2)(d, -d * 0.5);
    const int2 sat = convert_int2_sat_rte(pair);
    const float2 narrow = convert_float2_rtz(pair);
    out_f[8 * i + 6] = narrow.x + narrow.y;
    out_f[8 * i + 7] = (float)(sat.x ^ sat.y);
}

__kernel void shuffles(__global const uint *bits, __global const uint *edge,
                       __global int *out_i, __global uchar *out_c, __global long *out_l,
                       __global float *out_f)
{
    const int i = get_global_id(0);
    const uint r = bits[2 * i];
    const uint s = bits[2 * i + 1];
    // Masks: random bits, or (first 64 work-items) indices from the edge list, which hold
    // every low index and high bits that must be ignored.
    const uint m0 = i < 64 ? edge[i] : r;
    const uint m1 = i < 64 ? edge[(i + 17) % 64] : s;
    const int4 a = (int4)(r, s, r ^ s, i);
    const int4 b = (int4)(~r, s >> 3, i * 7, -i);
    const uint8 mask8 = (uint8)(m0, m1, m0 >> 4, m1 >> 4, m0 >> 9, m1 >> 13, m0 * 3, m1 + 5);
    vstore8(shuffle(a, mask8), i, out_i);
    vstore8(shuffle2(a, b, mask8), i + 1024, out_i);
    vstore2(shuffle(a, (uint2)(m1, m0)), i, out_i + 16384);
    vstore4(shuffle2((int2)(r, s), (int2)(i, -i), (uint4)(m0, m1, m0 >> 2, m1 >> 2)), i,
            out_i + 18432);

    const uchar16 c = as_uchar16((uint4)(r, s, r * 31u, s ^ 0x5a5a5a5au));
    const uchar16 cm = as_uchar16((uint4)(m0, m1, m0 ^ m1, m0 + m1));
    vstore16(shuffle(c, cm), i, out_c);
    vstore16(shuffle2(c, c.sfedcba9876543210, cm), i + 1024, out_c);
    vstore4(shuffle(c.s01234567, cm.s0123), i, out_c + 32768);

    const long2 l = (long2)((long)r << 32 | s, -(long)i);
    const long16 lw = (long16)(l, l * 3, ~l, l >> 1, l + 7, l ^ 0x55, -l, l << 2);
    const ulong16 lm = convert_ulong16(as_uchar16((uint4)(m0, m1, m0 >> 5, m1 >> 5)));
    vstore16(shuffle(lw, lm), i, out_l);
    vstore2(shuffle2(l, l.yx, (ulong2)(m0, m1)), i, out_l + 16384);

    const float8 f = (float8)((float)r, (float)s, -(float)i, 0.5f, (float)(r >> 8), 1e30f,
                              -0.0f, (float)(s & 0xff));
    const float4 g = (float4)(1.0f, -2.0f, (float)i, (float)(r & 0xffff));
    vstore4(shuffle(f, (uint4)(m0, m1, m0 >> 3, m1 >> 3)), i, out_f);
    vstore8(shuffle2(g, f.hi, mask8), i, out_f + 4096);
}
