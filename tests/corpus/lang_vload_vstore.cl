// Front-end coverage: vector loads and stores from scalar arrays (vload4,
// vload2, vstore4) and half-precision storage (vload_half, vload_half4,
// vstore_half, vstore_half4_rte) on half pointers without cl_khr_fp16.

__kernel void lang_vload_vstore(__global const float *in,
                                __global float *out,
                                __global const half *half_in,
                                __global half *half_out,
                                __global float *widened)
{
    const size_t i = get_global_id(0);

    const float4 v = vload4(i, in);
    const float2 upper = vload2(2 * i + 1, in); // elements 4i+2 and 4i+3
    vstore4(v * 2.0f + (float4)(upper, upper), i, out);

    const float4 h4 = vload_half4(i, half_in);
    vstore_half4_rte(h4 * 0.5f, i, half_out);

    const float first = vload_half(4 * i, half_in);
    widened[i] = first + h4.w;
    vstore_half(first - h4.y, 4 * i + 1, half_out);
}
