// expect-error: 6: #else after #else
// A conditional cannot have two #else branches.
#if 0
#define WIDTH 4
#else
#else
#define WIDTH 8
#endif
__kernel void k(__global float *out) { out[0] = 1.0f; }
