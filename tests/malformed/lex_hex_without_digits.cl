// expect-error: 4: invalid integer constant
// A hexadecimal constant with no digits after the prefix.
__kernel void k(__global int *out)
{   out[0] = 0x;
}
