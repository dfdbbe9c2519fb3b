// 7-point 3D Jacobi stencil, interior points only: Anext = c1 * (sum of the six
// neighbours) - c0 * A0. Pattern: Parboil "stencil" (seed 000, PAB-ST): 2D
// work-groups sweep the z axis; the current plane of the block is kept in a
// local array that is refilled each z iteration from a register (the value
// loaded one iteration earlier), with halo columns and rows loaded from global
// memory; the planes below and above stay in registers.

#define IDX(x, y, z) (((z) * ny + (y)) * nx + (x))

__kernel void stencil3d_parboil(__global float *Anext,
                                const __global float *A0,
                                const int nx,
                                const int ny,
                                const int nz,
                                const float c0,
                                const float c1,
                                __local float *plane)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int sx = get_local_size(0);
    const int sy = get_local_size(1);
    const int pitch = sx + 2;

    float bottom = A0[IDX(i, j, 0)];
    float current = A0[IDX(i, j, 1)];
    float top;

    for (int k = 1; k < nz - 1; k++) {
        top = A0[IDX(i, j, k + 1)];

        plane[(ly + 1) * pitch + lx + 1] = current;
        if (lx == 0 && i > 0)
            plane[(ly + 1) * pitch] = A0[IDX(i - 1, j, k)];
        if (lx == sx - 1 && i < nx - 1)
            plane[(ly + 1) * pitch + sx + 1] = A0[IDX(i + 1, j, k)];
        if (ly == 0 && j > 0)
            plane[lx + 1] = A0[IDX(i, j - 1, k)];
        if (ly == sy - 1 && j < ny - 1)
            plane[(sy + 1) * pitch + lx + 1] = A0[IDX(i, j + 1, k)];
        barrier(CLK_LOCAL_MEM_FENCE);

        if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
            const float around = top + bottom +
                                 plane[(ly + 1) * pitch + lx] +
                                 plane[(ly + 1) * pitch + lx + 2] +
                                 plane[ly * pitch + lx + 1] +
                                 plane[(ly + 2) * pitch + lx + 1];
            Anext[IDX(i, j, k)] = around * c1 - current * c0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        bottom = current;
        current = top;
    }
}
