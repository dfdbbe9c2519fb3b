// EXPECT-EXIT: 0
// EXPECT-OUTPUT: images: all checks passed
/* An image pipeline: a 2-D RGBA UNORM_INT8 picture made with clCreateImage (copied from a
 * host array with a padded row pitch) is blurred by a kernel with read_imagef and a sampler
 * from clCreateSampler passed as an argument; the blur's brightness goes to a CL_R CL_FLOAT
 * image through write_imagef; a second kernel takes the horizontal gradient of that image
 * with a normalised, linear-filtering sampler. Every stage is compared with the host's
 * computation. Also: clGetSupportedImageFormats, clGetImageInfo, clGetSamplerInfo,
 * clEnqueueReadImage/WriteImage/CopyImage/FillImage/MapImage, clEnqueueCopyImageToBuffer and
 * clEnqueueCopyBufferToImage.
 */
#include "common.h"

#include <math.h>

static const char *source =
    "__kernel void blur_brightness(__read_only image2d_t picture, sampler_t nearest_clamped,\n"
    "                              __write_only image2d_t brightness)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float4 sum = (float4)(0.0f);\n"
    "    for (int dy = -1; dy <= 1; dy++)\n"
    "        for (int dx = -1; dx <= 1; dx++)\n"
    "            sum += read_imagef(picture, nearest_clamped, (int2)(x + dx, y + dy));\n"
    "    sum /= 9.0f;\n"
    "    write_imagef(brightness, (int2)(x, y), (float4)((sum.x + sum.y + sum.z) / 3.0f, 0.0f, 0.0f, 1.0f));\n"
    "}\n"
    "\n"
    "__kernel void gradient(__read_only image2d_t brightness, sampler_t linear_normalised,\n"
    "                       __global float *out, int width, int height)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float v = ((float)y + 0.5f) / (float)height;\n"
    "    float left = read_imagef(brightness, linear_normalised, (float2)(((float)x - 0.5f) / (float)width, v)).x;\n"
    "    float right = read_imagef(brightness, linear_normalised, (float2)(((float)x + 1.5f) / (float)width, v)).x;\n"
    "    out[y * width + x] = 0.5f * (right - left);\n"
    "}\n";

#define W 37
#define H 23
#define PADDED_PITCH (W * 4 + 12) /* padded rows in the host's copy of the picture */

static struct hosts_env env;

static unsigned char channel(int x, int y, int c)
{
    switch (c) {
    case 0:
        return (unsigned char)((x * 7) & 0xff);
    case 1:
        return (unsigned char)((y * 11) & 0xff);
    case 2:
        return (unsigned char)(((x + y) * 3 + 40) & 0xff);
    default:
        return 255;
    }
}

static int clamp_int(int v, int low, int high)
{
    return v < low ? low : v > high ? high : v;
}

static int format_supported(cl_mem_flags flags, cl_channel_order order, cl_channel_type type)
{
    cl_uint count = 0, i;
    cl_image_format *formats;
    int found = 0;
    CL(clGetSupportedImageFormats(env.context, flags, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count));
    formats = calloc(count + 1, sizeof *formats);
    CL(clGetSupportedImageFormats(env.context, flags, CL_MEM_OBJECT_IMAGE2D, count, formats, NULL));
    for (i = 0; i < count; i++)
        found |= formats[i].image_channel_order == order && formats[i].image_channel_data_type == type;
    free(formats);
    return found;
}

static cl_mem make_image(cl_mem_flags flags, cl_channel_order order, cl_channel_type type, size_t width, size_t height,
                         size_t row_pitch, void *host)
{
    cl_image_format format;
    cl_image_desc desc;
    cl_int err;
    cl_mem image;
    format.image_channel_order = order;
    format.image_channel_data_type = type;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = height;
    desc.image_row_pitch = row_pitch;
    image = clCreateImage(env.context, flags, &format, &desc, host, &err);
    CL_OK(err, "clCreateImage");
    return image;
}

static size_t image_size(cl_mem image, cl_image_info param)
{
    size_t value = 12345;
    CL(clGetImageInfo(image, param, sizeof value, &value, NULL));
    return value;
}

static void image_info(cl_mem picture)
{
    cl_image_format format;
    cl_mem_object_type type = 0;
    cl_mem buffer = (cl_mem)&buffer;
    cl_uint levels = 99, samples = 99;
    CL(clGetImageInfo(picture, CL_IMAGE_FORMAT, sizeof format, &format, NULL));
    CHECK(format.image_channel_order == CL_RGBA && format.image_channel_data_type == CL_UNORM_INT8,
          "CL_IMAGE_FORMAT is RGBA / UNORM_INT8");
    CHECK(image_size(picture, CL_IMAGE_ELEMENT_SIZE) == 4, "CL_IMAGE_ELEMENT_SIZE is 4");
    CHECK(image_size(picture, CL_IMAGE_ROW_PITCH) >= W * 4, "CL_IMAGE_ROW_PITCH >= width * 4 (%zu)",
          image_size(picture, CL_IMAGE_ROW_PITCH));
    CHECK(image_size(picture, CL_IMAGE_SLICE_PITCH) == 0, "CL_IMAGE_SLICE_PITCH of a 2-D image is 0");
    CHECK(image_size(picture, CL_IMAGE_WIDTH) == W && image_size(picture, CL_IMAGE_HEIGHT) == H,
          "CL_IMAGE_WIDTH x CL_IMAGE_HEIGHT is %d x %d", W, H);
    CHECK(image_size(picture, CL_IMAGE_DEPTH) == 0 && image_size(picture, CL_IMAGE_ARRAY_SIZE) == 0,
          "CL_IMAGE_DEPTH and CL_IMAGE_ARRAY_SIZE of a 2-D image are 0");
    CL(clGetImageInfo(picture, CL_IMAGE_BUFFER, sizeof buffer, &buffer, NULL));
    CHECK(buffer == NULL, "CL_IMAGE_BUFFER is NULL");
    CL(clGetImageInfo(picture, CL_IMAGE_NUM_MIP_LEVELS, sizeof levels, &levels, NULL));
    CL(clGetImageInfo(picture, CL_IMAGE_NUM_SAMPLES, sizeof samples, &samples, NULL));
    CHECK(levels == 0 && samples == 0, "CL_IMAGE_NUM_MIP_LEVELS and CL_IMAGE_NUM_SAMPLES are 0");
    CL(clGetMemObjectInfo(picture, CL_MEM_TYPE, sizeof type, &type, NULL));
    CHECK(type == CL_MEM_OBJECT_IMAGE2D, "CL_MEM_TYPE is CL_MEM_OBJECT_IMAGE2D");
}

static void sampler_info(cl_sampler sampler)
{
    cl_bool normalized = CL_TRUE;
    cl_addressing_mode addressing = 0;
    cl_filter_mode filter = 0;
    cl_context context = NULL;
    cl_uint references = 0;
    CL(clGetSamplerInfo(sampler, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized, NULL));
    CL(clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof addressing, &addressing, NULL));
    CL(clGetSamplerInfo(sampler, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, NULL));
    CL(clGetSamplerInfo(sampler, CL_SAMPLER_CONTEXT, sizeof context, &context, NULL));
    CL(clGetSamplerInfo(sampler, CL_SAMPLER_REFERENCE_COUNT, sizeof references, &references, NULL));
    CHECK(normalized == CL_FALSE && addressing == CL_ADDRESS_CLAMP_TO_EDGE && filter == CL_FILTER_NEAREST,
          "clGetSamplerInfo: unnormalised, CLAMP_TO_EDGE, NEAREST as created");
    CHECK(context == env.context && references == 1, "clGetSamplerInfo: its context, reference count 1");
}

int main(void)
{
    static unsigned char host_picture[H * PADDED_PITCH];
    size_t host_pitch = PADDED_PITCH;
    static float brightness_expected[W * H], brightness[W * H], gradient_expected[W * H], gradient_out[W * H];
    cl_bool images = CL_FALSE;
    cl_program program;
    cl_kernel blur, gradient;
    cl_mem picture, bright, out;
    cl_sampler nearest, linear;
    cl_int err;
    int x, y, c, wrong;
    double worst;

    env = hosts_setup();
    CL(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
    if (!images) {
        /* This program is about images: a device without them fails it, unless told. */
        const char *allowed = getenv("HOSTS_ALLOW_NO_IMAGES");
        if (allowed != NULL && strcmp(allowed, "1") == 0) {
            hosts_skip("the device has no image support (HOSTS_ALLOW_NO_IMAGES=1)");
            return hosts_finish("images");
        }
        CHECK(images, "CL_DEVICE_IMAGE_SUPPORT is CL_TRUE (set HOSTS_ALLOW_NO_IMAGES=1 to skip)");
        return hosts_finish("images");
    }
    CHECK(format_supported(CL_MEM_READ_ONLY, CL_RGBA, CL_UNORM_INT8),
          "clGetSupportedImageFormats lists RGBA / UNORM_INT8 for reading (required)");
    CHECK(format_supported(CL_MEM_READ_WRITE, CL_RGBA, CL_FLOAT), "and RGBA / FLOAT for reading and writing (required)");
    if (!format_supported(CL_MEM_READ_WRITE, CL_R, CL_FLOAT)) {
        hosts_skip("the device has no CL_R / CL_FLOAT images");
        return hosts_finish("images");
    }

    if (hosts_platform_is(env.platform, "Oclgrind")) {
        hosts_skip("a padded image_row_pitch in clCreateImage (Oclgrind 21.10 ignores it): rows are packed");
        host_pitch = W * 4;
    }
    for (y = 0; y < H; y++)
        for (x = 0; x < (int)host_pitch; x++)
            host_picture[y * host_pitch + x] = x < W * 4 ? channel(x / 4, y, x % 4) : 0xcd;
    picture = make_image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, W, H, host_pitch, host_picture);
    bright = make_image(CL_MEM_READ_WRITE, CL_R, CL_FLOAT, W, H, 0, NULL);
    out = hosts_buffer(env.context, CL_MEM_WRITE_ONLY, sizeof gradient_out, NULL);
    image_info(picture);

    nearest = clCreateSampler(env.context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
    CL_OK(err, "clCreateSampler");
    linear = clCreateSampler(env.context, CL_TRUE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, &err);
    CL_OK(err, "clCreateSampler");
    sampler_info(nearest);

    program = hosts_build(env.context, env.device, source, "");
    blur = hosts_kernel(program, "blur_brightness");
    gradient = hosts_kernel(program, "gradient");

    /* Stage 1: blur and brightness. */
    {
        size_t global[2] = { W, H };
        CL(clSetKernelArg(blur, 0, sizeof picture, &picture));
        CL(clSetKernelArg(blur, 1, sizeof nearest, &nearest));
        CL(clSetKernelArg(blur, 2, sizeof bright, &bright));
        CL(clEnqueueNDRangeKernel(env.queue, blur, 2, NULL, global, NULL, 0, NULL, NULL));
    }
    {
        size_t origin[3] = { 0, 0, 0 }, region[3] = { W, H, 1 };
        CL(clEnqueueReadImage(env.queue, bright, CL_TRUE, origin, region, 0, 0, brightness, 0, NULL, NULL));
    }
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++) {
            float sum[3] = { 0, 0, 0 };
            int dx, dy;
            for (dy = -1; dy <= 1; dy++)
                for (dx = -1; dx <= 1; dx++)
                    for (c = 0; c < 3; c++)
                        sum[c] += channel(clamp_int(x + dx, 0, W - 1), clamp_int(y + dy, 0, H - 1), c) / 255.0f;
            brightness_expected[y * W + x] = (sum[0] / 9.0f + sum[1] / 9.0f + sum[2] / 9.0f) / 3.0f;
        }
    for (wrong = 0, worst = 0, x = 0; x < W * H; x++) {
        double error = fabs(brightness[x] - brightness_expected[x]);
        worst = error > worst ? error : worst;
        wrong += error > 1e-4;
    }
    CHECK(wrong == 0, "read_imagef + sampler blur, write_imagef to CL_R/CL_FLOAT: %d of %d pixels off (worst %.2g)",
          wrong, W * H, worst);

    /* Stage 2: gradient with normalised coordinates and linear filtering, at pixel centres. */
    {
        size_t global[2] = { W, H };
        cl_int width = W, height = H;
        CL(clSetKernelArg(gradient, 0, sizeof bright, &bright));
        CL(clSetKernelArg(gradient, 1, sizeof linear, &linear));
        CL(clSetKernelArg(gradient, 2, sizeof out, &out));
        CL(clSetKernelArg(gradient, 3, sizeof width, &width));
        CL(clSetKernelArg(gradient, 4, sizeof height, &height));
        CL(clEnqueueNDRangeKernel(env.queue, gradient, 2, NULL, global, NULL, 0, NULL, NULL));
        CL(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof gradient_out, gradient_out, 0, NULL, NULL));
    }
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++)
            gradient_expected[y * W + x] =
                0.5f * (brightness_expected[y * W + clamp_int(x + 1, 0, W - 1)] - brightness_expected[y * W + clamp_int(x - 1, 0, W - 1)]);
    for (wrong = 0, worst = 0, x = 0; x < W * H; x++) {
        /* Linear filtering may use few fraction bits (8 on many GPUs): a loose tolerance. */
        double error = fabs(gradient_out[x] - gradient_expected[x]);
        worst = error > worst ? error : worst;
        wrong += error > 2e-3;
    }
    CHECK(wrong == 0, "linear, normalised sampling of the CL_R/CL_FLOAT image: %d of %d gradients off (worst %.2g)",
          wrong, W * H, worst);

    /* Reading back the RGBA picture with a padded row pitch gives the bytes it was made from. */
    {
        static unsigned char back[H * (W * 4 + 20)];
        size_t origin[3] = { 0, 0, 0 }, region[3] = { W, H, 1 };
        memset(back, 0, sizeof back);
        CL(clEnqueueReadImage(env.queue, picture, CL_TRUE, origin, region, W * 4 + 20, 0, back, 0, NULL, NULL));
        for (wrong = 0, y = 0; y < H; y++)
            for (x = 0; x < W * 4; x++)
                wrong += back[y * (W * 4 + 20) + x] != host_picture[y * host_pitch + x];
        CHECK(wrong == 0, "clEnqueueReadImage(row pitch %d) returns the bytes given to clCreateImage (row pitch %zu): %d wrong",
              W * 4 + 20, host_pitch, wrong);
    }

    /* Write, copy, fill, map on a second RGBA image. */
    {
        static unsigned char expected[H * W * 4], back[H * W * 4], patch[6 * 10 * 4];
        cl_mem canvas = make_image(CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8, W, H, 0, NULL);
        size_t zero[3] = { 0, 0, 0 }, whole[3] = { W, H, 1 };
        size_t i;
        int py, px;

        /* Copy the whole picture, then write a 10 x 6 patch at (5, 3). */
        CL(clEnqueueCopyImage(env.queue, picture, canvas, zero, zero, whole, 0, NULL, NULL));
        for (y = 0; y < H; y++)
            for (x = 0; x < W * 4; x++)
                expected[y * W * 4 + x] = host_picture[y * host_pitch + x];
        for (i = 0; i < sizeof patch; i++)
            patch[i] = (unsigned char)(i * 5 + 1);
        {
            size_t origin[3] = { 5, 3, 0 }, region[3] = { 10, 6, 1 };
            CL(clEnqueueWriteImage(env.queue, canvas, CL_TRUE, origin, region, 10 * 4, 0, patch, 0, NULL, NULL));
            for (py = 0; py < 6; py++)
                memcpy(expected + ((3 + py) * W + 5) * 4, patch + py * 10 * 4, 10 * 4);
        }
        /* Copy a 7 x 4 block from (1, 1) of the picture to (28, 17) of the canvas. */
        {
            size_t from[3] = { 1, 1, 0 }, to[3] = { 28, 17, 0 }, region[3] = { 7, 4, 1 };
            CL(clEnqueueCopyImage(env.queue, picture, canvas, from, to, region, 0, NULL, NULL));
            for (py = 0; py < 4; py++)
                memcpy(expected + ((17 + py) * W + 28) * 4, host_picture + (1 + py) * host_pitch + 1 * 4, 7 * 4);
        }
        /* Fill a 4 x 5 block at (20, 2) with (0.2, 0.4, 0.6, 1.0). */
        {
            size_t origin[3] = { 20, 2, 0 }, region[3] = { 4, 5, 1 };
            cl_float color[4] = { 0.2f, 0.4f, 0.6f, 1.0f };
            static const unsigned char filled[4] = { 51, 102, 153, 255 };
            CL(clEnqueueFillImage(env.queue, canvas, color, origin, region, 0, NULL, NULL));
            for (py = 0; py < 5; py++)
                for (px = 0; px < 4; px++)
                    memcpy(expected + ((2 + py) * W + 20 + px) * 4, filled, 4);
        }
        CL(clEnqueueReadImage(env.queue, canvas, CL_TRUE, zero, whole, 0, 0, back, 0, NULL, NULL));
        for (wrong = 0, i = 0; i < sizeof back; i++)
            wrong += back[i] != expected[i];
        CHECK(wrong == 0, "clEnqueueCopyImage (whole, and a 7x4 block), WriteImage (10x6 patch), FillImage (4x5): %d bytes wrong",
              wrong);

        /* Map a block for reading: the row pitch it reports walks the block. */
        {
            size_t origin[3] = { 3, 4, 0 }, region[3] = { 12, 9, 1 }, row_pitch = 0, slice_pitch = 99;
            unsigned char *mapped = clEnqueueMapImage(env.queue, canvas, CL_TRUE, CL_MAP_READ, origin, region, &row_pitch,
                                                      &slice_pitch, 0, NULL, NULL, &err);
            CL_OK(err, "clEnqueueMapImage");
            CHECK(row_pitch >= 12 * 4, "clEnqueueMapImage reports a row pitch >= the block's width (%zu)", row_pitch);
            for (wrong = 0, py = 0; py < 9; py++)
                wrong += memcmp(mapped + py * row_pitch, expected + ((4 + py) * W + 3) * 4, 12 * 4) != 0;
            CHECK(wrong == 0, "a read map of a 12x9 block shows the image's pixels (%d rows wrong)", wrong);
            CL(clEnqueueUnmapMemObject(env.queue, canvas, mapped, 0, NULL, NULL));
        }
        /* Map a block for writing, change it, unmap: the image has the change. */
        {
            size_t origin[3] = { 30, 0, 0 }, region[3] = { 5, 3, 1 }, row_pitch = 0;
            unsigned char *mapped = clEnqueueMapImage(env.queue, canvas, CL_TRUE, CL_MAP_WRITE, origin, region, &row_pitch,
                                                      NULL, 0, NULL, NULL, &err);
            CL_OK(err, "clEnqueueMapImage");
            for (py = 0; py < 3; py++)
                for (px = 0; px < 5 * 4; px++) {
                    mapped[py * row_pitch + px] = (unsigned char)(200 + py * 20 + px);
                    expected[(py * W + 30) * 4 + px] = (unsigned char)(200 + py * 20 + px);
                }
            CL(clEnqueueUnmapMemObject(env.queue, canvas, mapped, 0, NULL, NULL));
            CL(clEnqueueReadImage(env.queue, canvas, CL_TRUE, zero, whole, 0, 0, back, 0, NULL, NULL));
            for (wrong = 0, i = 0; i < sizeof back; i++)
                wrong += back[i] != expected[i];
            CHECK(wrong == 0, "a write map of a 5x3 block changes exactly that block (%d bytes wrong)", wrong);
        }
        /* Image to buffer and back into a third image. */
        {
            cl_mem staging = hosts_buffer(env.context, CL_MEM_READ_WRITE, sizeof back, NULL);
            cl_mem copy = make_image(CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8, W, H, 0, NULL);
            CL(clEnqueueCopyImageToBuffer(env.queue, canvas, staging, zero, whole, 0, 0, NULL, NULL));
            CL(clEnqueueReadBuffer(env.queue, staging, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
            CHECK(memcmp(back, expected, sizeof back) == 0, "clEnqueueCopyImageToBuffer packs the image's rows");
            CL(clEnqueueCopyBufferToImage(env.queue, staging, copy, 0, zero, whole, 0, NULL, NULL));
            CL(clEnqueueReadImage(env.queue, copy, CL_TRUE, zero, whole, 0, 0, back, 0, NULL, NULL));
            CHECK(memcmp(back, expected, sizeof back) == 0, "clEnqueueCopyBufferToImage restores them into another image");
            CL(clReleaseMemObject(copy));
            CL(clReleaseMemObject(staging));
        }
        CL(clReleaseMemObject(canvas));
    }

    CL(clReleaseKernel(blur));
    CL(clReleaseKernel(gradient));
    CL(clReleaseProgram(program));
    CL(clReleaseSampler(nearest));
    CL(clReleaseSampler(linear));
    CL(clReleaseMemObject(picture));
    CL(clReleaseMemObject(bright));
    CL(clReleaseMemObject(out));
    hosts_teardown(&env);
    return hosts_finish("images");
}
