// expect-error: 5: should not return a value
// A void function cannot return a value.
static void store(__global float *p, float v)
{   *p = v;
    return 1;
}
__kernel void k(__global float *out) { store(out, 1.0f); }
