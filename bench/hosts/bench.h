/* What the benchmark programs share: the GPU they ask for, the kernel file they read from the
 * current directory, timing, and the comparison with the host's computation.
 *
 * Each program follows the shape of the PolyBench/GPU programs people run: it asks for
 * CL_DEVICE_TYPE_GPU and nothing else, fills its inputs with fixed formulas, runs its kernels,
 * computes the same thing on the host, counts the values whose difference is above a percent
 * threshold, prints both times and exits 0 when nothing differs.
 */
#ifndef CLMAP_BENCH_H
#define CLMAP_BENCH_H

#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Values below this magnitude on both sides compare equal: differences of tiny numbers left by
 * cancellation say nothing about the kernel. */
#define BENCH_ABSOLUTE_FLOOR 0.01
#define BENCH_PERCENT_THRESHOLD 0.05

#define BENCH_CHECK(call) \
    do { \
        cl_int bench_code_ = (call); \
        if (bench_code_ != CL_SUCCESS) { \
            fprintf(stderr, "%s:%d: %s failed with OpenCL error %d\n", __FILE__, __LINE__, #call, (int)bench_code_); \
            exit(1); \
        } \
    } while (0)

struct bench {
    const char *name;
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
};

static inline double bench_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* argv[index] as a positive size, or `fallback` when absent. */
static inline int bench_size(int argc, char **argv, int index, int fallback)
{
    int value;
    if (argc <= index)
        return fallback;
    value = atoi(argv[index]);
    if (value <= 0) {
        fprintf(stderr, "%s: sizes are positive integers, not `%s`\n", argv[0], argv[index]);
        exit(2);
    }
    return value;
}

/* The whole of `path`, NUL-terminated; exits when it cannot be read. */
static inline char *bench_read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    long length;
    char *text;
    if (file == NULL) {
        fprintf(stderr, "cannot open %s (run the program in the directory that holds it)\n", path);
        exit(1);
    }
    fseek(file, 0, SEEK_END);
    length = ftell(file);
    fseek(file, 0, SEEK_SET);
    text = malloc((size_t)length + 1);
    if (fread(text, 1, (size_t)length, file) != (size_t)length) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    text[length] = '\0';
    fclose(file);
    return text;
}

/* The first platform's first GPU, a context and queue on it, and `name`.cl built. */
static inline struct bench bench_open(const char *name)
{
    struct bench b;
    cl_int err;
    char path[256], device_name[256] = "";
    const char *source;
    cl_uint platforms = 0;

    b.name = name;
    BENCH_CHECK(clGetPlatformIDs(1, &b.platform, &platforms));
    err = clGetDeviceIDs(b.platform, CL_DEVICE_TYPE_GPU, 1, &b.device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "%s: no GPU on the first OpenCL platform (error %d)\n", name, (int)err);
        exit(1);
    }
    clGetDeviceInfo(b.device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL);
    printf("%s: device %s\n", name, device_name);
    b.context = clCreateContext(NULL, 1, &b.device, NULL, NULL, &err);
    BENCH_CHECK(err);
    b.queue = clCreateCommandQueue(b.context, b.device, 0, &err);
    BENCH_CHECK(err);

    snprintf(path, sizeof path, "%s.cl", name);
    source = bench_read_file(path);
    b.program = clCreateProgramWithSource(b.context, 1, &source, NULL, &err);
    BENCH_CHECK(err);
    err = clBuildProgram(b.program, 1, &b.device, NULL, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t size = 0;
        char *log;
        clGetProgramBuildInfo(b.program, b.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
        log = malloc(size + 1);
        clGetProgramBuildInfo(b.program, b.device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
        log[size] = '\0';
        fprintf(stderr, "%s: building %s failed (error %d):\n%s\n", name, path, (int)err, log);
        exit(1);
    }
    free((char *)source);
    return b;
}

static inline cl_kernel bench_kernel(struct bench *b, const char *name)
{
    cl_int err;
    cl_kernel kernel = clCreateKernel(b->program, name, &err);
    BENCH_CHECK(err);
    return kernel;
}

/* A device buffer of `count` floats, filled from `host` when it is not NULL. */
static inline cl_mem bench_buffer(struct bench *b, size_t count, const float *host)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(b->context, CL_MEM_READ_WRITE, count * sizeof(float), NULL, &err);
    BENCH_CHECK(err);
    if (host != NULL)
        BENCH_CHECK(clEnqueueWriteBuffer(b->queue, buffer, CL_TRUE, 0, count * sizeof(float), host, 0, NULL, NULL));
    return buffer;
}

static inline void bench_read(struct bench *b, cl_mem buffer, size_t count, float *host)
{
    BENCH_CHECK(clEnqueueReadBuffer(b->queue, buffer, CL_TRUE, 0, count * sizeof(float), host, 0, NULL, NULL));
}

static inline void bench_arg(cl_kernel kernel, cl_uint index, size_t size, const void *value)
{
    BENCH_CHECK(clSetKernelArg(kernel, index, size, value));
}

/* `size` rounded up to a multiple of `step`. */
static inline size_t bench_round_up(size_t size, size_t step)
{
    return (size + step - 1) / step * step;
}

/* One work-item per element of a `count`-long vector, groups of 256. */
static inline void bench_launch_1d(struct bench *b, cl_kernel kernel, size_t count)
{
    size_t local = 256;
    size_t global = bench_round_up(count, local);
    BENCH_CHECK(clEnqueueNDRangeKernel(b->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
}

/* One work-item per element of a `columns` x `rows` grid, groups of 32 x 8. */
static inline void bench_launch_2d(struct bench *b, cl_kernel kernel, size_t columns, size_t rows)
{
    size_t local[2] = { 32, 8 };
    size_t global[2];
    global[0] = bench_round_up(columns, local[0]);
    global[1] = bench_round_up(rows, local[1]);
    BENCH_CHECK(clEnqueueNDRangeKernel(b->queue, kernel, 2, NULL, global, local, 0, NULL, NULL));
}

/* How far apart two values are, in percent of the larger; 0 when both are tiny. */
static inline double bench_percent_difference(double expected, double actual)
{
    double scale = fabs(expected) > fabs(actual) ? fabs(expected) : fabs(actual);
    if (scale < BENCH_ABSOLUTE_FLOOR)
        return 0.0;
    return 100.0 * fabs(expected - actual) / scale;
}

/* Counts the values of `actual` farther than the threshold from `expected`. */
static inline int bench_mismatches(const float *expected, const float *actual, size_t count)
{
    size_t i;
    int mismatches = 0;
    for (i = 0; i < count; i++)
        if (bench_percent_difference(expected[i], actual[i]) > BENCH_PERCENT_THRESHOLD)
            mismatches++;
    return mismatches;
}

/* Prints the outcome and gives the exit status: 0 when nothing differs. */
static inline int bench_finish(struct bench *b, const char *sizes, double device_seconds, double host_seconds,
                               int mismatches, size_t compared)
{
    printf("%s (%s): device %.6f s, host %.6f s\n", b->name, sizes, device_seconds, host_seconds);
    printf("%s: %d of %zu values differ from the host's by more than %.2f%%\n", b->name, mismatches, compared,
           BENCH_PERCENT_THRESHOLD);
    clReleaseProgram(b->program);
    clReleaseCommandQueue(b->queue);
    clReleaseContext(b->context);
    return mismatches == 0 ? 0 : 1;
}

#endif
