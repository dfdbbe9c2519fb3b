// Front-end coverage: printf with integer, float, string, character, hex and
// vector conversions (%v4hlf), called by two work-items only so the output stays
// short. The kernel also writes a buffer, so its effect can be compared.

__kernel void lang_printf(__global const float4 *in, __global float *out)
{
    const size_t i = get_global_id(0);
    const float4 v = in[i];
    if (i < 2) {
        printf("item %d of %d: %c%s sum=%.3f bits=%#x\n", (int)i, (int)get_global_size(0), 'v',
               "ector", v.x + v.y + v.z + v.w, as_uint(v.x));
        printf("vector %v4hlf\n", v);
    }
    out[i] = v.x * v.w - v.y * v.z;
}
