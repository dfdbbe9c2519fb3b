/* An image filter of the kind capture must describe: a 2-D RGBA float picture is blurred
 * through a sampler (clamped to the edge, unnormalised coordinates) into a one-channel float
 * image, and a second kernel reads that image through another sampler and writes a buffer.
 * Checks every value against the same computation on the CPU; exits 0 when all agree. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define W 64
#define H 48

static const char *source =
    "__kernel void blur(__read_only image2d_t picture, sampler_t nearest, __write_only image2d_t grey) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float4 sum = (float4)(0.0f);\n"
    "    for (int dy = -1; dy <= 1; dy++)\n"
    "        for (int dx = -1; dx <= 1; dx++)\n"
    "            sum += read_imagef(picture, nearest, (int2)(x + dx, y + dy));\n"
    "    float v = (sum.x + sum.y + sum.z) / 27.0f;\n"
    "    write_imagef(grey, (int2)(x, y), (float4)(v, 0.0f, 0.0f, 1.0f));\n"
    "}\n"
    "__kernel void edges(__read_only image2d_t grey, sampler_t clamped, __global float *out) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float right = read_imagef(grey, clamped, (int2)(x + 1, y)).x;\n"
    "    float left = read_imagef(grey, clamped, (int2)(x - 1, y)).x;\n"
    "    out[y * get_global_size(0) + x] = right - left;\n"
    "}\n";

#define CHECK(call)                                                                  \
    do {                                                                             \
        cl_int err_ = (call);                                                        \
        if (err_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "%s failed with %d at line %d\n", #call, err_, __LINE__); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static float at(const float *p, int x, int y, int c, int clamp_to_edge) {
    if (clamp_to_edge) {
        x = x < 0 ? 0 : (x >= W ? W - 1 : x);
        y = y < 0 ? 0 : (y >= H ? H - 1 : y);
    } else if (x < 0 || x >= W || y < 0 || y >= H) {
        return 0.0f; /* CLK_ADDRESS_CLAMP: the border colour, 0 for CL_R */
    }
    return p[(y * W + x) * 4 + c];
}

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL));
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
    cl_kernel blur = clCreateKernel(program, "blur", &err);
    CHECK(err);
    cl_kernel edges = clCreateKernel(program, "edges", &err);
    CHECK(err);

    static float picture[W * H * 4], grey[W * H], result[W * H];
    for (int i = 0; i < W * H * 4; i++)
        picture[i] = (float)((i * 37) % 101) / 100.0f;

    cl_image_format rgba = { CL_RGBA, CL_FLOAT }, red = { CL_R, CL_FLOAT };
    cl_image_desc desc = { 0 };
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    cl_mem in = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &rgba, &desc, picture, &err);
    CHECK(err);
    cl_mem mid = clCreateImage(context, CL_MEM_READ_WRITE, &red, &desc, NULL, &err);
    CHECK(err);
    cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof result, NULL, &err);
    CHECK(err);
    cl_sampler nearest = clCreateSampler(context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
    CHECK(err);
    cl_sampler clamped = clCreateSampler(context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
    CHECK(err);

    size_t global[2] = { W, H }, local[2] = { 16, 4 };
    CHECK(clSetKernelArg(blur, 0, sizeof in, &in));
    CHECK(clSetKernelArg(blur, 1, sizeof nearest, &nearest));
    CHECK(clSetKernelArg(blur, 2, sizeof mid, &mid));
    CHECK(clEnqueueNDRangeKernel(queue, blur, 2, NULL, global, local, 0, NULL, NULL));
    CHECK(clSetKernelArg(edges, 0, sizeof mid, &mid));
    CHECK(clSetKernelArg(edges, 1, sizeof clamped, &clamped));
    CHECK(clSetKernelArg(edges, 2, sizeof out, &out));
    CHECK(clEnqueueNDRangeKernel(queue, edges, 2, NULL, global, local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float sum = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    for (int c = 0; c < 3; c++)
                        sum += at(picture, x + dx, y + dy, c, 1);
            grey[y * W + x] = sum / 27.0f;
        }
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float right = x + 1 < W ? grey[y * W + x + 1] : 0.0f;
            float left = x > 0 ? grey[y * W + x - 1] : 0.0f;
            if (fabsf(result[y * W + x] - (right - left)) > 1e-4f)
                wrong++;
        }
    printf("image_filter: %d of %d values differ\n", wrong, W * H);
    return wrong != 0;
}
