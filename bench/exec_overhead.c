/* The platform's own cost per API call: times clSetKernelArg, clEnqueueWriteBuffer of 4 bytes
 * and launches of a one-work-item kernel, each many times, and prints microseconds per call.
 * Run under `clmap exec` and under `oclgrind` by bench/exec_vs_oclgrind.sh. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static const char *source = "__kernel void bump(__global int *x) { x[0] += 1; }\n";

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 2000;
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel kernel = clCreateKernel(program, "bump", &err);
    int zero = 0, result = 0;
    cl_mem x = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &err);
    double t0 = now();
    for (int i = 0; i < reps; i++) clSetKernelArg(kernel, 0, sizeof x, &x);
    double t1 = now();
    for (int i = 0; i < reps; i++) clEnqueueWriteBuffer(queue, x, CL_TRUE, 0, sizeof zero, &zero, 0, NULL, NULL);
    double t2 = now();
    size_t one = 1;
    for (int i = 0; i < reps; i++) clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL);
    clFinish(queue);
    double t3 = now();
    clEnqueueReadBuffer(queue, x, CL_TRUE, 0, sizeof result, &result, 0, NULL, NULL);
    printf("clSetKernelArg_us %.2f\nwrite_4_bytes_us %.2f\nlaunch_us %.2f\nlaunches %d\n",
           (t1 - t0) / reps * 1e6, (t2 - t1) / reps * 1e6, (t3 - t2) / reps * 1e6, result);
    return result == reps ? 0 : 1;
}
