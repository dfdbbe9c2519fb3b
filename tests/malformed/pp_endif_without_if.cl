// expect-error: 8: #endif without #if
// One #endif too many.
#ifdef SCALE
#define FACTOR SCALE
#endif
__kernel void k(__global float *out)
{   out[0] = 1.0f; }
#endif
