// 2D convolution of an image with a (2R+1)^2 filter, clamped borders.
// Pattern: the work-group stages its (TILE+2R)^2 input window, halo included,
// in local memory with a strided cooperative loop (more cells than
// work-items); the filter comes from a __constant buffer.

#ifndef TILE
#define TILE 16
#endif
#ifndef RADIUS
#define RADIUS 2
#endif
#define WINDOW (TILE + 2 * RADIUS)

__kernel void conv2d_local_halo(__global float *out,
                                const __global float *in,
                                __constant float *filter,
                                const int width,
                                const int height)
{
    __local float window[WINDOW * WINDOW];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int origin_x = get_group_id(0) * TILE - RADIUS;
    const int origin_y = get_group_id(1) * TILE - RADIUS;

    for (int cell = ly * TILE + lx; cell < WINDOW * WINDOW; cell += TILE * TILE) {
        const int x = clamp(origin_x + cell % WINDOW, 0, width - 1);
        const int y = clamp(origin_y + cell / WINDOW, 0, height - 1);
        window[cell] = in[y * width + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum = 0.0f;
    for (int fy = 0; fy <= 2 * RADIUS; fy++)
        for (int fx = 0; fx <= 2 * RADIUS; fx++)
            sum += filter[fy * (2 * RADIUS + 1) + fx] *
                   window[(ly + fy) * WINDOW + lx + fx];

    out[get_global_id(1) * width + get_global_id(0)] = sum;
}
