// One Jacobi step in 2D on an n x n grid (PolyBench jacobi-2d update):
// B[i][j] = 0.2 * (A[i][j] + four neighbours) for interior points, border
// copied so that swapping A and B between steps keeps both borders equal.
// Pattern: plain global-memory 5-point stencil, no local memory.

#define DATA_TYPE float

__kernel void jacobi2d_step(const __global DATA_TYPE *A,
                            __global DATA_TYPE *B,
                            const int n)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= n || j >= n)
        return;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
        B[i * n + j] = A[i * n + j];
        return;
    }
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                           A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
