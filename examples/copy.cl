// A plain copy, one float4 per work-item: the kernel whose bandwidth should equal the device's
// own buffer copy. `clmap time examples/copy.toml --device gpu --copy-reference` compares them.
__kernel void copy(__global float4 *out, __global const float4 *in)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}
