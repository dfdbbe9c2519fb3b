// expect-error: 3: void return type
// Kernels must return void.
__kernel int k(__global int *out)
{   out[0] = 1;
    return 0;
}
