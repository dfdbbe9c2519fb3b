// expect-error: 4: missing terminating ' character
// A character constant with no closing quote.
__kernel void k(__global char *out)
{   out[0] = 'a;
}
