/* A host loop of the kind capture must cut into segments: two kernels alternate over two
 * buffers (one of them the host's own array through CL_MEM_USE_HOST_PTR), the host rewrites
 * one buffer halfway, and a sub-buffer is scaled at the end. Checks every value against the
 * same computation on the CPU; exits 0 when all agree. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define STEPS 6

static const char *source =
    "__kernel void smooth(__global const float *in, __global float *out, int n) {\n"
    "    int i = get_global_id(0);\n"
    "    float left = i > 0 ? in[i - 1] : in[i];\n"
    "    float right = i < n - 1 ? in[i + 1] : in[i];\n"
    "    out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;\n"
    "}\n"
    "__kernel void scale(__global float *data, float factor) {\n"
    "    data[get_global_id(0)] *= factor;\n"
    "}\n";

#define CHECK(call)                                                                  \
    do {                                                                             \
        cl_int err_ = (call);                                                        \
        if (err_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "%s failed with %d at line %d\n", #call, err_, __LINE__); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static void smooth_cpu(const float *in, float *out) {
    for (int i = 0; i < N; i++) {
        float left = i > 0 ? in[i - 1] : in[i];
        float right = i < N - 1 ? in[i + 1] : in[i];
        out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
    }
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
    cl_kernel smooth = clCreateKernel(program, "smooth", &err);
    CHECK(err);
    cl_kernel scale = clCreateKernel(program, "scale", &err);
    CHECK(err);

    static float host_a[N], b_init[N], ref_a[N], ref_b[N], result[N];
    for (int i = 0; i < N; i++) {
        host_a[i] = (float)((i * 37) % 101) / 7.0f;
        b_init[i] = 0.0f;
    }
    memcpy(ref_a, host_a, sizeof ref_a);
    memcpy(ref_b, b_init, sizeof ref_b);
    cl_mem a = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host_a, host_a, &err);
    CHECK(err);
    cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof b_init, b_init, &err);
    CHECK(err);
    int n = N;
    size_t global = N, local = 64;
    for (int step = 0; step < STEPS; step++) {
        if (step == STEPS / 2) {
            /* The host changes b between two launches: a capture must start a new segment. */
            for (int i = 0; i < N; i++) ref_b[i] = (float)(i % 5);
            CHECK(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, sizeof ref_b, ref_b, 0, NULL, NULL));
        }
        cl_mem in = step % 2 == 0 ? a : b, out = step % 2 == 0 ? b : a;
        CHECK(clSetKernelArg(smooth, 0, sizeof in, &in));
        CHECK(clSetKernelArg(smooth, 1, sizeof out, &out));
        CHECK(clSetKernelArg(smooth, 2, sizeof n, &n));
        CHECK(clEnqueueNDRangeKernel(queue, smooth, 1, NULL, &global, &local, 0, NULL, NULL));
        if (step % 2 == 0) smooth_cpu(ref_a, ref_b); else smooth_cpu(ref_b, ref_a);
    }
    cl_buffer_region region = {1024 * sizeof(float), 1024 * sizeof(float)};
    cl_mem window = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CHECK(err);
    float factor = 3.0f;
    size_t window_items = 1024;
    CHECK(clSetKernelArg(scale, 0, sizeof window, &window));
    CHECK(clSetKernelArg(scale, 1, sizeof factor, &factor));
    CHECK(clEnqueueNDRangeKernel(queue, scale, 1, NULL, &window_items, &local, 0, NULL, NULL));
    for (int i = 1024; i < 2048; i++) ref_a[i] *= factor;
    CHECK(clFinish(queue));

    /* USE_HOST_PTR: after clFinish the host array holds the kernels' results. */
    int bad = 0;
    for (int i = 0; i < N; i++) bad += host_a[i] != ref_a[i];
    CHECK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
    for (int i = 0; i < N; i++) bad += result[i] != ref_b[i];
    printf("pipeline: %d of %d values differ\n", bad, 2 * N);
    clReleaseMemObject(window);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(smooth);
    clReleaseKernel(scale);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return bad != 0;
}
