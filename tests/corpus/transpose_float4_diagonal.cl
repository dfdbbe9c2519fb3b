// Square matrix transpose with float4 elements and diagonal work-group
// remapping. Pattern: AMD SDK MatrixTranspose (seed 000, AMD-MT). Each
// work-item moves a 4x4 block of floats (four float4 rows); the work-group
// stages its 4L x L float4 tile in local memory. Group ids are remapped along
// diagonals so that concurrently running groups hit different memory channels.
// The matrix is n x n floats, stored as n/4 float4 per row.

__kernel void transpose_float4_diagonal(__global float4 *out,
                                        const __global float4 *in,
                                        __local float4 *block)
{
    const uint row_f4 = get_global_size(0); // float4 per matrix row
    const uint side = get_local_size(0);    // work-group is side x side

    // Diagonal remapping: a bijection on a square grid of work-groups.
    const uint gx_raw = get_group_id(0);
    const uint gy_raw = get_group_id(1);
    const uint gy = gx_raw;
    const uint gx = (gx_raw + gy_raw) % get_num_groups(0);

    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);

    // Load four consecutive rows of the input 4x4 block at (gx, gy).
    const uint in_col = gx * side + lx;
    const uint in_row = 4 * (gy * side + ly);
    for (uint r = 0; r < 4; r++)
        block[(4 * ly + r) * side + lx] = in[(in_row + r) * row_f4 + in_col];

    barrier(CLK_LOCAL_MEM_FENCE);

    // Work-item (lx, ly) now writes the block mirrored across the diagonal.
    const float4 v0 = block[(4 * lx + 0) * side + ly];
    const float4 v1 = block[(4 * lx + 1) * side + ly];
    const float4 v2 = block[(4 * lx + 2) * side + ly];
    const float4 v3 = block[(4 * lx + 3) * side + ly];

    const uint out_col = gy * side + lx;
    const uint out_row = 4 * (gx * side + ly);
    out[(out_row + 0) * row_f4 + out_col] = (float4)(v0.x, v1.x, v2.x, v3.x);
    out[(out_row + 1) * row_f4 + out_col] = (float4)(v0.y, v1.y, v2.y, v3.y);
    out[(out_row + 2) * row_f4 + out_col] = (float4)(v0.z, v1.z, v2.z, v3.z);
    out[(out_row + 3) * row_f4 + out_col] = (float4)(v0.w, v1.w, v2.w, v3.w);
}
