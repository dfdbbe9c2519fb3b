__kernel void store_to_const(__global const float *in, __global float *out)
{
    const int n = 4;
    n = 5;
    in[0] = out[0];
}
