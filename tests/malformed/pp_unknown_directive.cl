// expect-error: 2: invalid preprocessing directive
#frobnicate 3
__kernel void k(__global float *out) { out[0] = 1.0f; }
