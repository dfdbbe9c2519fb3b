// expect-error: 4: invalid character
// A backquote is not a token of OpenCL C.
__kernel void k(__global int *out)
{   out[0] = 3 ` 2;
}
