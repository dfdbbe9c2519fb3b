// expect-error: 2: ##
#define JOIN ## suffix
__kernel void k(__global float *out) { out[0] = 1.0f; }
