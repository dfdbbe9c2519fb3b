// 7-point 3D stencil on an nx x ny x nz grid with clamped borders.
// Pattern: a 3D work-group stages its block plus a one-cell halo on every face
// in a flattened local array, loaded with a strided cooperative loop.

#define BX 8
#define BY 8
#define BZ 4
#define HX (BX + 2)
#define HY (BY + 2)
#define HZ (BZ + 2)

__kernel void stencil3d_local_halo(__global float *out,
                                   const __global float *in,
                                   const int nx,
                                   const int ny,
                                   const int nz,
                                   const float c0,
                                   const float c1)
{
    __local float block[HZ * HY * HX];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int lz = get_local_id(2);
    const int ox = get_group_id(0) * BX - 1;
    const int oy = get_group_id(1) * BY - 1;
    const int oz = get_group_id(2) * BZ - 1;

    const int first = (lz * BY + ly) * BX + lx;
    for (int cell = first; cell < HX * HY * HZ; cell += BX * BY * BZ) {
        const int x = clamp(ox + cell % HX, 0, nx - 1);
        const int y = clamp(oy + (cell / HX) % HY, 0, ny - 1);
        const int z = clamp(oz + cell / (HX * HY), 0, nz - 1);
        block[cell] = in[(z * ny + y) * nx + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int c = ((lz + 1) * HY + ly + 1) * HX + lx + 1;
    const float neighbours = block[c - 1] + block[c + 1] + block[c - HX] +
                             block[c + HX] + block[c - HX * HY] + block[c + HX * HY];
    const size_t gx = get_global_id(0);
    const size_t gy = get_global_id(1);
    const size_t gz = get_global_id(2);
    out[(gz * ny + gy) * nx + gx] = c0 * block[c] + c1 * neighbours;
}
