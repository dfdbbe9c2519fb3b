// expect-error: 4: undeclared
// refine is called but never declared.
__kernel void k(__global float *out)
{   out[0] = refine(1.0f);
}
