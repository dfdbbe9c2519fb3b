// expect-error: 5: function pointer
// OpenCL C has no pointers to functions.
static int twice(int x) { return 2 * x; }
__kernel void k(__global int *out)
{   int (*op)(int) = twice;
    out[0] = op(3);
}
