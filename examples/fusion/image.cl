// image: a three-stage filter pipeline on a rows x cols grey image (floats), one work-item
// per pixel, three DIFFERENT kernels launched one after the other:
//
//     src --denoise--> t1 --sharpen--> t2 --blend(src)--> dst
//
// The stages are not the same stencil repeated, so fusing them needs the halos to add up
// (denoise reads 1 pixel around, sharpen 1 more, blend none) and the original image to be
// kept alive until the last stage. All image borders are handled by clamping the
// neighbour coordinates to the image (edge pixels are repeated), so every pixel of every
// stage is written.

// 3x3 box mean: removes pixel noise.
__kernel void denoise(__global const float *src, __global float *t1, int cols, int rows)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        const int yy = min(max(y + dy, 0), rows - 1);
        for (int dx = -1; dx <= 1; dx++) {
            const int xx = min(max(x + dx, 0), cols - 1);
            sum += src[yy * cols + xx];
        }
    }
    t1[y * cols + x] = sum * (1.0f / 9.0f);
}

// 5-point unsharp mask: adds `amount` times the (negative) Laplacian back to the pixel,
// which steepens edges that the mean filter softened.
__kernel void sharpen(__global const float *t1, __global float *t2, int cols, int rows,
                      float amount)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const float c = t1[y * cols + x];
    const float north = t1[max(y - 1, 0) * cols + x];
    const float south = t1[min(y + 1, rows - 1) * cols + x];
    const float west = t1[y * cols + max(x - 1, 0)];
    const float east = t1[y * cols + min(x + 1, cols - 1)];
    t2[y * cols + x] = c + amount * (4.0f * c - north - south - west - east);
}

// Blend: mixes the sharpened image with the original, weight `w` for the sharpened one.
// A pointwise stage (no halo) that reads the pipeline's input again.
__kernel void blend(__global const float *src, __global const float *t2,
                    __global float *dst, int cols, float w)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int c = y * cols + x;
    dst[c] = w * t2[c] + (1.0f - w) * src[c];
}
