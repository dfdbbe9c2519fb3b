// EXPECT-EXIT: 0
// EXPECT-OUTPUT: events: all checks passed
/* Events: execution status from queued to complete, clSetEventCallback (called for CL_COMPLETE
 * with its user data), user events (clCreateUserEvent, clSetUserEventStatus: a command waiting
 * on one does not run before it completes, and its buffer is unchanged until then),
 * clEnqueueMarkerWithWaitList, clEnqueueBarrierWithWaitList, wait lists across two queues,
 * profiling times (QUEUED <= SUBMIT <= START <= END), clWaitForEvents, clGetEventInfo,
 * clRetainEvent/clReleaseEvent.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <pthread.h>
#include <time.h>

static const char *source =
    "__kernel void fill(__global int *data, int value)\n"
    "{\n"
    "    data[get_global_id(0)] = value;\n"
    "}\n"
    "__kernel void add_from(__global const int *from, __global int *to, int amount)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    to[i] = from[i] + amount;\n"
    "}\n";

#define N 256

static struct hosts_env env;
static cl_kernel fill, add_from;

/* Callbacks may run on another thread: what they record is guarded. */
static pthread_mutex_t callback_lock = PTHREAD_MUTEX_INITIALIZER;
static int complete_callbacks;
static int wrong_callbacks;

static void CL_CALLBACK on_complete(cl_event event, cl_int status, void *user_data)
{
    (void)event;
    pthread_mutex_lock(&callback_lock);
    if (status == CL_COMPLETE && user_data == (void *)&complete_callbacks)
        complete_callbacks++;
    else
        wrong_callbacks++;
    pthread_mutex_unlock(&callback_lock);
}

/* clFlush while a command waits on a user event that this thread completes later: it must
 * only submit, never wait. Oclgrind 21.10's clFlush is clFinish and would wait forever, so
 * there the flush is left out (the commands are still issued by the later waits). */
static void flush_before_gate(cl_command_queue queue)
{
    if (hosts_platform_is(env.platform, "Oclgrind")) {
        hosts_skip("clFlush with a command gated on a user event (Oclgrind 21.10 would wait forever)");
        return;
    }
    CL(clFlush(queue));
}

/* Waits up to 5 s for `count` completion callbacks: they may come after clWaitForEvents returns. */
static int wait_for_callbacks(int count)
{
    int waited;
    struct timespec tick = { 0, 1000000 };
    for (waited = 0; waited < 5000; waited++) {
        int seen;
        pthread_mutex_lock(&callback_lock);
        seen = complete_callbacks;
        pthread_mutex_unlock(&callback_lock);
        if (seen >= count)
            return seen;
        nanosleep(&tick, NULL);
    }
    return complete_callbacks;
}

static cl_int status_of(cl_event event)
{
    cl_int status = 12345;
    CL(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    return status;
}

static cl_command_type type_of(cl_event event)
{
    cl_command_type type = 0;
    CL(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    return type;
}

static void enqueue_fill(cl_command_queue queue, cl_mem buffer, cl_int value, cl_uint waits, const cl_event *wait,
                         cl_event *event)
{
    size_t global = N;
    CL(clSetKernelArg(fill, 0, sizeof buffer, &buffer));
    CL(clSetKernelArg(fill, 1, sizeof value, &value));
    CL(clEnqueueNDRangeKernel(queue, fill, 1, NULL, &global, NULL, waits, wait, event));
}

static void enqueue_add(cl_command_queue queue, cl_mem from, cl_mem to, cl_int amount, cl_uint waits,
                        const cl_event *wait, cl_event *event)
{
    size_t global = N;
    CL(clSetKernelArg(add_from, 0, sizeof from, &from));
    CL(clSetKernelArg(add_from, 1, sizeof to, &to));
    CL(clSetKernelArg(add_from, 2, sizeof amount, &amount));
    CL(clEnqueueNDRangeKernel(queue, add_from, 1, NULL, &global, NULL, waits, wait, event));
}

/* Every element of `buffer` equals `value`; read through `queue`, blocking. */
static int holds(cl_command_queue queue, cl_mem buffer, cl_int value)
{
    cl_int data[N];
    int i;
    CL(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
    for (i = 0; i < N; i++)
        if (data[i] != value)
            return 0;
    return 1;
}

static void user_events_and_callbacks(void)
{
    cl_int err;
    cl_event gate = clCreateUserEvent(env.context, &err);
    cl_event filled, added;
    cl_command_queue other = clCreateCommandQueue(env.context, env.device, 0, &err);
    cl_mem first = hosts_buffer(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL);
    cl_mem second = hosts_buffer(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL);
    cl_int status;
    CL_OK(err, "clCreateCommandQueue");
    CL_OK(err, "clCreateUserEvent");

    CHECK(status_of(gate) == CL_SUBMITTED, "a new user event is CL_SUBMITTED");
    CHECK(type_of(gate) == CL_COMMAND_USER, "a user event's command type is CL_COMMAND_USER");
    {
        cl_command_queue queue = (cl_command_queue)&queue;
        CL(clGetEventInfo(gate, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL));
        CHECK(queue == NULL, "a user event has no command queue");
    }

    /* Both buffers start at 1, and that is finished before anything waits on the gate. */
    enqueue_fill(env.queue, first, 1, 0, NULL, NULL);
    enqueue_fill(env.queue, second, 1, 0, NULL, NULL);
    CL(clFinish(env.queue));

    /* `first` = 7 after the gate, on env.queue; `second` = first + 10, on the other queue,
     * after that fill: a wait list across queues. */
    enqueue_fill(env.queue, first, 7, 1, &gate, &filled);
    enqueue_add(other, first, second, 10, 1, &filled, &added);
    CL(clSetEventCallback(filled, CL_COMPLETE, on_complete, &complete_callbacks));
    CL(clSetEventCallback(added, CL_COMPLETE, on_complete, &complete_callbacks));
    CL(clSetEventCallback(gate, CL_COMPLETE, on_complete, &complete_callbacks));
    flush_before_gate(env.queue);
    flush_before_gate(other);

    status = status_of(filled);
    CHECK(status == CL_QUEUED || status == CL_SUBMITTED,
          "a kernel waiting on a user event stays queued or submitted (%d)", status);
    status = status_of(added);
    CHECK(status == CL_QUEUED || status == CL_SUBMITTED,
          "a kernel on another queue waiting on it stays queued or submitted (%d)", status);
    {
        /* A third queue reads both buffers: nothing it waits for is gated. */
        cl_command_queue reader = clCreateCommandQueue(env.context, env.device, 0, &err);
        CL_OK(err, "clCreateCommandQueue");
        CHECK(holds(reader, first, 1), "before the user event completes, the gated kernel's buffer is unchanged");
        CHECK(holds(reader, second, 1), "and so is the buffer of the kernel on the other queue");
        CL(clReleaseCommandQueue(reader));
    }
    pthread_mutex_lock(&callback_lock);
    CHECK(complete_callbacks == 0, "no completion callback ran before the user event completed");
    pthread_mutex_unlock(&callback_lock);

    CL(clSetUserEventStatus(gate, CL_COMPLETE));
    CHECK(status_of(gate) == CL_COMPLETE, "clSetUserEventStatus(CL_COMPLETE) completes the user event");
    CHECK_CODE(clSetUserEventStatus(gate, CL_COMPLETE), CL_INVALID_OPERATION);
    {
        cl_event both[2];
        both[0] = filled;
        both[1] = added;
        CHECK_CODE(clWaitForEvents(2, both), CL_SUCCESS);
    }
    CHECK(status_of(filled) == CL_COMPLETE && status_of(added) == CL_COMPLETE,
          "after clWaitForEvents both kernels are CL_COMPLETE");
    CHECK(holds(env.queue, first, 7), "the gated kernel ran: first = 7");
    CHECK(holds(other, second, 17), "the kernel on the other queue ran after it: second = first + 10 = 17");
    CHECK(wait_for_callbacks(3) == 3, "clSetEventCallback(CL_COMPLETE) ran for the user event and both kernels");
    pthread_mutex_lock(&callback_lock);
    CHECK(wrong_callbacks == 0, "every callback got CL_COMPLETE and its user data");
    pthread_mutex_unlock(&callback_lock);

    {
        cl_context context = NULL;
        cl_command_queue queue = NULL;
        cl_uint references = 0;
        CL(clGetEventInfo(added, CL_EVENT_CONTEXT, sizeof context, &context, NULL));
        CHECK(context == env.context, "CL_EVENT_CONTEXT is the context");
        CL(clGetEventInfo(added, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL));
        CHECK(queue == other, "CL_EVENT_COMMAND_QUEUE is the queue the command went to");
        CHECK(type_of(added) == CL_COMMAND_NDRANGE_KERNEL, "CL_EVENT_COMMAND_TYPE is CL_COMMAND_NDRANGE_KERNEL");
        CL(clRetainEvent(added));
        CL(clGetEventInfo(added, CL_EVENT_REFERENCE_COUNT, sizeof references, &references, NULL));
        /* The implementation may hold references of its own: at least ours. */
        CHECK(references >= 2, "after clRetainEvent the reference count is at least 2 (%u)", references);
        CL(clReleaseEvent(added));
    }
    CL(clReleaseEvent(gate));
    CL(clReleaseEvent(filled));
    CL(clReleaseEvent(added));
    CL(clReleaseMemObject(first));
    CL(clReleaseMemObject(second));
    CL(clReleaseCommandQueue(other));
}

static void markers_and_barriers(void)
{
    cl_int err;
    cl_command_queue_properties supported = 0;
    cl_command_queue queue;
    cl_mem a = hosts_buffer(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL);
    cl_mem b = hosts_buffer(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL);
    cl_event fill_a, fill_b, marker, barrier, everything, gate;
    int out_of_order;

    /* Out of order where the device has it: there only events and barriers order commands. */
    CL(clGetDeviceInfo(env.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));
    out_of_order = (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    queue = clCreateCommandQueue(env.context, env.device, out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
    CL_OK(err, "clCreateCommandQueue");
    printf("info: markers and barriers on an %s queue\n", out_of_order ? "out-of-order" : "in-order");

    gate = clCreateUserEvent(env.context, &err);
    CL_OK(err, "clCreateUserEvent");
    enqueue_fill(queue, a, 3, 1, &gate, &fill_a);
    enqueue_fill(queue, b, 4, 0, NULL, &fill_b);
    {
        cl_event both[2];
        both[0] = fill_a;
        both[1] = fill_b;
        CL(clEnqueueMarkerWithWaitList(queue, 2, both, &marker));
    }
    CHECK(type_of(marker) == CL_COMMAND_MARKER, "a marker's command type is CL_COMMAND_MARKER");
    flush_before_gate(queue);
    CHECK(status_of(marker) != CL_COMPLETE, "a marker waiting on a gated kernel is not complete");
    CL(clSetUserEventStatus(gate, CL_COMPLETE));
    CL(clWaitForEvents(1, &marker));
    CHECK(status_of(fill_a) == CL_COMPLETE && status_of(fill_b) == CL_COMPLETE,
          "when the marker completes, both events of its wait list are complete");

    /* A barrier: the kernel after it sees what the kernel before it wrote. */
    enqueue_fill(queue, a, 20, 0, NULL, NULL);
    CL(clEnqueueBarrierWithWaitList(queue, 0, NULL, &barrier));
    CHECK(type_of(barrier) == CL_COMMAND_BARRIER, "a barrier's command type is CL_COMMAND_BARRIER");
    enqueue_add(queue, a, b, 2, 0, NULL, NULL);
    /* A marker with no wait list waits for everything enqueued before it. */
    CL(clEnqueueMarkerWithWaitList(queue, 0, NULL, &everything));
    CL(clWaitForEvents(1, &everything));
    if (hosts_platform_is(env.platform, "Oclgrind"))
        hosts_skip("a marker without a wait list waits for an earlier barrier (not so in Oclgrind 21.10: %d)",
                   status_of(barrier));
    else
        CHECK(status_of(barrier) == CL_COMPLETE, "the barrier is complete when a later marker is (%d)",
              status_of(barrier));
    CHECK(holds(queue, b, 22), "the kernel after the barrier read what the kernel before it wrote (b = 22)");
    CL(clFinish(queue));
    CHECK(status_of(barrier) == CL_COMPLETE && status_of(everything) == CL_COMPLETE,
          "after clFinish the barrier and the marker are complete");

    CL(clReleaseEvent(gate));
    CL(clReleaseEvent(fill_a));
    CL(clReleaseEvent(fill_b));
    CL(clReleaseEvent(marker));
    CL(clReleaseEvent(barrier));
    CL(clReleaseEvent(everything));
    CL(clReleaseMemObject(a));
    CL(clReleaseMemObject(b));
    CL(clReleaseCommandQueue(queue));
}

static void profiling(void)
{
    cl_int err;
    cl_command_queue queue = clCreateCommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL);
    cl_event kernel_event, write_event, plain_event, user;
    cl_ulong queued = 0, submitted = 0, started = 0, ended = 0;
    cl_int data[N] = { 0 };
    CL_OK(err, "clCreateCommandQueue");

    CL(clEnqueueWriteBuffer(queue, buffer, CL_FALSE, 0, sizeof data, data, 0, NULL, &write_event));
    enqueue_fill(queue, buffer, 5, 0, NULL, &kernel_event);
    CL(clWaitForEvents(1, &kernel_event));
    CL(clGetEventProfilingInfo(kernel_event, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, NULL));
    CL(clGetEventProfilingInfo(kernel_event, CL_PROFILING_COMMAND_SUBMIT, sizeof submitted, &submitted, NULL));
    CL(clGetEventProfilingInfo(kernel_event, CL_PROFILING_COMMAND_START, sizeof started, &started, NULL));
    CL(clGetEventProfilingInfo(kernel_event, CL_PROFILING_COMMAND_END, sizeof ended, &ended, NULL));
    CHECK(queued > 0 && queued <= submitted && submitted <= started && started <= ended,
          "kernel profiling: 0 < QUEUED <= SUBMIT <= START <= END (%llu, +%llu, +%llu, +%llu ns)",
          (unsigned long long)queued, (unsigned long long)(submitted - queued),
          (unsigned long long)(started - submitted), (unsigned long long)(ended - started));
    {
        cl_ulong write_end = 0;
        CL(clGetEventProfilingInfo(write_event, CL_PROFILING_COMMAND_END, sizeof write_end, &write_end, NULL));
        CHECK(write_end <= started, "in order: the write before the kernel ended before the kernel started");
    }

    /* No profiling on a queue without the flag, nor for user events. */
    enqueue_fill(env.queue, buffer, 6, 0, NULL, &plain_event);
    CL(clWaitForEvents(1, &plain_event));
    if (hosts_platform_is(env.platform, "Oclgrind"))
        hosts_skip("profiling information on a queue without profiling (Oclgrind 21.10 gives some)");
    else
        CHECK_CODE(clGetEventProfilingInfo(plain_event, CL_PROFILING_COMMAND_START, sizeof started, &started, NULL),
                   CL_PROFILING_INFO_NOT_AVAILABLE);
    user = clCreateUserEvent(env.context, &err);
    CL_OK(err, "clCreateUserEvent");
    CL(clSetUserEventStatus(user, CL_COMPLETE));
    if (hosts_platform_is(env.platform, "Oclgrind"))
        hosts_skip("profiling information of a user event (Oclgrind 21.10 gives some)");
    else
        CHECK_CODE(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, sizeof started, &started, NULL),
                   CL_PROFILING_INFO_NOT_AVAILABLE);

    CL(clReleaseEvent(user));
    CL(clReleaseEvent(plain_event));
    CL(clReleaseEvent(write_event));
    CL(clReleaseEvent(kernel_event));
    CL(clReleaseMemObject(buffer));
    CL(clReleaseCommandQueue(queue));
}

int main(void)
{
    cl_program program;
    env = hosts_setup();
    program = hosts_build(env.context, env.device, source, "");
    fill = hosts_kernel(program, "fill");
    add_from = hosts_kernel(program, "add_from");

    user_events_and_callbacks();
    markers_and_barriers();
    profiling();

    CL(clReleaseKernel(fill));
    CL(clReleaseKernel(add_from));
    CL(clReleaseProgram(program));
    hosts_teardown(&env);
    return hosts_finish("events");
}
