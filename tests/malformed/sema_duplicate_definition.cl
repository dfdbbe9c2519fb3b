// expect-error: 4: redefinition
// scale is defined twice.
static float scale(float x) { return 2.0f * x; }
static float scale(float x) { return 3.0f * x; }
__kernel void k(__global float *out) { out[0] = scale(1.0f); }
