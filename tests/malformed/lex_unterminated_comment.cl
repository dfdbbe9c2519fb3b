// expect-error: 4: unterminated comment
// A block comment opened inside the kernel is never closed.
__kernel void k(__global float *out)
{   /* scale the value
    out[0] = 1.0f;
}
