/* A program written for a vendor's compiler: it passes options clmap does not know (-O3, a
 * vendor flag) beside standard ones, and gives the source length counting its terminating NUL.
 * The build must succeed, say in its log what it ignored, and honour the -D it was given. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

static const char *source = "__kernel void k(__global int *x) { x[get_global_id(0)] = SCALE * 2; }\n";

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    size_t length = strlen(source) + 1;
    cl_program program = clCreateProgramWithSource(context, 1, &source, &length, &err);
    err = clBuildProgram(program, 1, &device, "-O3 -DSCALE=21 -cl-mad-enable -nv-line-info", NULL, NULL);
    char log[4096] = {0};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    printf("build: %d\nlog: %s\n", err, log);
    if (err != CL_SUCCESS) return 1;
    cl_kernel kernel = clCreateKernel(program, "k", &err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL, &err);
    clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
    size_t global = 4;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    int out[4];
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    printf("x[3] = %d\n", out[3]);
    return out[3] == 42 ? 0 : 2;
}
