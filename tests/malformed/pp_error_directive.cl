// expect-error: 5: unsupported tile size
// The #error directive fires because TILE is not a supported size.
#define TILE 12
#if TILE != 8 && TILE != 16
#error "unsupported tile size"
#endif
__kernel void k(__global float *out) { out[0] = TILE; }
