// Reads ints from a byte buffer at an offset the host gives.
__kernel void unpack(__global const char *bytes, __global int *out, int skip)
{
    int i = get_global_id(0);
    out[i] = *(__global const int *)(bytes + skip + 4 * i);
}
