/* What the host test programs share: OpenCL 1.2 headers, checks that name the failed call
 * with its line and error code, the first platform and device, and program building with
 * the log shown on failure.
 *
 * A failed OpenCL call that a program relies on ends it at once (exit 1, the call, the
 * code and the line); a failed check is counted and the program carries on, so one run
 * shows every difference. hosts_finish() prints the tally and gives the exit status.
 */
#ifndef CLMAP_HOSTS_COMMON_H
#define CLMAP_HOSTS_COMMON_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hosts_checks;
static int hosts_failures;

static inline const char *cl_error_name(cl_int code)
{
    switch (code) {
#define HOSTS_CODE(c) \
    case c: \
        return #c;
        HOSTS_CODE(CL_SUCCESS)
        HOSTS_CODE(CL_DEVICE_NOT_FOUND)
        HOSTS_CODE(CL_DEVICE_NOT_AVAILABLE)
        HOSTS_CODE(CL_COMPILER_NOT_AVAILABLE)
        HOSTS_CODE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        HOSTS_CODE(CL_OUT_OF_RESOURCES)
        HOSTS_CODE(CL_OUT_OF_HOST_MEMORY)
        HOSTS_CODE(CL_PROFILING_INFO_NOT_AVAILABLE)
        HOSTS_CODE(CL_MEM_COPY_OVERLAP)
        HOSTS_CODE(CL_IMAGE_FORMAT_MISMATCH)
        HOSTS_CODE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        HOSTS_CODE(CL_BUILD_PROGRAM_FAILURE)
        HOSTS_CODE(CL_MAP_FAILURE)
        HOSTS_CODE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        HOSTS_CODE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        HOSTS_CODE(CL_COMPILE_PROGRAM_FAILURE)
        HOSTS_CODE(CL_LINKER_NOT_AVAILABLE)
        HOSTS_CODE(CL_LINK_PROGRAM_FAILURE)
        HOSTS_CODE(CL_DEVICE_PARTITION_FAILED)
        HOSTS_CODE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        HOSTS_CODE(CL_INVALID_VALUE)
        HOSTS_CODE(CL_INVALID_DEVICE_TYPE)
        HOSTS_CODE(CL_INVALID_PLATFORM)
        HOSTS_CODE(CL_INVALID_DEVICE)
        HOSTS_CODE(CL_INVALID_CONTEXT)
        HOSTS_CODE(CL_INVALID_QUEUE_PROPERTIES)
        HOSTS_CODE(CL_INVALID_COMMAND_QUEUE)
        HOSTS_CODE(CL_INVALID_HOST_PTR)
        HOSTS_CODE(CL_INVALID_MEM_OBJECT)
        HOSTS_CODE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        HOSTS_CODE(CL_INVALID_IMAGE_SIZE)
        HOSTS_CODE(CL_INVALID_SAMPLER)
        HOSTS_CODE(CL_INVALID_BINARY)
        HOSTS_CODE(CL_INVALID_BUILD_OPTIONS)
        HOSTS_CODE(CL_INVALID_PROGRAM)
        HOSTS_CODE(CL_INVALID_PROGRAM_EXECUTABLE)
        HOSTS_CODE(CL_INVALID_KERNEL_NAME)
        HOSTS_CODE(CL_INVALID_KERNEL_DEFINITION)
        HOSTS_CODE(CL_INVALID_KERNEL)
        HOSTS_CODE(CL_INVALID_ARG_INDEX)
        HOSTS_CODE(CL_INVALID_ARG_VALUE)
        HOSTS_CODE(CL_INVALID_ARG_SIZE)
        HOSTS_CODE(CL_INVALID_KERNEL_ARGS)
        HOSTS_CODE(CL_INVALID_WORK_DIMENSION)
        HOSTS_CODE(CL_INVALID_WORK_GROUP_SIZE)
        HOSTS_CODE(CL_INVALID_WORK_ITEM_SIZE)
        HOSTS_CODE(CL_INVALID_GLOBAL_OFFSET)
        HOSTS_CODE(CL_INVALID_EVENT_WAIT_LIST)
        HOSTS_CODE(CL_INVALID_EVENT)
        HOSTS_CODE(CL_INVALID_OPERATION)
        HOSTS_CODE(CL_INVALID_GL_OBJECT)
        HOSTS_CODE(CL_INVALID_BUFFER_SIZE)
        HOSTS_CODE(CL_INVALID_MIP_LEVEL)
        HOSTS_CODE(CL_INVALID_GLOBAL_WORK_SIZE)
        HOSTS_CODE(CL_INVALID_PROPERTY)
        HOSTS_CODE(CL_INVALID_IMAGE_DESCRIPTOR)
        HOSTS_CODE(CL_INVALID_COMPILER_OPTIONS)
        HOSTS_CODE(CL_INVALID_LINKER_OPTIONS)
        HOSTS_CODE(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef HOSTS_CODE
    default:
        return "unknown error code";
    }
}

/* Prints the function name of a call's text: "clFoo(a, b)" prints as "clFoo". */
static inline void hosts_print_function(FILE *out, const char *call)
{
    const char *paren = strchr(call, '(');
    int length = paren ? (int)(paren - call) : (int)strlen(call);
    fprintf(out, "%.*s", length, call);
}

static inline void hosts_api_failure(const char *call, cl_int code, const char *file, int line)
{
    fprintf(stderr, "FAIL: ");
    hosts_print_function(stderr, call);
    fprintf(stderr, " returned %s (%d) at %s:%d\n", cl_error_name(code), (int)code, file, line);
    fflush(stdout);
    exit(1);
}

/* CL(clFoo(...)): the call must succeed, else the program stops with its name, code, line. */
#define CL(call) \
    do { \
        cl_int hosts_code_ = (call); \
        if (hosts_code_ != CL_SUCCESS) \
            hosts_api_failure(#call, hosts_code_, __FILE__, __LINE__); \
    } while (0)

/* CL_OK(err, "clCreateFoo"): the errcode_ret of a create call must be CL_SUCCESS. */
#define CL_OK(err, function) \
    do { \
        if ((err) != CL_SUCCESS) \
            hosts_api_failure(function, (err), __FILE__, __LINE__); \
    } while (0)

#ifdef __GNUC__
#define HOSTS_PRINTF(format_index) __attribute__((format(printf, format_index, format_index + 1)))
#else
#define HOSTS_PRINTF(format_index)
#endif

static inline int hosts_check(int passed, const char *condition, const char *file, int line,
                              const char *format, ...) HOSTS_PRINTF(5);

static inline int hosts_check(int passed, const char *condition, const char *file, int line,
                              const char *format, ...)
{
    va_list args;
    hosts_checks++;
    if (!passed)
        hosts_failures++;
    printf("%s: ", passed ? "ok" : "FAIL");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    if (!passed)
        printf("  [check `%s` failed at %s:%d]", condition, file, line);
    printf("\n");
    fflush(stdout);
    return passed;
}

/* CHECK(condition, "what it checks", ...): counted, printed, the run goes on. */
#define CHECK(condition, ...) hosts_check((condition) ? 1 : 0, #condition, __FILE__, __LINE__, __VA_ARGS__)

static inline int hosts_check_code(cl_int got, cl_int expected, const char *call, const char *file,
                            int line)
{
    int passed = got == expected;
    hosts_checks++;
    if (!passed)
        hosts_failures++;
    printf("%s: ", passed ? "ok" : "FAIL");
    hosts_print_function(stdout, call);
    printf(" returns %s", cl_error_name(expected));
    if (!passed)
        printf("  [got %s (%d), expected %s (%d), at %s:%d]", cl_error_name(got), (int)got,
               cl_error_name(expected), (int)expected, file, line);
    printf("\n");
    fflush(stdout);
    return passed;
}

/* CHECK_CODE(clFoo(...), CL_INVALID_VALUE): the call must return exactly that code. */
#define CHECK_CODE(call, expected) hosts_check_code((call), (expected), #call, __FILE__, __LINE__)

/* CHECK_ERR(err, CL_INVALID_VALUE, "clCreateFoo"): an errcode_ret must be exactly that code. */
#define CHECK_ERR(err, expected, function) hosts_check_code((err), (expected), function, __FILE__, __LINE__)

/* Prints the tally; the program's exit status (0 when every check passed). */
static inline int hosts_finish(const char *program)
{
    printf("%s: %d checks, %d failed\n", program, hosts_checks, hosts_failures);
    if (hosts_failures == 0)
        printf("%s: all checks passed\n", program);
    else
        fprintf(stderr, "%s: %d of %d checks FAILED\n", program, hosts_failures, hosts_checks);
    return hosts_failures == 0 ? 0 : 1;
}

/* A skipped part of a program: said aloud, so a log shows what was not tested. */
static inline void hosts_skip(const char *format, ...) HOSTS_PRINTF(1);

static inline void hosts_skip(const char *format, ...)
{
    va_list args;
    printf("skip: ");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
}

/* Whether the platform is the one named: for the few rules of the specification that a
 * reference implementation breaks, so the check can be skipped there, saying why. */
static inline int hosts_platform_is(cl_platform_id platform, const char *name)
{
    char actual[256] = "";
    CL(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof actual, actual, NULL));
    return strcmp(actual, name) == 0;
}

/* The first platform and its first device of any type (CL_DEVICE_TYPE_ALL). */
static inline void hosts_first_device(cl_platform_id *platform, cl_device_id *device)
{
    cl_uint platforms = 0;
    cl_uint devices = 0;
    CL(clGetPlatformIDs(1, platform, &platforms));
    if (platforms == 0) {
        fprintf(stderr, "FAIL: no OpenCL platform\n");
        exit(1);
    }
    CL(clGetDeviceIDs(*platform, CL_DEVICE_TYPE_ALL, 1, device, &devices));
    {
        char name[256] = "";
        char device_name[256] = "";
        clGetPlatformInfo(*platform, CL_PLATFORM_NAME, sizeof name, name, NULL);
        clGetDeviceInfo(*device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL);
        printf("platform: %s; device: %s\n", name, device_name);
    }
}

/* A platform, a device, a context on it and an in-order queue: what most programs start with. */
struct hosts_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
};

static inline struct hosts_env hosts_setup(void)
{
    struct hosts_env env;
    cl_int err;
    hosts_first_device(&env.platform, &env.device);
    env.context = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    CL_OK(err, "clCreateContext");
    env.queue = clCreateCommandQueue(env.context, env.device, 0, &err);
    CL_OK(err, "clCreateCommandQueue");
    return env;
}

static inline void hosts_teardown(struct hosts_env *env)
{
    CL(clReleaseCommandQueue(env->queue));
    CL(clReleaseContext(env->context));
}

/* The build log of `program` on `device`, malloc'ed (the caller frees it). */
static inline char *hosts_build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    char *log;
    CL(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
    log = malloc(size + 1);
    CL(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL));
    log[size] = '\0';
    return log;
}

/* Builds `source` with `options`; on failure prints the log and stops the program. */
static inline cl_program hosts_build(cl_context context, cl_device_id device, const char *source,
                              const char *options)
{
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CL_OK(err, "clCreateProgramWithSource");
    err = clBuildProgram(program, 1, &device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char *log = hosts_build_log(program, device);
        fprintf(stderr, "build log:\n%s\n", log);
        free(log);
        hosts_api_failure("clBuildProgram", err, __FILE__, __LINE__);
    }
    return program;
}

static inline cl_kernel hosts_kernel(cl_program program, const char *name)
{
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    CL_OK(err, "clCreateKernel");
    return kernel;
}

static inline cl_mem hosts_buffer(cl_context context, cl_mem_flags flags, size_t size, void *host)
{
    cl_int err;
    cl_mem buffer = clCreateBuffer(context, flags, size, host, &err);
    CL_OK(err, "clCreateBuffer");
    return buffer;
}

#endif
