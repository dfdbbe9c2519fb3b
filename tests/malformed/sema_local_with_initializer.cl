// expect-error: 4: cannot have an initializer
// __local variables are shared by the work-group and cannot be initialised.
__kernel void k(__global float *out)
{   __local float total = 0.0f;
    out[0] = total;
}
