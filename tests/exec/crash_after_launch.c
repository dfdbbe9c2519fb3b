/* A program that launches a kernel and then crashes: clmap exec must still report the launch,
 * and exit with the status a shell gives a program killed by SIGSEGV (128 + 11). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <signal.h>
#include <stdio.h>

static const char *source = "__kernel void k(__global int *x) { x[get_global_id(0)] = 1; }\n";

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    clBuildProgram(program, 1, &device, "", NULL, NULL);
    cl_kernel kernel = clCreateKernel(program, "k", &err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
    size_t global = 64;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(queue);
    fflush(stdout);
    raise(SIGSEGV);
    return 0;
}
