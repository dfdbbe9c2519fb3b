__kernel void oob(__global float *a, __global float *b)
{
    size_t i = get_global_id(0);
    b[i] = a[i + 1];
}
