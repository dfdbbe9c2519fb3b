#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__constant float weights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
__constant int offsets[3] = {-1, 0, 1};
__constant float4 bias = (float4)(0.1f, 0.2f, 0.3f, 0.4f);

__kernel void constants(__global float *out, __global double *dout, __global ulong *big) {
    ulong i = get_global_id(0);
    float sum = 0.0f;
    for (int k = 0; k < 5; k++) {
        sum += weights[k] * (float)offsets[k % 3];
    }
    out[i] = sum + 1e-10f + 3.4028235e38f * 0.0f + 0.1f + bias.y;
    dout[i] = 0.1 + 1.0 / 3.0;
    big[i] = 18446744073709551615UL - 4294967295u + (ulong)-1L;
    out[i] += (float)(char)200 + (float)(short)-3;
}
