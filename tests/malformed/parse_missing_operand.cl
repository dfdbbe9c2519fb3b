// expect-error: 4: expected expression
// The addition has no right-hand operand.
__kernel void k(__global int *out)
{   out[0] = out[1] + ;
}
