/* Two programs built one after the other, the first released before the second is built, as
 * libraries with a program cache do: the second build may get the first one's memory. The
 * second launch also reads one element past its buffer, so its finding names launch 2. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *first = "__kernel void first(__global int *x) { x[get_global_id(0)] = 1; }\n";
static const char *second =
    "__kernel void second(__global int *x) {\n"
    "    int i = get_global_id(0);\n"
    "    x[i] = x[i + 1] + 1;\n"
    "}\n";

static int launch(cl_context context, cl_command_queue queue, cl_device_id device, cl_mem buffer,
                  const char *source, const char *name, size_t global) {
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) return 1;
    clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(queue);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    return 0;
}

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    int data[4];
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
    if (launch(context, queue, device, buffer, first, "first", 4)) return 1;
    if (launch(context, queue, device, buffer, second, "second", 4)) return 1;
    clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
    printf("%d %d %d\n", data[0], data[1], data[2]);
    return data[0] == 2 && data[1] == 2 && data[2] == 2 ? 0 : 1;
}
