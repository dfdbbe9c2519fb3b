/* Prints what a program sees of the device's limits and what a launch needing 60 KiB of
 * local memory returns, so tests can check that an emulated device's limits hold. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void stage(__global float *out, __local float *tile) {\n"
    "    size_t l = get_local_id(0);\n"
    "    tile[l] = (float)l;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = tile[get_local_size(0) - 1 - l];\n"
    "}\n";

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS) return 1;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL) != CL_SUCCESS) return 1;
    cl_ulong local_mem = 0;
    size_t max_group = 0;
    char name[256] = {0};
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL);
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    printf("device %s\nlocal_mem %lu\nmax_work_group %zu\n", name, (unsigned long)local_mem, max_group);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel kernel = clCreateKernel(program, "stage", &err);
    cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 256 * sizeof(float), NULL, &err);
    clSetKernelArg(kernel, 0, sizeof out, &out);
    size_t global = 256, local = 256;
    clSetKernelArg(kernel, 1, 60 * 1024, NULL);
    printf("enqueue with 60 KiB of local memory: %d\n",
           clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    clSetKernelArg(kernel, 1, 256 * sizeof(float), NULL);
    printf("enqueue with 1 KiB of local memory: %d\n",
           clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    float result[256];
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL);
    printf("out[0] %g\n", result[0]);
    return 0;
}
