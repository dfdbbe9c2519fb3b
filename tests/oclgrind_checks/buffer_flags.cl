// Scales `data` in place: the host created it read-only, and `scale` write-only.
__kernel void scale_in_place(__global int *data, __global int *scale)
{
    int i = get_global_id(0);
    int s = scale[0];
    data[i] = data[i] * s;
}
