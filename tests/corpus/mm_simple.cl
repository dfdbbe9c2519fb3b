// Simple unoptimised matrix multiply C = A * B of square N x N matrices.
// Pattern: seed 004, Appendix A ("simpleMultiply"): each work-item computes the
// (globalRow, globalCol) element as the dot product of a row of A and a column
// of B, all from global memory. Reproduced with the seed's structure and names.

__kernel void simpleMultiply(__global float *A,
                             __global float *B,
                             __global float *C,
                             int N)
{
    const int globalRow = get_global_id(0); // Row ID of C (0..N-1)
    const int globalCol = get_global_id(1); // Col ID of C (0..N-1)

    // Compute a single element of C (loop over K)
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
        acc += B[k * N + globalCol] * A[globalRow * N + k];
    }

    // Store the result
    C[globalRow * N + globalCol] = acc;
}
