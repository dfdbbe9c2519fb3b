// expect-error: 5: unterminated argument list
// The argument list of ADD is never closed before the end of the file.
#define ADD(a, b) ((a) + (b))
__kernel void k(__global int *out)
{   out[0] = ADD(1, 2;
}
