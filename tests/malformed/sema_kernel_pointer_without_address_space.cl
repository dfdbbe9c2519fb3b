// expect-error: 3: address space
// Pointer arguments of a kernel must name __global, __constant or __local.
__kernel void k(float *out)
{   out[0] = 1.0f;
}
