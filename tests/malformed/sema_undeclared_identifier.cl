// expect-error: 4: undeclared identifier
// scale is never declared.
__kernel void k(__global float *out)
{   out[0] = scale * 2.0f;
}
