/* A time loop of two kernels whose first takes the time step as an argument, as FDTD-style
 * programs are written: a capture must read it back as one host loop with a loop scalar.
 * Checks the result against the CPU; exits 0 when they agree. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

#define N 1024
#define STEPS 8

static const char *source =
    "__kernel void inject(__global int *field, int t) {\n"
    "    if (get_global_id(0) == 0) field[t % 16] += t;\n"
    "}\n"
    "__kernel void decay(__global int *field) {\n"
    "    int i = get_global_id(0);\n"
    "    field[i] = field[i] - field[i] / 4;\n"
    "}\n";

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    if (clGetPlatformIDs(1, &platform, NULL) || clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL)) return 1;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL)) return 1;
    cl_kernel inject = clCreateKernel(program, "inject", &err);
    cl_kernel decay = clCreateKernel(program, "decay", &err);
    static int field[N], ref[N];
    for (int i = 0; i < N; i++) field[i] = ref[i] = (i * 7919) % 1000;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof field, field, &err);
    clSetKernelArg(inject, 0, sizeof buffer, &buffer);
    clSetKernelArg(decay, 0, sizeof buffer, &buffer);
    size_t one = 1, n = N;
    for (int t = 0; t < STEPS; t++) {
        clSetKernelArg(inject, 1, sizeof t, &t);
        clEnqueueNDRangeKernel(queue, inject, 1, NULL, &one, NULL, 0, NULL, NULL);
        clEnqueueNDRangeKernel(queue, decay, 1, NULL, &n, NULL, 0, NULL, NULL);
        ref[t % 16] += t;
        for (int i = 0; i < N; i++) ref[i] = ref[i] - ref[i] / 4;
    }
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof field, field, 0, NULL, NULL);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += field[i] != ref[i];
    printf("time loop: %d of %d values differ\n", bad, N);
    return bad != 0;
}
