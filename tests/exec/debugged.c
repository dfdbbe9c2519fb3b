/* A program to debug under `clmap exec -i` (and `oclgrind -i`): it launches one kernel twice
 * over 8 work-items in work-groups of 4, and between the launches reads the second launch's
 * factor from its own standard input, the stream the debugger reads its commands from.
 *   data[i] = i + 1;  launch 1, factor 2: data[i] = 2 * (i + 1) + i = 3i + 2;
 *   launch 2, factor F: data[i] = F * (3i + 2) + i.
 * Prints "factor F" and "data: ..." and exits 0, or names the call that failed and exits 1. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "kernel void scale(global int *data, int factor)\n"
    "{\n"
    "  int i = get_global_id(0);\n"
    "  int v = data[i];\n"
    "  int scaled = v * factor;\n"
    "  data[i] = scaled + i;\n"
    "}\n";

#define N 8

static int fail(const char *what, cl_int err) {
    printf("%s failed: %d\n", what, err);
    return 1;
}

static cl_int launch(cl_command_queue queue, cl_kernel kernel, cl_mem data, cl_int factor) {
    size_t global = N, local = 4;
    cl_int err = clSetKernelArg(kernel, 0, sizeof data, &data);
    err |= clSetKernelArg(kernel, 1, sizeof factor, &factor);
    err |= clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    return err | clFinish(queue);
}

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    cl_int values[N];
    for (int i = 0; i < N; i++) values[i] = i + 1;
    if ((err = clGetPlatformIDs(1, &platform, NULL))) return fail("clGetPlatformIDs", err);
    if ((err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL)))
        return fail("clGetDeviceIDs", err);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err) return fail("clCreateContext", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    if (err) return fail("clCreateCommandQueue", err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (err) return fail("clCreateProgramWithSource", err);
    if ((err = clBuildProgram(program, 1, &device, "", NULL, NULL)))
        return fail("clBuildProgram", err);
    cl_kernel kernel = clCreateKernel(program, "scale", &err);
    if (err) return fail("clCreateKernel", err);
    cl_mem data = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 sizeof values, values, &err);
    if (err) return fail("clCreateBuffer", err);

    if ((err = launch(queue, kernel, data, 2))) return fail("the first launch", err);
    int factor = 1;
    if (scanf("%d", &factor) != 1) factor = 1;
    printf("factor %d\n", factor);
    if ((err = launch(queue, kernel, data, factor))) return fail("the second launch", err);
    err = clEnqueueReadBuffer(queue, data, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL);
    if (err) return fail("clEnqueueReadBuffer", err);
    printf("data:");
    for (int i = 0; i < N; i++) printf(" %d", values[i]);
    printf("\n");
    clReleaseMemObject(data);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return 0;
}
