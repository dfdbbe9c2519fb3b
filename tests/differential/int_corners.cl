// Integer corners where an implementation is easy to get wrong, on full-range inputs: shift
// counts at or above the width (OpenCL masks them by the width of the promoted type: 31 for a
// scalar `char`, 7 for a `char4`), signed division and remainder (truncation towards zero),
// narrowing and widening conversions, saturating conversions, and the integer built-ins whose
// results need more than the operand's width. Undefined cases are kept out: no division by
// zero or of the minimum by -1, no signed overflow (signed char vectors do not promote: their
// sums would overflow), no 24-bit built-in whose product leaves 32 bits.
//
// Work-items 0 to 255 take their operands from the 16 x 16 pairs of `edge`; the rest from the
// random inputs.

#define OPERANDS                                                                                   \
    const int i = get_global_id(0);                                                                \
    const int x = i < 256 ? edge[i / 16] : a[i];                                                   \
    const int y = i < 256 ? edge[i % 16] : b[i];

__kernel void shifts(__global const int *a, __global const int *b, __global const int *edge,
                     __global int *out_i, __global uint *out_u, __global long *out_l,
                     __global ulong *out_ul, __global char4 *out_c4, __global short4 *out_s4,
                     __global int *out_promoted, __global uint *out_rot)
{
    OPERANDS
    const int n = y % 100; // counts from -99 to 99
    const uint ux = (uint)x;
    const long lx = (long)x * 4099;
    out_i[2 * i] = (int)(ux << n);
    out_i[2 * i + 1] = x >> n;
    out_u[2 * i] = ux << (uint)n;
    out_u[2 * i + 1] = ux >> n;
    out_l[2 * i] = lx >> n;
    out_l[2 * i + 1] = (long)((ulong)lx << n);
    out_ul[2 * i] = (ulong)lx >> n;
    out_ul[2 * i + 1] = ((ulong)lx << (n + 1)) ^ ((ulong)lx >> (ulong)(uint)n);
    // No integer promotion for vectors: the count is masked by 7 and 15.
    const char4 c = as_char4(x);
    out_c4[2 * i] = c << (char4)(n, n + 1, n + 8, -n);
    out_c4[2 * i + 1] = c >> (char)n;
    const short4 s = as_short2(x).xyxy;
    out_s4[2 * i] = s << (short4)(n, n + 16, n - 3, 31);
    out_s4[2 * i + 1] = s >> (short4)(n);
    // A scalar char is promoted to int first: the count is masked by 31.
    char sc = (char)x;
    uchar uc = (uchar)x;
    const int promoted = (sc << n) ^ (uc >> (n & 15)) ^ ((short)x >> 17);
    sc <<= (n & 7);
    uc >>= 1;
    out_promoted[i] = promoted + sc * 3 + uc;
    out_rot[2 * i] = rotate(ux, (uint)n) ^ (uint)rotate(x, n - 40);
    out_rot[2 * i + 1] = as_uint(rotate(as_uchar4(x), (uchar4)(n, n + 9, 250, (uchar)-n))) ^
                         (uint)rotate((ulong)lx, (ulong)n);
}

__kernel void divisions(__global const int *a, __global const int *b, __global const int *edge,
                        __global int *out_i, __global uint *out_u, __global long *out_l,
                        __global char4 *out_c4, __global int4 *out_v)
{
    OPERANDS
    int d = y;
    if (d == 0)
        d = -7;
    if (x == INT_MIN && d == -1)
        d = 3;
    int small = y % 41;
    if (small == 0 || (x == INT_MIN && small == -1))
        small = 5;
    out_i[6 * i] = x / d;
    out_i[6 * i + 1] = x % d;
    out_i[6 * i + 2] = x / small;
    out_i[6 * i + 3] = x % small;
    // Divisions by constants (a compiler turns them into multiplications).
    out_i[6 * i + 4] = x / 16 + x % 16 + x / -3 + x % -3;
    out_i[6 * i + 5] = (x / 7) * 7 + x % 7 - x; // always 0
    out_u[2 * i] = (uint)x / (uint)d + (uint)x % 10u;
    out_u[2 * i + 1] = (uint)x % (uint)d;
    const long lx = (long)x * (long)y;
    const long ld = (long)d * 3 + (d > 0 ? 1 : -1);
    out_l[3 * i] = lx / ld;
    out_l[3 * i + 1] = lx % ld;
    out_l[3 * i + 2] = (long)((ulong)lx / (ulong)ld) ^ (long)((ulong)lx % 1000003UL);
    // char vectors divide without promotion; -128 / -1 is kept out.
    char4 cx = as_char4(x);
    char4 cd = as_char4(d);
    cd = cd == (char4)(0) ? (char4)(3) : cd;
    cd = (cx == (char4)(-128) && cd == (char4)(-1)) ? (char4)(2) : cd;
    out_c4[2 * i] = cx / cd;
    out_c4[2 * i + 1] = cx % cd;
    const int4 vx = (int4)(x, x / -2, x >> 3, y);
    const int4 vd = (int4)(small, -small, 9, -4);
    out_v[2 * i] = vx / vd;
    out_v[2 * i + 1] = vx % vd;
}

__kernel void conversions(__global const int *a, __global const int *b, __global const int *edge,
                          __global int *out_i, __global long *out_l, __global uint *out_sat,
                          __global long *out_lsat, __global uchar4 *out_v)
{
    OPERANDS
    const long lx = (long)(((ulong)(uint)x << 32) ^ (ulong)(uint)y);
    const ulong ulx = (ulong)lx;
    // Plain casts: truncation and sign or zero extension.
    out_i[4 * i] = (char)x + (uchar)x * 3 + (short)x * 5;
    out_i[4 * i + 1] = (ushort)x ^ (int)(char)(uchar)y ^ (int)(uint)(short)x;
    out_i[4 * i + 2] = (int)lx ^ (int)(lx >> 31);
    out_i[4 * i + 3] = (int)(uchar)((uint)x + (uint)y) ^ ((uchar)x + (uchar)y); // 8-bit wrap, int sum
    out_l[3 * i] = (long)x ^ (long)(uint)x;
    out_l[3 * i + 1] = (long)(ulong)(uint)x + (long)(char)y;
    out_l[3 * i + 2] = (long)(ushort)y * (long)(short)x;
    // Saturating conversions, every pair of widths and signs that clamps.
    out_sat[8 * i] = (uint)convert_char_sat(x) & 0xff;
    out_sat[8 * i + 1] = convert_uchar_sat(x);
    out_sat[8 * i + 2] = (uint)(int)convert_short_sat(x);
    out_sat[8 * i + 3] = convert_ushort_sat(x);
    out_sat[8 * i + 4] = convert_uint_sat(x);
    out_sat[8 * i + 5] = (uint)convert_int_sat(lx) ^ convert_uint_sat(lx);
    out_sat[8 * i + 6] = (uint)convert_int_sat(ulx) ^ convert_uint_sat(ulx);
    out_sat[8 * i + 7] = (uint)convert_char_sat((uchar)y) * 7 + convert_uchar_sat((char)y) +
                         convert_ushort_sat((short)x) + (uint)convert_short_sat((ushort)x);
    out_lsat[2 * i] = convert_long_sat(ulx) ^ convert_long_sat((uint)x);
    out_lsat[2 * i + 1] = (long)convert_ulong_sat(lx) ^ (long)convert_ulong_sat(x);
    const int4 v = (int4)(x, y, x >> 20, -(y >> 23));
    out_v[2 * i] = convert_uchar4_sat(v);
    out_v[2 * i + 1] = as_uchar4(convert_char4_sat(v)) ^ convert_uchar4(v) ^
                       as_uchar4(convert_short2_sat(v.xy));
}

__kernel void int_builtins(__global const int *a, __global const int *b, __global const int *edge,
                           __global uint *out, __global ulong *out_l, __global int4 *out_v)
{
    OPERANDS
    const uint ux = (uint)x;
    const uint uy = (uint)y;
    const long lx = (long)(((ulong)ux << 32) ^ (ulong)ux);
    const long ly = ((long)y << 29) + (long)x;
    out[16 * i] = (uint)mul_hi(x, y);
    out[16 * i + 1] = mul_hi(ux, uy);
    out[16 * i + 2] = (uint)mad_hi(x, y, x ^ y);
    out[16 * i + 3] = (uint)mad_sat(x, y, x);
    out[16 * i + 4] = mad_sat(ux, uy, ux);
    out[16 * i + 5] = (uint)add_sat(x, y) ^ ((uint)sub_sat(x, y) << 1);
    out[16 * i + 6] = add_sat(ux, uy) ^ (sub_sat(ux, uy) >> 1);
    out[16 * i + 7] = (uint)hadd(x, y) ^ (uint)rhadd(x, y) ^ hadd(ux, uy) ^ (rhadd(ux, uy) << 3);
    out[16 * i + 8] = clz(x) | (clz(ux >> (uy & 31)) << 8) | ((uint)clz((uchar)x) << 16) |
                      ((uint)clz((short)y) << 24);
    out[16 * i + 9] = popcount(x) | (popcount((char)y) << 8) | ((uint)popcount(lx) << 16);
    out[16 * i + 10] = abs(x) ^ (abs_diff(x, y) << 1);
    out[16 * i + 11] = abs_diff(ux, uy) ^ (uint)abs((char)x) ^ ((uint)abs((short)y) << 16);
    out[16 * i + 12] = (uint)upsample((short)x, (ushort)y) ^ (uint)upsample((uchar)x, (uchar)y);
    out[16 * i + 13] = (uint)mad24(x >> 16, y >> 16, x >> 1) ^ mul24(ux >> 16, uy >> 16);
    out[16 * i + 14] = (uint)clamp(x, min(y, 77), max(y, 77)) ^ (uint)max(x, y) ^ min(ux, uy);
    out[16 * i + 15] = (uint)min((char)x, (char)y) + (uint)max((uchar)x, (uchar)y) * 3;
    out_l[4 * i] = (ulong)mul_hi(lx, ly) ^ mul_hi((ulong)lx, (ulong)ly);
    out_l[4 * i + 1] = (ulong)add_sat(lx, ly) ^ (ulong)sub_sat(lx, ly);
    out_l[4 * i + 2] = add_sat((ulong)lx, (ulong)ly) ^ sub_sat((ulong)lx, (ulong)ly) ^
                       (ulong)abs_diff(lx, ly);
    out_l[4 * i + 3] = (ulong)clz(lx) ^ (ulong)upsample(x, uy) ^ (ulong)hadd(lx, ly) ^
                       (ulong)rhadd((ulong)lx, (ulong)ly);
    const char4 cx = as_char4(x);
    const char4 cy = as_char4(y);
    out_v[3 * i] = as_int(add_sat(cx, cy)) ^ as_int(sub_sat(as_uchar4(x), as_uchar4(y)));
    out_v[3 * i + 1] = convert_int4(mul_hi(cx, cy)) ^ convert_int4(hadd(cx, cy)) * 256 ^
                       convert_int4(abs(cx)) * 65536;
    // Vector arithmetic on unsigned chars wraps at 8 bits (no promotion to int).
    const uchar4 ux4 = as_uchar4(x);
    const uchar4 uy4 = as_uchar4(y);
    out_v[3 * i + 2] = (int4)(as_int(ux4 + uy4), as_int(ux4 * uy4), as_int(-ux4), as_int(~cx)) ^
                       convert_int4(ux4 + uy4);
}
