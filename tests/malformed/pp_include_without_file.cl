// expect-error: 2: expected a file name
#include
__kernel void k(__global float *out) { out[0] = 1.0f; }
