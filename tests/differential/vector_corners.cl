// Vector corners: literals built from scalars and smaller vectors, arrays of vectors from
// lists of scalars (each scalar fills a whole element), comparisons (-1 for true in a vector,
// 1 for a scalar), the conditional operator and select() on vectors (the most significant bit
// of each component decides), any/all, logical operators on vectors, swizzles of 3-component
// vectors, and vector arithmetic that wraps without integer promotion.
//
// Work-items 0 to 255 take their operands from the 16 x 16 pairs of `edge`; the rest from the
// random inputs.

#define OPERANDS                                                                                   \
    const int i = get_global_id(0);                                                                \
    const int x = i < 256 ? edge[i / 16] : a[i];                                                   \
    const int y = i < 256 ? edge[i % 16] : b[i];

typedef struct {
    char c;
    int2 v;
    long l;
} Mixed;

__kernel void literals(__global const int *a, __global const int *b, __global const int *edge,
                       __global int *out, __global long *out_l, __global float *out_f)
{
    OPERANDS
    const int4 v = (int4)(x, y, x ^ y, 5);
    const int8 w = (int8)(v.s13, 7, v.xz, x, (int2)(y));
    const int16 big = (int16)(w, v.wzyx, (int2)(1, 2), v.s0, y);
    int4 arr[3] = { x, y, 3 };
    int2 nested[2] = { { x, 1 }, y };
    long4 ls[2] = { (long)x * 3, 9L };
    uchar4 bytes[2] = { (uchar)x, { 1, 2, 3, 4 } };
    Mixed m = { (char)y, x, (long)y << 3 };
    float3 f3 = (float3)((float2)((float)x, 0.5f), (float)y);
    float4 f4 = (float4)(f3.zyx, f3.y);
    int3 t = (int3)(x, y, 11);
    int3 u = t.zxy;
    u.s21 = t.s02;
    const int *ap = (const int *)arr;
    const int *np = (const int *)nested;
    int acc = 0;
    for (int k = 0; k < 12; k++)
        acc = acc * 31 + ap[k];
    for (int k = 0; k < 4; k++)
        acc = acc * 37 + np[k];
    out[8 * i] = acc;
    out[8 * i + 1] = w.s0 ^ w.s1 * 3 ^ w.s2 * 5 ^ w.s3 * 7 ^ w.s4 * 11 ^ w.s5 * 13 ^ w.s6 * 17 ^
                     w.s7 * 19;
    out[8 * i + 2] = big.s0 + big.s5 * 2 + big.s9 * 4 + big.sa * 8 + big.sb * 16 + big.sc * 32 +
                     big.se + big.sf;
    out[8 * i + 3] = as_int(bytes[0]) ^ as_int(bytes[1]);
    out[8 * i + 4] = m.c + m.v.x * 3 + m.v.y * 5;
    out[8 * i + 5] = u.x + u.y * 10 + u.z * 100 + t.lo.y + t.odd.x * 7 + t.even.y;
    out[8 * i + 6] = vload3(0, (const int *)&u).z + (int)sizeof(int3) + vec_step(int3);
    out[8 * i + 7] = w.hi.x + w.lo.w + w.odd.z + w.even.w;
    out_l[2 * i] = ls[0].x ^ ls[0].w ^ ls[1].y;
    out_l[2 * i + 1] = m.l;
    vstore4(f4 * 0.25f, i, out_f);
}

__kernel void selects(__global const int *a, __global const int *b, __global const int *edge,
                      __global int4 *out, __global long2 *out_l, __global int *out_s,
                      __global float4 *out_f)
{
    OPERANDS
    const int4 v = (int4)(x, y, x >> 4, y >= 0 ? 1 : 2);
    const int4 w = (int4)(y, x, 7, y / -2);
    const float4 f = convert_float4(v) * 0.001f;
    const float4 g = (float4)(convert_float2(w.lo), NAN, (float)w.z);
    out[10 * i] = v < w;
    out[10 * i + 1] = (v == w) | ((v >= w) << 1) | (isless(f, g) << 2) | (isnan(g) << 3);
    out[10 * i + 2] = v < w ? v : w;
    out[10 * i + 3] = select(v, w, v);                      // the sign of each v decides
    out[10 * i + 4] = select(v, w, as_uint4(w));            // unsigned condition: top bit
    out[10 * i + 5] = select(v, w, (int4)(1, -1, 0x7fffffff, INT_MIN));
    out[10 * i + 6] = !v;
    out[10 * i + 7] = (v && w) | ((v || w) << 1) | (v > 0 ? 4 : 8);
    out[10 * i + 8] = (int4)(any(v), all(v), any(v.xy), all((int2)(v.x, -1)));
    out[10 * i + 9] = bitselect(v, w, (int4)(0xff00ff00, x, y, 0));
    const long2 lv = (long2)((long)x << 20, (long)y);
    const long2 lw = (long2)((long)y << 20, (long)x);
    out_l[2 * i] = (lv > lw) + select(lv, lw, lv) * 2;
    out_l[2 * i + 1] = select(lv, lw, (ulong2)(0x8000000000000000UL, 0x7fffffffffffffffUL));
    // Scalars: comparisons give 1, select() tests for non-zero, not the top bit.
    out_s[4 * i] = (x < y) + (x == y) * 2 + isless((float)x, (float)y) * 4 + isnan((float)x) * 8;
    out_s[4 * i + 1] = select(x, y, 2) + select(x, y, 0) * 3;
    out_s[4 * i + 2] = select(x, y, x) ^ select(x, y, (uint)y);
    out_s[4 * i + 3] = (x ? 10 : 20) + (!x) * 100 + (x && y) * 1000 + any(x) * 10000 + all(y) * 100000;
    out_f[2 * i] = select(f, g, v) + select(g, f, isgreater(f, g));
    out_f[2 * i + 1] = f < g ? f : g;
}

__kernel void wraps(__global const int *a, __global const int *b, __global const int *edge,
                    __global int *out, __global uchar16 *out_c)
{
    OPERANDS
    const uchar4 ux = as_uchar4(x);
    const uchar4 uy = as_uchar4(y);
    const ushort2 sx = as_ushort2(x);
    const ushort2 sy = as_ushort2(y);
    // Scalars promote to int, vectors do not.
    out[4 * i] = ux.x + uy.x;
    out[4 * i + 1] = as_int(ux + uy);
    out[4 * i + 2] = as_int(sx * sy) ^ (sx.x * sy.x);
    out[4 * i + 3] = as_int(ux / (uchar4)(3)) ^ as_int(uy >> (uchar4)(1, 2, 3, 4)) ^ (ux.y >> 3);
    uchar16 c = (uchar16)(ux, uy, ux.wzyx, uy.s3120);
    c += (uchar)200;
    c *= (uchar16)(3);
    c ^= ~c.sfedcba9876543210 << (uchar16)(9);
    out_c[i] = c;
}
