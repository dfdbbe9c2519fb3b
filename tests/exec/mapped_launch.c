/* What a program written against Oclgrind relies on, run under `clmap exec --oclgrind-output`:
 *  - the platform answers to Oclgrind's name, and kernel printf output comes in order with
 *    the host's own printf output, also when standard output is a pipe;
 *  - kernels launched on buffers the host still has mapped are reported (a load from a region
 *    mapped for writing, a store to any mapped region), and the mapped memory behaves as a view
 *    of the buffer, as on Oclgrind: the kernel sees what the host wrote into a write mapping,
 *    and the host sees the kernel's results in a mapping it has not unmapped;
 *  - a mapped pointer stays readable after unmapping;
 *  - a store to a CL_MEM_READ_ONLY buffer is reported;
 *  - a CL_RGB / CL_FLOAT image created as a 2-D image is accepted by an image2d_array_t
 *    parameter as an array of one layer;
 *  - a kernel whose work-items all store their id to one place races (reported only when
 *    races are checked, e.g. by Oclgrind's OCLGRIND_DATA_RACES=1).
 * Prints "checks: N failed" and exits with the number of failed checks. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

static const char *source =
    "__kernel void scale(__global const float *in, __global float *out, float k) {\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i] * k;\n"
    "}\n"
    "__kernel void stamp(__global int *flags) {\n"
    "    flags[get_global_id(0)] = 7;\n"
    "}\n"
    "__kernel void last_wins(__global int *slot) {\n"
    "    slot[0] = get_global_id(0);\n"
    "}\n"
    "__kernel void hello(int tag) {\n"
    "    printf(\"kernel says %d\\n\", tag);\n"
    "}\n"
    "__kernel void layer_copy(__read_only image2d_array_t src, __global float4 *dst) {\n"
    "    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    dst[y * get_image_width(src) + x] = read_imagef(src, s, (int4)(x, y, 0, 0));\n"
    "}\n";

static int failed = 0;

static void check(int ok, const char *what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failed++;
}

#define N 8

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    char name[64] = "";
    clGetPlatformIDs(1, &platform, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL);
    printf("platform %s\n", name);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 100;
    size_t global = N;

    /* printf order: host, kernel, host. */
    cl_kernel hello = clCreateKernel(program, "hello", &err);
    int tag = 42;
    clSetKernelArg(hello, 0, sizeof tag, &tag);
    size_t one = 1;
    printf("host before\n");
    clEnqueueNDRangeKernel(queue, hello, 1, NULL, &one, NULL, 0, NULL, NULL);
    clFinish(queue);
    printf("host after\n");

    /* A kernel on buffers still mapped: `in` mapped for writing, `out` for reading. */
    cl_kernel scale = clCreateKernel(program, "scale", &err);
    cl_mem in = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    float *h_in = clEnqueueMapBuffer(queue, in, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                     N * sizeof(float), 0, NULL, NULL, &err);
    float *h_out = clEnqueueMapBuffer(queue, out, CL_TRUE, CL_MAP_READ, 0, N * sizeof(float), 0,
                                      NULL, NULL, &err);
    for (int i = 0; i < N; i++) h_in[i] = (float)(i + 1);
    float k = 3.0f;
    clSetKernelArg(scale, 0, sizeof in, &in);
    clSetKernelArg(scale, 1, sizeof out, &out);
    clSetKernelArg(scale, 2, sizeof k, &k);
    clEnqueueNDRangeKernel(queue, scale, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(queue);
    check(h_out[N - 1] == 3.0f * N, "the kernel's results show in a mapping not unmapped");
    clEnqueueUnmapMemObject(queue, in, h_in, 0, NULL, NULL);
    clEnqueueUnmapMemObject(queue, out, h_out, 0, NULL, NULL);
    clFinish(queue);
    check(h_in[2] == 3.0f, "a write mapping stays readable after unmapping");

    /* The same launch after unmapping: no finding, results through a read. */
    float results[N];
    clEnqueueNDRangeKernel(queue, scale, 1, NULL, &global, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof results, results, 0, NULL, NULL);
    check(results[3] == 12.0f, "the unmapped buffers hold what the host wrote");

    /* Mapped for writing, then for reading, then unmapped once by the pointer both maps
     * returned: the earlier (write) mapping ends, as where maps point into the buffer, so the
     * launch that follows reads a region mapped only for reading (no finding) and sees what
     * the host wrote. */
    float *w = clEnqueueMapBuffer(queue, in, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                  N * sizeof(float), 0, NULL, NULL, &err);
    for (int i = 0; i < N; i++) w[i] = (float)(10 + i);
    float *r = clEnqueueMapBuffer(queue, in, CL_TRUE, CL_MAP_READ, 0, N * sizeof(float), 0, NULL,
                                  NULL, &err);
    check(r == w && r[1] == 11.0f, "a region mapped twice gets the same memory");
    clEnqueueUnmapMemObject(queue, in, r, 0, NULL, NULL);
    clEnqueueNDRangeKernel(queue, scale, 1, NULL, &global, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof results, results, 0, NULL, NULL);
    check(results[1] == 33.0f, "the kernel sees the host's writes through the remapped region");
    clEnqueueUnmapMemObject(queue, in, w, 0, NULL, NULL);
    clFinish(queue);

    /* A store to a read-only buffer. */
    cl_kernel stamp = clCreateKernel(program, "stamp", &err);
    cl_mem flags = clCreateBuffer(context, CL_MEM_READ_ONLY, N * sizeof(int), NULL, &err);
    clSetKernelArg(stamp, 0, sizeof flags, &flags);
    clEnqueueNDRangeKernel(queue, stamp, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(queue);

    /* An RGB float 2-D image read as an array of one layer. */
    cl_image_format format = {CL_RGB, CL_FLOAT};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 4;
    desc.image_height = 2;
    float texels[4 * 2 * 3];
    for (int i = 0; i < 4 * 2 * 3; i++) texels[i] = (float)i;
    cl_mem image = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                                 texels, &err);
    check(err == CL_SUCCESS, "a CL_RGB / CL_FLOAT image is created");
    cl_mem copied = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 8 * 4 * sizeof(float), NULL, &err);
    cl_kernel layer_copy = clCreateKernel(program, "layer_copy", &err);
    clSetKernelArg(layer_copy, 0, sizeof image, &image);
    clSetKernelArg(layer_copy, 1, sizeof copied, &copied);
    size_t grid[2] = {4, 2};
    err = clEnqueueNDRangeKernel(queue, layer_copy, 2, NULL, grid, NULL, 0, NULL, NULL);
    float pixels[8 * 4];
    clEnqueueReadBuffer(queue, copied, CL_TRUE, 0, sizeof pixels, pixels, 0, NULL, NULL);
    /* Texel (1, 1) is texel 5: channels 15, 16, 17 and alpha 1. */
    check(err == CL_SUCCESS && pixels[5 * 4] == 15.0f && pixels[5 * 4 + 2] == 17.0f &&
              pixels[5 * 4 + 3] == 1.0f,
          "a 2-D image is read through an image2d_array_t parameter");

    cl_kernel last_wins = clCreateKernel(program, "last_wins", &err);
    cl_mem slot = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(int), NULL, &err);
    clSetKernelArg(last_wins, 0, sizeof slot, &slot);
    size_t two = 2;
    clEnqueueNDRangeKernel(queue, last_wins, 1, NULL, &two, &two, 0, NULL, NULL);
    clFinish(queue);

    printf("checks: %d failed\n", failed);
    return failed;
}
