// Image transpose through a local block, as done between the horizontal and
// vertical passes of a recursive Gaussian filter. Pattern: AMD SDK
// RecursiveGaussian transpose (seed 000, AMD-RG): the local store and the local
// load use the same index (lx, ly), only the global store is transposed.

__kernel void transpose_rg_block(__global uchar4 *output,
                                 const __global uchar4 *input,
                                 __local uchar4 *block,
                                 const uint width,
                                 const uint height,
                                 const uint block_size)
{
    const uint gx = get_global_id(0);
    const uint gy = get_global_id(1);
    const uint lx = get_local_id(0);
    const uint ly = get_local_id(1);

    block[ly * block_size + lx] = input[gy * width + gx];

    barrier(CLK_LOCAL_MEM_FENCE);

    output[gx * height + gy] = block[ly * block_size + lx];
}
