__kernel void vectors(__global float4 *out4, __global float8 *out8, __global int16 *out16, __global const uchar4 *pixels) {
    ulong i = get_global_id(0);
    float4 v = (float4)(1.0f, 2.0f, (float2)(3.0f, 4.0f));
    float4 s = (float4)(0.5f);
    v.xy = v.yx;
    v.w += s.z;
    float8 wide = (float8)(v, s);
    wide.s7 = wide.s0 + wide.s4567.x;
    int16 ints = (int16)(0);
    ints.sf = 15;
    ints.s9a = (int2)(9, 10);
    uchar4 p = pixels[i];
    float4 q = convert_float4(p) * 0.00392157f;
    int4 r = convert_int4_sat_rte(q * 255.0f);
    out4[i] = select(v, q, r > 128) + as_float4(r & 127);
    out8[i] = wide;
    out16[i] = ints;
}
