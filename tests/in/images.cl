// Images and samplers: every image type, sampled and sampler-less reads, writes and queries.
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
const sampler_t wrapped = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

float4 fetch(read_only image2d_t image, sampler_t sampler, int2 at)
{
    return read_imagef(image, sampler, at);
}

__kernel void copy(__read_only image2d_t src, __write_only image2d_t dst, sampler_t given)
{
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    float4 texel = fetch(src, given, at) + read_imagef(src, at);
    float2 uv = convert_float2(at) / (float2)(get_image_width(src), get_image_height(src));
    texel += read_imagef(src, wrapped, uv);
    const sampler_t local_sampler = CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    texel += read_imagef(src, local_sampler, at);
    write_imagef(dst, at, texel);
}

__kernel void integers(image1d_t a, image1d_buffer_t b, write_only image1d_array_t c,
                       read_only image2d_array_t d, image3d_t e, write_only image3d_t f,
                       __global int *out)
{
    int i = get_global_id(0);
    int4 v = read_imagei(a, nearest, i) + read_imagei(b, i);
    uint4 u = read_imageui(d, nearest, (float4)(0.5f, 0.5f, 1.0f, 0.0f));
    write_imagei(c, (int2)(i, 1), v);
    write_imageui(f, (int4)(i, 0, 0, 0), u + read_imageui(e, (int4)(i, 0, 0, 0)));
    int4 dim = get_image_dim(e);
    out[i] = get_image_depth(e) + dim.z + (int)get_image_array_size(d) + get_image_channel_order(a)
        + get_image_channel_data_type(b) - CLK_RGBA - CLK_UNORM_INT8;
}
