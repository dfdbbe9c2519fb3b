// expect-error: 6: does not give a valid preprocessing token
// Pasting an identifier and '.' does not form one token.
#define MEMBER(name) name ## .y
__kernel void k(__global float *out)
{   float2 x = (float2)(1.0f, 2.0f);
    out[0] = MEMBER(x);
}
