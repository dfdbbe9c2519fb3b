// expect-error: 3: unterminated conditional directive
// The #if is never closed by #endif.
#if defined(USE_FAST_PATH)
__kernel void k(__global float *out)
{   out[0] = 1.0f;
}
