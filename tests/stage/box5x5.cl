// 5 x 5 box filter on a w x h grid (Block iMAP, radius 2): every interior cell becomes the
// mean of the 25 cells around it; the border keeps its value. The NDRange is rounded up to
// whole work-groups, so the last work-groups hang over the grid's right and bottom edges.

#define R 2

__kernel void box5x5(const __global float *in, __global float *out, int w, int h)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    if (x < R || y < R || x >= w - R || y >= h - R) {
        out[y * w + x] = in[y * w + x];
        return;
    }
    float sum = 0.0f;
    for (int dy = -R; dy <= R; dy++)
        for (int dx = -R; dx <= R; dx++)
            sum += in[(y + dy) * w + x + dx];
    out[y * w + x] = sum / ((2 * R + 1) * (2 * R + 1));
}
