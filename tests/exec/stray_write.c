/* A kernel that writes one element past the end of its buffer (line 9 of the kernel source).
 * The program itself succeeds; the checkers must say where the kernel went wrong. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void fill(__global int *data, int n) {\n"
    "    int i = get_global_id(0);\n"
    "    data[i] = i;\n"
    "    if (i == n - 1) {\n"
    "        // The last work-item also writes past the end:\n"
    "        int past = i + 1;\n"
    "        // an off-by-one a host program cannot see.\n"
    "        past = past + 0;\n"
    "        data[past] = -1;\n"
    "    }\n"
    "}\n";

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel kernel = clCreateKernel(program, "fill", &err);
    int n = 128, data[128];
    cl_mem buffer = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof data, NULL, &err);
    clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
    clSetKernelArg(kernel, 1, sizeof n, &n);
    size_t global = 128;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
    printf("data[127] = %d\n", data[127]);
    return data[127] == 127 ? 0 : 1;
}
