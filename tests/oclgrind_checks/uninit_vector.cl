// Packs four inputs into a vector lane by lane, but sets the last lane only when `full` is set.
__kernel void pack(__global const int *in, __global int4 *out, int full)
{
    int4 v;
    v.x = in[0];
    v.y = in[1];
    v.z = in[2];
    if (full)
        v.w = in[3];
    out[get_global_id(0)] = v;
}
