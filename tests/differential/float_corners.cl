// Floating-point corners whose answers are exact: float-to-integer conversions in every rounding
// mode, saturated (NaN gives 0, infinities clamp) and unsaturated (only in range, where they are
// defined), integer-to-float rounding of values a float cannot hold, half conversions, and the
// built-ins that round, split or classify a float. Their results are integers or exactly
// representable floats, so they must agree exactly; `approx` holds the built-ins whose last bit
// is left to the implementation.
//
// Work-items 0 to 63 take `edge[i]`; the rest scale random bits into every range of magnitudes.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// No contraction of a * b + c into fma: the simulator rounds every operation.
#pragma OPENCL FP_CONTRACT OFF

float operand(__global const float *edge, __global const uint *bits, int i)
{
    if (i < 64)
        return edge[i];
    const uint r = bits[i];
    // Sign, an exponent from 2^-30 to 2^65 and random mantissa bits.
    const uint exponent = 97u + (r >> 24) % 96u;
    return as_float((r & 0x80000000u) | (exponent << 23) | (r & 0x7fffffu));
}

__kernel void to_int(__global const float *edge, __global const uint *bits, __global int *out_i,
                     __global uint *out_u, __global long *out_l, __global short *out_s)
{
    const int i = get_global_id(0);
    const float f = operand(edge, bits, i);
    out_i[8 * i] = convert_int_sat(f);
    out_i[8 * i + 1] = convert_int_sat_rte(f);
    out_i[8 * i + 2] = convert_int_sat_rtp(f);
    out_i[8 * i + 3] = convert_int_sat_rtn(f);
    const bool in_range = f > -2147483648.0f && f < 2147483520.0f;
    out_i[8 * i + 4] = in_range ? convert_int(f) : 0;
    out_i[8 * i + 5] = in_range ? convert_int_rte(f) : 0;
    out_i[8 * i + 6] = in_range ? convert_int_rtp(f) + convert_int_rtn(f) : 0;
    out_i[8 * i + 7] = in_range ? (int)f : 0;
    out_u[4 * i] = convert_uint_sat(f);
    out_u[4 * i + 1] = convert_uint_sat_rte(f);
    out_u[4 * i + 2] = convert_uint_sat_rtp(f) ^ convert_uint_sat_rtn(f);
    out_u[4 * i + 3] = (f >= 0.0f && f < 4294967040.0f) ? (uint)f : 0u;
    out_l[2 * i] = convert_long_sat(f) ^ convert_long_sat_rte(f);
    out_l[2 * i + 1] = (long)convert_ulong_sat(f) ^ (long)convert_ulong_sat_rtp(f);
    out_s[4 * i] = convert_short_sat(f);
    out_s[4 * i + 1] = convert_short_sat_rte(f);
    out_s[4 * i + 2] = (short)convert_char_sat_rtn(f) + (short)convert_uchar_sat_rtp(f) * 256;
    out_s[4 * i + 3] = (short)convert_ushort_sat_rte(f);
}

__kernel void from_int(__global const int *ints, __global float *out_f, __global double *out_d,
                       __global float4 *out_v)
{
    const int i = get_global_id(0);
    const int x = ints[i];
    const uint u = (uint)x;
    const long l = ((long)x << 31) ^ (long)ints[(i + 1) % 1024];
    const ulong ul = (ulong)l * 0x9E3779B97F4A7C15UL;
    out_f[8 * i] = (float)x;
    out_f[8 * i + 1] = convert_float_rtz(x);
    out_f[8 * i + 2] = convert_float_rtp(u);
    out_f[8 * i + 3] = convert_float_rtn(u);
    out_f[8 * i + 4] = (float)l;
    out_f[8 * i + 5] = (float)ul;
    out_f[8 * i + 6] = convert_float_rtz(ul);
    out_f[8 * i + 7] = convert_float_rtp(l);
    out_d[4 * i] = (double)l;
    out_d[4 * i + 1] = (double)ul;
    out_d[4 * i + 2] = convert_double_rtz(ul);
    out_d[4 * i + 3] = (double)(float)((double)l * 1.5);
    out_v[i] = convert_float4((int4)(x, x >> 7, -(x >> 1), x & 0xffffff)) +
               convert_float4_rtz((uint4)(u, ~u, u >> 3, u << 3));
}

__kernel void halves(__global const float *edge, __global const uint *bits, __global half *out_h,
                     __global float *out_f)
{
    const int i = get_global_id(0);
    float f = operand(edge, bits, i);
    if (i >= 64)
        f = ldexp(f, -20); // random magnitudes around half's range, subnormals included
    vstore_half(f, 4 * i, out_h);
    vstore_half_rtz(f, 4 * i + 1, out_h);
    vstore_half_rtp(f, 4 * i + 2, out_h);
    vstore_half_rtn(f, 4 * i + 3, out_h);
    out_f[i] = vload_half(4 * i, out_h) + vload_half(4 * i + 2, out_h);
}

__kernel void rounding(__global const float *edge, __global const uint *bits, __global float *out_f,
                       __global int *out_i)
{
    const int i = get_global_id(0);
    const float f = operand(edge, bits, i);
    const float g = operand(edge, bits, (i * 7 + 3) % 1024);
    out_f[16 * i] = rint(f);
    out_f[16 * i + 1] = round(f);
    out_f[16 * i + 2] = trunc(f);
    out_f[16 * i + 3] = floor(f);
    out_f[16 * i + 4] = ceil(f);
    float whole;
    out_f[16 * i + 5] = fract(f, &whole);
    out_f[16 * i + 6] = whole;
    out_f[16 * i + 7] = modf(f, &whole) + whole * 0.0f;
    out_f[16 * i + 8] = fmin(f, g) + fmax(g, f) * 2.0f;
    out_f[16 * i + 9] = copysign(f, g) + fabs(g);
    out_f[16 * i + 10] = fdim(f, g) - maxmag(f, g) + minmag(g, f);
    out_f[16 * i + 11] = nextafter(f, g);
    out_f[16 * i + 12] = fmod(f, g);
    out_f[16 * i + 13] = remainder(f, g);
    out_f[16 * i + 14] = ldexp(f, (int)(bits[i] % 40) - 20);
    out_f[16 * i + 15] = fma(f, g, -f * g);
    int e;
    const float m = frexp(f, &e);
    int quo = 0;
    const float rem = remquo(f, g, &quo);
    out_i[4 * i] = as_int(m) ^ (isfinite(f) ? e : 0);
    out_i[4 * i + 1] = (isfinite(f) && f != 0.0f) ? ilogb(f) : 12345;
    // The quotient's sign and its low 7 bits are all OpenCL promises.
    out_i[4 * i + 2] = isnan(rem) ? 0 : (quo < 0 ? -1 : 1) * (abs(quo) & 0x7f);
    out_i[4 * i + 3] = signbit(f) | (isnormal(f) << 1) | (isinf(f) << 2) | (isnan(f) << 3) |
                       (isordered(f, g) << 4) | (islessgreater(f, g) << 5) | (isequal(f, g) << 6);
}

__kernel void approx(__global const float *edge, __global const uint *bits, __global float *out)
{
    const int i = get_global_id(0);
    const float f = operand(edge, bits, i);
    const float g = fabs(operand(edge, bits, (i * 5 + 1) % 1024));
    out[8 * i] = sqrt(fabs(f)) + cbrt(f);
    out[8 * i + 1] = exp(fmin(f, 80.0f)) + log(g);
    out[8 * i + 2] = pow(g, 1.0f / 3.0f) + pown(f, 3) * 1e-20f + rootn(f, 3);
    out[8 * i + 3] = sin(f) + cos(f);
    out[8 * i + 4] = hypot(f, g) + atan2(f, g);
    out[8 * i + 5] = tanh(f) + erf(f);
    out[8 * i + 6] = logb(f) + log2(g);
    out[8 * i + 7] = (float)((double)f * (double)g) - f * g;
}
