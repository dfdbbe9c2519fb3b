// Copies `in` to `out`, adding `bias[i]` only when a bias buffer is given.
__kernel void maybe_copy(__global const uint *in, __global const uint *bias, __global uint *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i] + (bias ? bias[i] : 0u);
}
