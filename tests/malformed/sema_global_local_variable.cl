// expect-error: 4: global address space
// Variables inside a function cannot live in the global address space.
__kernel void k(__global int *out)
{   __global int counter;
    out[0] = 1;
}
