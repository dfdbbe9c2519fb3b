// PolyBench/GPU FDTD-2D in the suite's style: one time step of a 2D finite-difference
// time-domain simulation on nx x ny fields ex, ey, hz as three kernels: update ey (row 0
// takes the source term fict[t]), update ex, update hz. The host loops over t. There is no
// reduction loop here: these kernels are the same in both kernel sets, and only the host
// loop, the sizes and the inputs follow the suite.
// The other version: tests/corpus/pb_fdtd2d.cl.

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__kernel void fdtd_kernel1(const __global DATA_TYPE *fict, __global DATA_TYPE *ex,
                           __global DATA_TYPE *ey, const __global DATA_TYPE *hz,
                           int t, int nx, int ny)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < nx && j < ny) {
        if (i == 0)
            ey[j] = fict[t];
        else
            ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    }
}

__kernel void fdtd_kernel2(__global DATA_TYPE *ex, const __global DATA_TYPE *ey,
                           const __global DATA_TYPE *hz, int nx, int ny)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < nx && j > 0 && j < ny)
        ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__kernel void fdtd_kernel3(const __global DATA_TYPE *ex, const __global DATA_TYPE *ey,
                           __global DATA_TYPE *hz, int nx, int ny)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i < nx - 1 && j < ny - 1)
        hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] +
                                                  ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
