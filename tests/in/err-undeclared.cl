__kernel void broken(__global float *out)
{
    out[get_global_id(0)] = missing * 2.0f;
}
