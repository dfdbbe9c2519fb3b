// Front-end coverage: integer built-ins on scalars and vectors: mad24, mul24,
// mul_hi, mad_hi, mad_sat, rotate, clz, popcount, abs, abs_diff, add_sat,
// sub_sat, hadd, rhadd, max, min, clamp, upsample.

__kernel void lang_int_builtins(__global const uint *a,
                                __global const uint *b,
                                __global uint *out,
                                __global int4 *vout,
                                __global ulong *wide)
{
    const size_t i = get_global_id(0);
    const uint x = a[i];
    const uint y = b[i];

    uint r = mad24(x & 0xffffu, y & 0xffffu, 7u);
    r ^= mul_hi(x, y);
    r ^= mad_hi(x, y, 11u);
    r ^= rotate(x, y % 32u);
    r ^= clz(y) + popcount(x);
    r ^= abs_diff(x, y);
    r ^= add_sat(x, y) ^ sub_sat(x, y);
    r ^= hadd(x, y) ^ rhadd(x, y);
    r ^= max(x, y) - min(x, y);
    r += clamp(x, 10u, 1000u);
    r ^= abs((int)(x - y));
    out[i] = r;

    // mul24 and mad24 are only defined for operands that fit in 24 bits.
    const int4 v = (int4)((int)(x & 0x3fffffu), -(int)(y & 0x3fffffu), (int)(x >> 10), 5);
    vout[i] = mad_sat(v, (int4)(3000), (int4)(-7)) ^ mul24(v, (int4)(2)) ^ popcount(v) ^ clz(v) ^
              rotate(v, (int4)(1, 2, 3, 4));

    wide[i] = upsample(x, y) ^ (ulong)mul_hi((ulong)x << 20, (ulong)y << 30);
}
