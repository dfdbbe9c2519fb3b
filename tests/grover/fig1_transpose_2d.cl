// Seed 000, Figure 1(a): matrix transpose through a two-dimensional local
// array, indexed with work-group and work-item ids directly. Grover must give
// Figure 1(b): val = in[(wx*S+lx)*W+(wy*S+ly)].

#ifndef S
#define S 16
#endif

__kernel void MatTrans(const __global float *in, __global float *out, int W, int H)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int wx = get_group_id(0);
    const int wy = get_group_id(1);
    const int gx = get_global_id(0);
    const int gy = get_global_id(1);

    __local float lm[S][S];
    lm[ly][lx] = in[(wx * S + ly) * W + (wy * S + lx)];

    barrier(CLK_LOCAL_MEM_FENCE);

    float val = lm[lx][ly];
    out[gy * H + gx] = val;
}
