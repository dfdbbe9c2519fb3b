// expect-error: 4: sizeof
// void has no size.
__kernel void k(__global int *out)
{   out[0] = sizeof(void);
}
