// expect-error: 4: missing terminating '"' character
// The format string of printf has no closing quote.
__kernel void k(__global float *out)
{   printf("value: %f\n, out[0]);
}
