// expect-error: 2: expected "FILENAME" or <FILENAME>
#include
__kernel void k(__global float *out) { out[0] = 1.0f; }
