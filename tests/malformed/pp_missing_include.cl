// expect-error: 2: not found
#include "no_such_header_anywhere.h"
__kernel void k(__global float *out) { out[0] = 1.0f; }
