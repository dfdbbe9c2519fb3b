__kernel void builtins(__global const float *in, __global float *out, __global int *ints) {
    ulong i = get_global_id(0);
    float4 v = vload4(i, in);
    float len = length(v) + dot(v, v) + fast_length(v.xyz);
    float m = fma(v.x, v.y, v.z) + mad(v.w, 2.0f, 1.0f) + native_exp(v.x) + half_sqrt(v.y);
    float c = clamp(v.x, 0.0f, 1.0f) + mix(v.y, v.z, 0.5f) + fmax(v.w, 0.0f);
    int k = abs(ints[i]) + clz(ints[i]) + mul24(ints[i], 3) + max(ints[i], 4);
    vstore4(normalize(v) * len, i, out);
    ints[i] = k + (int)(m + c);
    if (i == 0) {
        printf("len=%f k=%d \"quoted\"\n", len, k);
    }
}
