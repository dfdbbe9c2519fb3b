// EXPECT-EXIT: 0
// EXPECT-OUTPUT: queue: all checks passed
/* Command queues: in-order, out-of-order (skipped with a message where the device has no
 * out-of-order execution) and profiling queues; clGetCommandQueueInfo (context, device,
 * reference count, properties); clRetainCommandQueue/clReleaseCommandQueue; clFlush and
 * clFinish with non-blocking commands whose results are checked after the finish.
 */
#include "common.h"

static const char *source =
    "__kernel void scale(__global int *data, int factor)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    data[i] = data[i] * factor;\n"
    "}\n"
    "__kernel void add(__global const int *a, __global const int *b, __global int *sum)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    sum[i] = a[i] + b[i];\n"
    "}\n";

#define N 1024

static void check_queue_info(cl_command_queue queue, cl_context context, cl_device_id device,
                             cl_command_queue_properties expected, const char *what)
{
    cl_context owner = NULL;
    cl_device_id on = NULL;
    cl_uint count = 0;
    cl_command_queue_properties properties = 0;
    size_t size = 0;
    CL(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof owner, &owner, &size));
    CHECK(owner == context && size == sizeof owner, "%s: CL_QUEUE_CONTEXT is its context", what);
    CL(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof on, &on, &size));
    CHECK(on == device && size == sizeof on, "%s: CL_QUEUE_DEVICE is its device", what);
    CL(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, &size));
    CHECK(count == 1 && size == sizeof count, "%s: CL_QUEUE_REFERENCE_COUNT is 1", what);
    CL(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, &size));
    CHECK(properties == expected && size == sizeof properties,
          "%s: CL_QUEUE_PROPERTIES is 0x%llx (0x%llx)", what, (unsigned long long)expected,
          (unsigned long long)properties);
}

/* Writes 0..N-1 without blocking, scales by `factor` and reads back without blocking; the
 * results are only looked at after clFlush and clFinish. */
static void scale_without_blocking(cl_command_queue queue, cl_context context, cl_kernel scale,
                                   int factor, const char *what)
{
    static cl_int input[N], output[N];
    cl_mem buffer = hosts_buffer(context, CL_MEM_READ_WRITE, sizeof input, NULL);
    cl_event read_done;
    cl_int status = 0;
    size_t global = N;
    int i, wrong = 0;
    for (i = 0; i < N; i++) {
        input[i] = i;
        output[i] = -1;
    }
    CL(clEnqueueWriteBuffer(queue, buffer, CL_FALSE, 0, sizeof input, input, 0, NULL, NULL));
    CL(clSetKernelArg(scale, 0, sizeof buffer, &buffer));
    CL(clSetKernelArg(scale, 1, sizeof factor, &factor));
    CL(clEnqueueNDRangeKernel(queue, scale, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(queue, buffer, CL_FALSE, 0, sizeof output, output, 0, NULL, &read_done));
    CL(clFlush(queue));
    CL(clFinish(queue));
    CL(clGetEventInfo(read_done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    CHECK(status == CL_COMPLETE, "%s: after clFinish the last command is CL_COMPLETE", what);
    for (i = 0; i < N; i++)
        wrong += output[i] != i * factor;
    CHECK(wrong == 0, "%s: write, kernel, read without blocking; after clFinish all %d values are right (%d wrong)",
          what, N, wrong);
    CL(clReleaseEvent(read_done));
    CL(clReleaseMemObject(buffer));
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_program program;
    cl_kernel scale, add;
    cl_int err;
    cl_command_queue_properties supported = 0;

    hosts_first_device(&platform, &device);
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CL_OK(err, "clCreateContext");
    program = hosts_build(context, device, source, "");
    scale = hosts_kernel(program, "scale");
    add = hosts_kernel(program, "add");
    CL(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));

    /* In order. */
    {
        cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
        cl_uint count = 0;
        CHECK_ERR(err, CL_SUCCESS, "clCreateCommandQueue(in order)");
        CL_OK(err, "clCreateCommandQueue");
        check_queue_info(queue, context, device, 0, "in-order queue");
        scale_without_blocking(queue, context, scale, 3, "in-order queue");
        CL(clRetainCommandQueue(queue));
        CL(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, NULL));
        CHECK(count == 2, "clRetainCommandQueue makes the reference count 2");
        CL(clReleaseCommandQueue(queue));
        CL(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, NULL));
        CHECK(count == 1, "clReleaseCommandQueue makes it 1");
        CL(clFinish(queue)); /* an empty queue finishes at once */
        CL(clFlush(queue));
        CL(clReleaseCommandQueue(queue));
    }

    /* Profiling. */
    {
        cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
        CHECK_ERR(err, CL_SUCCESS, "clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE)");
        CL_OK(err, "clCreateCommandQueue");
        check_queue_info(queue, context, device, CL_QUEUE_PROFILING_ENABLE, "profiling queue");
        scale_without_blocking(queue, context, scale, 5, "profiling queue");
        CL(clReleaseCommandQueue(queue));
    }

    /* Out of order: independent commands, then one that waits for all of them. */
    if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        hosts_skip("the device has no out-of-order execution (CL_DEVICE_QUEUE_PROPERTIES)");
    } else {
        cl_command_queue_properties both = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
        cl_command_queue queue = clCreateCommandQueue(context, device, both, &err);
        static cl_int a[N], b[N], sum[N];
        cl_mem buffer_a, buffer_b, buffer_sum;
        cl_event written[2], added;
        size_t global = N;
        int i, wrong = 0;
        CHECK_ERR(err, CL_SUCCESS, "clCreateCommandQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)");
        CL_OK(err, "clCreateCommandQueue");
        check_queue_info(queue, context, device, both, "out-of-order queue");
        for (i = 0; i < N; i++) {
            a[i] = i;
            b[i] = 2 * i + 7;
            sum[i] = 0;
        }
        buffer_a = hosts_buffer(context, CL_MEM_READ_ONLY, sizeof a, NULL);
        buffer_b = hosts_buffer(context, CL_MEM_READ_ONLY, sizeof b, NULL);
        buffer_sum = hosts_buffer(context, CL_MEM_WRITE_ONLY, sizeof sum, NULL);
        CL(clEnqueueWriteBuffer(queue, buffer_a, CL_FALSE, 0, sizeof a, a, 0, NULL, &written[0]));
        CL(clEnqueueWriteBuffer(queue, buffer_b, CL_FALSE, 0, sizeof b, b, 0, NULL, &written[1]));
        CL(clSetKernelArg(add, 0, sizeof buffer_a, &buffer_a));
        CL(clSetKernelArg(add, 1, sizeof buffer_b, &buffer_b));
        CL(clSetKernelArg(add, 2, sizeof buffer_sum, &buffer_sum));
        CL(clEnqueueNDRangeKernel(queue, add, 1, NULL, &global, NULL, 2, written, &added));
        CL(clEnqueueReadBuffer(queue, buffer_sum, CL_TRUE, 0, sizeof sum, sum, 1, &added, NULL));
        for (i = 0; i < N; i++)
            wrong += sum[i] != 3 * i + 7;
        CHECK(wrong == 0, "out-of-order queue: a kernel waiting on two writes and a blocking read after it: %d wrong", wrong);
        scale_without_blocking(queue, context, scale, 7, "out-of-order queue (chained by clFinish only)");
        CL(clReleaseEvent(written[0]));
        CL(clReleaseEvent(written[1]));
        CL(clReleaseEvent(added));
        CL(clReleaseMemObject(buffer_a));
        CL(clReleaseMemObject(buffer_b));
        CL(clReleaseMemObject(buffer_sum));
        CL(clFinish(queue));
        CL(clReleaseCommandQueue(queue));
    }

    /* Two queues on one device share buffers: the second sees what the first finished. */
    {
        cl_command_queue first = clCreateCommandQueue(context, device, 0, &err);
        cl_command_queue second;
        cl_int value = 11, back = 0;
        cl_mem buffer = hosts_buffer(context, CL_MEM_READ_WRITE, sizeof value, NULL);
        size_t one = 1;
        cl_int factor = 4;
        CL_OK(err, "clCreateCommandQueue");
        second = clCreateCommandQueue(context, device, 0, &err);
        CL_OK(err, "clCreateCommandQueue");
        CL(clEnqueueWriteBuffer(first, buffer, CL_FALSE, 0, sizeof value, &value, 0, NULL, NULL));
        CL(clFinish(first));
        CL(clSetKernelArg(scale, 0, sizeof buffer, &buffer));
        CL(clSetKernelArg(scale, 1, sizeof factor, &factor));
        CL(clEnqueueNDRangeKernel(second, scale, 1, NULL, &one, NULL, 0, NULL, NULL));
        CL(clFinish(second));
        CL(clEnqueueReadBuffer(first, buffer, CL_TRUE, 0, sizeof back, &back, 0, NULL, NULL));
        CHECK(back == 44, "a second queue's kernel sees the first queue's finished write (%d)", back);
        CL(clReleaseMemObject(buffer));
        CL(clReleaseCommandQueue(first));
        CL(clReleaseCommandQueue(second));
    }

    CL(clReleaseKernel(scale));
    CL(clReleaseKernel(add));
    CL(clReleaseProgram(program));
    CL(clReleaseContext(context));
    return hosts_finish("queue");
}
