// expect-error: 4: too many arguments
// get_global_id takes exactly one argument.
__kernel void k(__global int *out)
{   out[get_global_id(0, 1)] = 1;
}
