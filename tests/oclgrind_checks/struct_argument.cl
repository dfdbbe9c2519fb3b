// Kernels that take structs by value, as clSetKernelArg passes them: the host's bytes,
// padding included (Transform) or without any (the packed Header).
typedef struct
{
    char enabled;
    float scale;
    int offset;
} Transform;

struct __attribute__((packed)) Header
{
    uchar step;
    ushort count;
    int base;
};

__kernel void apply_transform(Transform t, __global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = t.enabled ? in[i] * t.scale + t.offset : in[i];
}

__kernel void fill_from_header(struct Header h, __global int *out)
{
    int i = get_global_id(0);
    out[i] = i < h.count ? h.base + h.step * i : -1;
}
