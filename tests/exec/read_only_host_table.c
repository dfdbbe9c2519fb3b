/* A lookup table in read-only memory (a `static const` array, placed in .rodata) handed to
 * the device with CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, as image filters do with their
 * tables. The kernel only reads it: nothing may be written back into the table, which would
 * fault. A second host-pointer buffer the kernel writes must show the results in the host's
 * own array after the launch. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const float table[4096] = {[0] = 1.0f, [1] = 2.0f, [4095] = 3.0f};

static const char *source =
    "__kernel void add_table(__global const float *table, __global float *out) {\n"
    "    int i = get_global_id(0);\n"
    "    out[i] += table[i];\n"
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
    cl_kernel kernel = clCreateKernel(program, "add_table", &err);
    static float out[4096];
    for (int i = 0; i < 4096; i++) out[i] = 10.0f;
    cl_mem in = clCreateBuffer(context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, sizeof table,
                               (void *)table, &err);
    if (err != CL_SUCCESS) return 1;
    cl_mem result = clCreateBuffer(context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, sizeof out,
                                   out, &err);
    clSetKernelArg(kernel, 0, sizeof in, &in);
    clSetKernelArg(kernel, 1, sizeof result, &result);
    size_t global = 4096;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(queue);
    /* The host's own array holds the results (a map would be the portable way to read it;
     * with CL_MEM_USE_HOST_PTR the device's copy is the host's array once the queue is done). */
    float *mapped = clEnqueueMapBuffer(queue, result, CL_TRUE, CL_MAP_READ, 0, sizeof out, 0,
                                       NULL, NULL, &err);
    printf("%g %g %g %g\n", mapped[0], mapped[1], mapped[2], mapped[4095]);
    int ok = mapped[0] == 11.0f && mapped[1] == 12.0f && mapped[2] == 10.0f &&
             mapped[4095] == 13.0f && out[4095] == 13.0f;
    clEnqueueUnmapMemObject(queue, result, mapped, 0, NULL, NULL);
    clFinish(queue);
    return ok ? 0 : 1;
}
