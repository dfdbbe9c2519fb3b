// EXPECT-EXIT: 0
// EXPECT-OUTPUT: threads: all checks passed
// EXEC-FLAGS: --races --uninit
// EXPECT-OUTPUT: no findings
/* Threads: four host threads, each with its own command queue on one shared context and its
 * own kernel object and buffers, run kernels at the same time; then two threads enqueue into
 * one shared queue. Every result is compared with the host's. (OpenCL 1.2 makes every call
 * thread-safe except clSetKernelArg on one kernel from several threads, so each thread has
 * its own cl_kernel.)
 *
 * Oclgrind 21.10 aborts when two threads' kernels run at once (an assertion in its
 * Context::notifyKernelBegin), so on Oclgrind each thread holds a lock while it enqueues and
 * waits; everywhere else the threads run freely.
 */
#include "common.h"

#include <pthread.h>

static const char *source =
    "__kernel void advance(__global int *data, int multiplier, int increment)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    data[i] = (data[i] * multiplier + increment) % 100003;\n"
    "}\n";

#define N 2048
#define STEPS 12

static struct hosts_env env;
static cl_program program;
static int serialise;
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;

static void enter(void)
{
    if (serialise)
        pthread_mutex_lock(&serial_lock);
}

static void leave(cl_command_queue queue)
{
    if (serialise) {
        clFinish(queue);
        pthread_mutex_unlock(&serial_lock);
    }
}

struct worker {
    int id;
    cl_command_queue queue; /* its own, or the shared one */
    int passed;
    char message[200];
};

static int initial(int id, int i)
{
    return (i * 7 + id * 1000) % 100003;
}

static void *work(void *argument)
{
    struct worker *w = argument;
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, "advance", &err);
    cl_int *data = malloc(N * sizeof *data);
    cl_int *expected = malloc(N * sizeof *expected);
    cl_mem buffer;
    size_t global = N;
    int i, s, wrong = 0;

    w->passed = 0;
    if (err != CL_SUCCESS) {
        snprintf(w->message, sizeof w->message, "clCreateKernel returned %s", cl_error_name(err));
        return NULL;
    }
    for (i = 0; i < N; i++)
        data[i] = expected[i] = initial(w->id, i);
    buffer = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *data, data, &err);
    if (err != CL_SUCCESS) {
        snprintf(w->message, sizeof w->message, "clCreateBuffer returned %s", cl_error_name(err));
        return NULL;
    }
    for (s = 0; s < STEPS; s++) {
        cl_int multiplier = 3 + w->id + s, increment = 11 * s + w->id;
        err = clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
        err |= clSetKernelArg(kernel, 1, sizeof multiplier, &multiplier);
        err |= clSetKernelArg(kernel, 2, sizeof increment, &increment);
        if (err != CL_SUCCESS) {
            snprintf(w->message, sizeof w->message, "clSetKernelArg failed in step %d", s);
            return NULL;
        }
        enter();
        err = clEnqueueNDRangeKernel(w->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
        leave(w->queue);
        if (err != CL_SUCCESS) {
            snprintf(w->message, sizeof w->message, "clEnqueueNDRangeKernel returned %s in step %d",
                     cl_error_name(err), s);
            return NULL;
        }
        for (i = 0; i < N; i++)
            expected[i] = (expected[i] * multiplier + increment) % 100003;
    }
    /* On a shared in-order queue the other thread's commands may sit between ours; the
     * blocking read still comes after all of ours. */
    enter();
    err = clEnqueueReadBuffer(w->queue, buffer, CL_TRUE, 0, N * sizeof *data, data, 0, NULL, NULL);
    leave(w->queue);
    if (err != CL_SUCCESS) {
        snprintf(w->message, sizeof w->message, "clEnqueueReadBuffer returned %s", cl_error_name(err));
        return NULL;
    }
    for (i = 0; i < N; i++)
        wrong += data[i] != expected[i];
    snprintf(w->message, sizeof w->message, "%d steps of %d items, %d wrong", STEPS, N, wrong);
    w->passed = wrong == 0;
    clReleaseMemObject(buffer);
    clReleaseKernel(kernel);
    free(data);
    free(expected);
    return NULL;
}

/* Runs `count` workers at once; queues[i] is worker i's queue. */
static void run_workers(int count, cl_command_queue *queues, int first_id, const char *how)
{
    pthread_t threads[4];
    struct worker workers[4];
    int i;
    for (i = 0; i < count; i++) {
        workers[i].id = first_id + i;
        workers[i].queue = queues[i];
        workers[i].passed = 0;
        strcpy(workers[i].message, "the thread did not run");
        if (pthread_create(&threads[i], NULL, work, &workers[i]) != 0) {
            fprintf(stderr, "FAIL: pthread_create\n");
            exit(1);
        }
    }
    for (i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
    for (i = 0; i < count; i++)
        CHECK(workers[i].passed, "%s, thread %d: %s", how, i, workers[i].message);
}

int main(void)
{
    cl_command_queue queues[4];
    cl_int err;
    int i;

    env = hosts_setup();
    program = hosts_build(env.context, env.device, source, "");
    serialise = hosts_platform_is(env.platform, "Oclgrind");
    if (serialise)
        hosts_skip("kernels of several threads at the same time (Oclgrind 21.10 aborts): threads take turns");

    for (i = 0; i < 4; i++) {
        queues[i] = clCreateCommandQueue(env.context, env.device, 0, &err);
        CL_OK(err, "clCreateCommandQueue");
    }
    run_workers(4, queues, 0, "four threads, a queue each");
    for (i = 0; i < 4; i++)
        CL(clReleaseCommandQueue(queues[i]));

    queues[0] = env.queue;
    queues[1] = env.queue;
    run_workers(2, queues, 10, "two threads sharing one queue");

    /* Once more with both patterns at the same time: 2 own queues + 2 on the shared one. */
    queues[0] = clCreateCommandQueue(env.context, env.device, 0, &err);
    CL_OK(err, "clCreateCommandQueue");
    queues[1] = clCreateCommandQueue(env.context, env.device, 0, &err);
    CL_OK(err, "clCreateCommandQueue");
    queues[2] = env.queue;
    queues[3] = env.queue;
    run_workers(4, queues, 20, "two own queues and one shared queue at once");
    CL(clReleaseCommandQueue(queues[0]));
    CL(clReleaseCommandQueue(queues[1]));

    CL(clReleaseProgram(program));
    hosts_teardown(&env);
    return hosts_finish("threads");
}
