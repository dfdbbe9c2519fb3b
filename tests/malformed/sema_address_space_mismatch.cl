// expect-error: 4: address space
// A pointer to local memory cannot become a pointer to global memory.
__kernel void k(__global float *out, __local float *scratch)
{   __global float *p = scratch;
    out[0] = *p;
}
