// The tiling example of the fusion paper: `f` produces A element for element, `g` consumes
// a 3-point neighbourhood of it.
__kernel void f(__global const char *in, __global char *A)
{
    int i = get_global_id(0);
    A[i] = in[i] + 1;
}

__kernel void g(__global const char *A, __global char *B, int n)
{
    int j = get_global_id(0);
    if (j > 0 && j < n - 1)
        B[j] = A[j - 1] + A[j] + A[j + 1];
}
