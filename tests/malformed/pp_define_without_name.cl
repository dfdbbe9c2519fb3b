// expect-error: 2: macro name missing
#define
__kernel void k(__global float *out) { out[0] = 1.0f; }
