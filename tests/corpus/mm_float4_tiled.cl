// Matrix multiply C = A * B with float4 elements, each work-item computing a
// 4x4 block of C. Pattern: AMD SDK MatrixMultiplication with local memory
// (seed 000, AMD-MM): the work-group stages, per step, 4 rows x L float4 of A
// in local memory; B is read as float4 from global memory.
// A is M x K, B is K x N, C is M x N floats; the launch is (N/4, M/4) with
// square L x L work-groups and K a multiple of 4L.

#define ROWS_PER_ITEM 4

__kernel void mm_float4_tiled(const __global float4 *A,
                              const __global float4 *B,
                              __global float4 *C,
                              const uint K,
                              __local float4 *tileA)
{
    const uint L = get_local_size(0);
    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);
    const uint gx = get_global_id(0);
    const uint gy = get_global_id(1);
    const uint n4 = get_global_size(0); // float4 per row of B and C
    const uint k4 = K / 4;              // float4 per row of A

    float4 sum0 = (float4)(0.0f);
    float4 sum1 = (float4)(0.0f);
    float4 sum2 = (float4)(0.0f);
    float4 sum3 = (float4)(0.0f);

    const uint first_row = ROWS_PER_ITEM * gy;
    for (uint step = 0; step < k4 / L; step++) {
        // Rows 4*ly .. 4*ly+3 of the tile, float4 column lx.
        for (uint r = 0; r < ROWS_PER_ITEM; r++)
            tileA[(ROWS_PER_ITEM * ly + r) * L + lx] =
                A[(first_row + r) * k4 + step * L + lx];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (uint j = 0; j < L; j++) {
            const float4 a0 = tileA[(ROWS_PER_ITEM * ly + 0) * L + j];
            const float4 a1 = tileA[(ROWS_PER_ITEM * ly + 1) * L + j];
            const float4 a2 = tileA[(ROWS_PER_ITEM * ly + 2) * L + j];
            const float4 a3 = tileA[(ROWS_PER_ITEM * ly + 3) * L + j];
            // Four consecutive rows of B, k = 4 * (step * L + j) + 0..3.
            const uint kb = 4 * (step * L + j);
            const float4 b0 = B[(kb + 0) * n4 + gx];
            const float4 b1 = B[(kb + 1) * n4 + gx];
            const float4 b2 = B[(kb + 2) * n4 + gx];
            const float4 b3 = B[(kb + 3) * n4 + gx];
            sum0 += a0.x * b0 + a0.y * b1 + a0.z * b2 + a0.w * b3;
            sum1 += a1.x * b0 + a1.y * b1 + a1.z * b2 + a1.w * b3;
            sum2 += a2.x * b0 + a2.y * b1 + a2.z * b2 + a2.w * b3;
            sum3 += a3.x * b0 + a3.y * b1 + a3.z * b2 + a3.w * b3;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    C[(first_row + 0) * n4 + gx] = sum0;
    C[(first_row + 1) * n4 + gx] = sum1;
    C[(first_row + 2) * n4 + gx] = sum2;
    C[(first_row + 3) * n4 + gx] = sum3;
}
