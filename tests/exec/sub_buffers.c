/* Sub-buffers across launches, the case a capture must keep as one buffer: one kernel writes a
 * whole buffer, a second reads one sub-buffer of it and writes another (two windows of the same
 * parent), a third scales a window that overlaps both, and the host reads the parent. Checks
 * every value against the same computation on the CPU; exits 0 when all agree. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define HALF 1024
#define TOTAL (2 * HALF + 64)
/* 96 floats: 384 bytes, a multiple of this platform's (and PoCL's) 128-byte alignment but not
 * of every GPU's. */
#define MIDDLE_AT 96
#define MIDDLE_LEN 1536

static const char *source =
    "__kernel void fill(__global float *p) {\n"
    "    int i = get_global_id(0);\n"
    "    p[i] = (float)((i * 13) % 17) - 4.0f;\n"
    "}\n"
    "__kernel void combine(__global const float *a, __global float *b) {\n"
    "    int i = get_global_id(0);\n"
    "    b[i] = 2.0f * a[i] + b[i];\n"
    "}\n"
    "__kernel void scale(__global float *d, float f) {\n"
    "    d[get_global_id(0)] *= f;\n"
    "}\n";

#define CHECK(call)                                                                  \
    do {                                                                             \
        cl_int err_ = (call);                                                        \
        if (err_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "%s failed with %d at line %d\n", #call, err_, __LINE__); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static cl_mem window(cl_mem parent, size_t first, size_t count, cl_int *err) {
    cl_buffer_region region = {first * sizeof(float), count * sizeof(float)};
    return clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, err);
}

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL));
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
    cl_kernel fill = clCreateKernel(program, "fill", &err);
    CHECK(err);
    cl_kernel combine = clCreateKernel(program, "combine", &err);
    CHECK(err);
    cl_kernel scale = clCreateKernel(program, "scale", &err);
    CHECK(err);

    static float expected[TOTAL], result[TOTAL];
    cl_mem parent = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof expected, NULL, &err);
    CHECK(err);
    cl_mem low = window(parent, 0, HALF, &err);
    CHECK(err);
    cl_mem high = window(parent, HALF, HALF, &err);
    CHECK(err);
    cl_mem middle = window(parent, MIDDLE_AT, MIDDLE_LEN, &err);
    CHECK(err);

    size_t total = TOTAL, half = HALF, middle_len = MIDDLE_LEN;
    CHECK(clSetKernelArg(fill, 0, sizeof parent, &parent));
    CHECK(clEnqueueNDRangeKernel(queue, fill, 1, NULL, &total, NULL, 0, NULL, NULL));
    for (int i = 0; i < TOTAL; i++) expected[i] = (float)((i * 13) % 17) - 4.0f;

    CHECK(clSetKernelArg(combine, 0, sizeof low, &low));
    CHECK(clSetKernelArg(combine, 1, sizeof high, &high));
    CHECK(clEnqueueNDRangeKernel(queue, combine, 1, NULL, &half, NULL, 0, NULL, NULL));
    for (int i = 0; i < HALF; i++) expected[HALF + i] = 2.0f * expected[i] + expected[HALF + i];

    float factor = -1.5f;
    CHECK(clSetKernelArg(scale, 0, sizeof middle, &middle));
    CHECK(clSetKernelArg(scale, 1, sizeof factor, &factor));
    CHECK(clEnqueueNDRangeKernel(queue, scale, 1, NULL, &middle_len, NULL, 0, NULL, NULL));
    for (int i = 0; i < MIDDLE_LEN; i++) expected[MIDDLE_AT + i] *= factor;

    CHECK(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < TOTAL; i++) bad += result[i] != expected[i];
    printf("sub_buffers: %d of %d values differ\n", bad, TOTAL);
    clReleaseMemObject(middle);
    clReleaseMemObject(high);
    clReleaseMemObject(low);
    clReleaseMemObject(parent);
    clReleaseKernel(fill);
    clReleaseKernel(combine);
    clReleaseKernel(scale);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return bad != 0;
}
