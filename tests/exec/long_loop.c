/* One work-item runs a loop of N iterations (argv[1]): a serial kernel, not a runaway one,
 * which a small step budget stops and --max-steps lets finish. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "__kernel void serial_count(__global int *out, int n) {\n"
    "    int sum = 0;\n"
    "    for (int i = 0; i < n; i++) sum += 1;\n"
    "    out[0] = sum;\n"
    "}\n";

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    clGetPlatformIDs(1, &platform, NULL);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel kernel = clCreateKernel(program, "serial_count", &err);
    int result = -1;
    cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof result, NULL, &err);
    clSetKernelArg(kernel, 0, sizeof out, &out);
    clSetKernelArg(kernel, 1, sizeof n, &n);
    size_t global = 1;
    cl_event done;
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, &done);
    /* A kernel the device stops fails after it was queued: its event's status says so. */
    cl_int status = CL_COMPLETE;
    if (err == CL_SUCCESS) {
        clWaitForEvents(1, &done);
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    }
    if (err != CL_SUCCESS || status < 0) {
        printf("launch failed: %d %d\n", err, status);
        return 4;
    }
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, &result, 0, NULL, NULL);
    printf("sum %d\n", result);
    return result == n ? 0 : 1;
}
