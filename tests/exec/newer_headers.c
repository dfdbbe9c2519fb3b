/* A program built against OpenCL 3.0 headers, as new code is: it creates its queue, buffer and
 * sampler from property lists, clones a kernel and reads the host timer. Each of these has a
 * 1.2 counterpart the platform maps it onto. Exits 0 when every call works. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n";

#define CHECK(call)                                                                  \
    do {                                                                             \
        cl_int err_ = (call);                                                        \
        if (err_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "%s failed with %d at line %d\n", #call, err_, __LINE__); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(void) {
    cl_int err;
    cl_platform_id platform;
    cl_device_id device;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL));
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, qprops, &err);
    CHECK(err);
    cl_command_queue_properties got = 0;
    CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof got, &got, NULL));
    if (!(got & CL_QUEUE_PROFILING_ENABLE)) return 2;
    int data[64];
    for (int i = 0; i < 64; i++) data[i] = i;
    cl_mem_properties none[] = {0};
    cl_mem buffer = clCreateBufferWithProperties(context, none, CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
    cl_kernel kernel = clCreateKernel(program, "twice", &err);
    CHECK(err);
    CHECK(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    /* The clone keeps the argument. */
    cl_kernel clone = clCloneKernel(kernel, &err);
    CHECK(err);
    size_t global = 64;
    CHECK(clEnqueueNDRangeKernel(queue, clone, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
    for (int i = 0; i < 64; i++)
        if (data[i] != 2 * i) return 3;
    cl_ulong t0 = 0, t1 = 0, device_t = 0;
    CHECK(clGetHostTimer(device, &t0));
    CHECK(clGetDeviceAndHostTimer(device, &device_t, &t1));
    if (t1 < t0) return 4;
    printf("newer headers: all calls work\n");
    return 0;
}
