// EXPECT-EXIT: 0
// EXPECT-OUTPUT: programs: all checks passed
/* Programs: clCreateProgramWithSource from several strings (with and without lengths),
 * clBuildProgram with -D options that the kernel's result shows and with a completion callback,
 * a build that fails (CL_BUILD_PROGRAM_FAILURE, a log naming the line of the error,
 * CL_BUILD_ERROR, no kernels), clCompileProgram with an embedded header
 * (input_headers/header_include_names) and clLinkProgram of two compiled programs,
 * clGetProgramInfo (reference count, context, devices, source, number and names of kernels),
 * clGetProgramBuildInfo (status, options, log, binary type), clUnloadPlatformCompiler.
 */
#include "common.h"

static struct hosts_env env;

/* Runs kernel `name` of `program` over 16 work-items writing out[i]; returns out[5]. */
static cl_int run_kernel(cl_program program, const char *name, cl_int *all)
{
    cl_kernel kernel = hosts_kernel(program, name);
    cl_int out[16];
    size_t global = 16;
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL);
    CL(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    CL(clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    CL(clReleaseMemObject(buffer));
    CL(clReleaseKernel(kernel));
    if (all)
        memcpy(all, out, sizeof out);
    return out[5];
}

static char *program_string(cl_program program, cl_program_info param)
{
    size_t size = 0;
    char *value;
    CL(clGetProgramInfo(program, param, 0, NULL, &size));
    value = calloc(size + 1, 1);
    CL(clGetProgramInfo(program, param, size, value, NULL));
    return value;
}

static char *build_string(cl_program program, cl_program_build_info param)
{
    size_t size = 0;
    char *value;
    CL(clGetProgramBuildInfo(program, env.device, param, 0, NULL, &size));
    value = calloc(size + 1, 1);
    CL(clGetProgramBuildInfo(program, env.device, param, size, value, NULL));
    return value;
}

static cl_build_status build_status(cl_program program)
{
    cl_build_status status = 12345;
    CL(clGetProgramBuildInfo(program, env.device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
    return status;
}

static cl_program_binary_type binary_type(cl_program program)
{
    cl_program_binary_type type = 12345;
    CL(clGetProgramBuildInfo(program, env.device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
    return type;
}

static int build_callbacks;

static void CL_CALLBACK build_done(cl_program program, void *user_data)
{
    (void)program;
    if (user_data == &build_callbacks)
        build_callbacks++;
}

/* A callback may make the build asynchronous: wait until the status leaves IN_PROGRESS. */
static void wait_for_build(cl_program program)
{
    int spins;
    for (spins = 0; spins < 100000 && build_status(program) == CL_BUILD_IN_PROGRESS; spins++)
        ;
}

static void several_strings_and_defines(void)
{
    /* The first string is used through its length: what follows it in memory is not source. */
    static const char first[] = "__kernel void defines(__global int *out)\nXXXX-not-source";
    static const char *second = "{\n    int i = get_global_id(0);\n";
    static const char *third =
        "#ifdef FLAG\n"
        "    out[i] = i * SCALE + OFFSET;\n"
        "#else\n"
        "    out[i] = -1;\n"
        "#endif\n"
        "}\n"
        "__kernel void other(__global int *out) { out[get_global_id(0)] = 0; }\n";
    const char *strings[3];
    size_t lengths[3];
    const char *options = "-D SCALE=3 -DOFFSET=4 -DFLAG";
    cl_program program;
    cl_int err, out[16];
    char *text;
    size_t expected_length;
    int i, wrong = 0;

    strings[0] = first;
    strings[1] = second;
    strings[2] = third;
    lengths[0] = strlen("__kernel void defines(__global int *out)\n");
    lengths[1] = 0; /* NUL-terminated */
    lengths[2] = strlen(third);
    program = clCreateProgramWithSource(env.context, 3, strings, lengths, &err);
    CHECK_ERR(err, CL_SUCCESS, "clCreateProgramWithSource(3 strings, lengths {n, 0, n})");
    CL_OK(err, "clCreateProgramWithSource");
    CHECK(build_status(program) == CL_BUILD_NONE, "before the build: CL_PROGRAM_BUILD_STATUS is CL_BUILD_NONE");
    {
        size_t kernels = 0;
        CHECK_CODE(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof kernels, &kernels, NULL),
                   CL_INVALID_PROGRAM_EXECUTABLE);
    }
    text = program_string(program, CL_PROGRAM_SOURCE);
    expected_length = lengths[0] + strlen(second) + strlen(third);
    CHECK(strlen(text) == expected_length && strncmp(text, first, lengths[0]) == 0 &&
              strstr(text, "XXXX") == NULL && strstr(text, "out[i] = i * SCALE + OFFSET;") != NULL,
          "CL_PROGRAM_SOURCE is the three strings joined, within their lengths (%zu chars)", strlen(text));
    free(text);

    build_callbacks = 0;
    err = clBuildProgram(program, 1, &env.device, options, build_done, &build_callbacks);
    CHECK_ERR(err, CL_SUCCESS, "clBuildProgram(\"-D SCALE=3 -DOFFSET=4 -DFLAG\", callback)");
    wait_for_build(program);
    CHECK(build_callbacks == 1, "the build callback ran once with its user data (%d)", build_callbacks);
    CHECK(build_status(program) == CL_BUILD_SUCCESS, "CL_PROGRAM_BUILD_STATUS is CL_BUILD_SUCCESS");
    CHECK(binary_type(program) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "CL_PROGRAM_BINARY_TYPE is EXECUTABLE");
    text = build_string(program, CL_PROGRAM_BUILD_OPTIONS);
    CHECK(strcmp(text, options) == 0, "CL_PROGRAM_BUILD_OPTIONS is the option string (\"%s\")", text);
    free(text);
    text = build_string(program, CL_PROGRAM_BUILD_LOG);
    printf("info: the log of a good build has %zu characters\n", strlen(text));
    free(text);

    run_kernel(program, "defines", out);
    for (i = 0; i < 16; i++)
        wrong += out[i] != i * 3 + 4;
    CHECK(wrong == 0, "the kernel computes i * SCALE + OFFSET with SCALE=3, OFFSET=4, FLAG defined (%d wrong)", wrong);

    {
        size_t kernels = 0;
        cl_uint count = 0, references = 0;
        cl_context context = NULL;
        cl_device_id device = NULL;
        CL(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof kernels, &kernels, NULL));
        CHECK(kernels == 2, "CL_PROGRAM_NUM_KERNELS is 2 (%zu)", kernels);
        text = program_string(program, CL_PROGRAM_KERNEL_NAMES);
        CHECK(strcmp(text, "defines;other") == 0 || strcmp(text, "other;defines") == 0,
              "CL_PROGRAM_KERNEL_NAMES names both, separated by ';' (\"%s\")", text);
        free(text);
        CL(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, NULL));
        CHECK(count == 1, "CL_PROGRAM_NUM_DEVICES is 1");
        CL(clGetProgramInfo(program, CL_PROGRAM_DEVICES, sizeof device, &device, NULL));
        CHECK(device == env.device, "CL_PROGRAM_DEVICES is the device");
        CL(clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, NULL));
        CHECK(context == env.context, "CL_PROGRAM_CONTEXT is the context");
        CL(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof references, &references, NULL));
        CHECK(references == 1, "CL_PROGRAM_REFERENCE_COUNT is 1");
        CL(clRetainProgram(program));
        CL(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof references, &references, NULL));
        CHECK(references == 2, "clRetainProgram makes it 2");
        CL(clReleaseProgram(program));
    }

    CL(clReleaseProgram(program));

    /* Building again with other options replaces the executable. (A program whose kernels
     * were used is not rebuilt: an implementation may still hold a released kernel for a
     * while, and a rebuild with kernels attached is CL_INVALID_OPERATION.) */
    program = clCreateProgramWithSource(env.context, 3, strings, lengths, &err);
    CL_OK(err, "clCreateProgramWithSource");
    CL(clBuildProgram(program, 1, &env.device, "-D SCALE=10 -D OFFSET=1", NULL, NULL));
    CL(clBuildProgram(program, 0, NULL, "-DFLAG -D SCALE=10 -D OFFSET=2", NULL, NULL));
    run_kernel(program, "defines", out);
    CHECK(out[5] == 52, "rebuilt for all devices (NULL list) with FLAG, SCALE=10, OFFSET=2: the new options hold (%d)",
          out[5]);
    CL(clReleaseProgram(program));
    program = clCreateProgramWithSource(env.context, 3, strings, lengths, &err);
    CL_OK(err, "clCreateProgramWithSource");
    CL(clBuildProgram(program, 1, &env.device, "-D SCALE=10 -D OFFSET=1", NULL, NULL));
    run_kernel(program, "defines", out);
    CHECK(out[5] == -1, "built without FLAG, the kernel takes the #else branch (%d)", out[5]);
    CL(clReleaseProgram(program));
}

static void failing_build(void)
{
    /* The error is on line 4: `undeclared_name` is not declared. */
    static const char *broken =
        "__kernel void broken(__global int *out)\n"
        "{\n"
        "    int i = get_global_id(0);\n"
        "    out[i] = undeclared_name + 1;\n"
        "}\n";
    cl_int err;
    cl_program program = clCreateProgramWithSource(env.context, 1, &broken, NULL, &err);
    char *log;
    CL_OK(err, "clCreateProgramWithSource");
    CHECK_CODE(clBuildProgram(program, 1, &env.device, "", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    CHECK(build_status(program) == CL_BUILD_ERROR, "a failed build's status is CL_BUILD_ERROR");
    log = build_string(program, CL_PROGRAM_BUILD_LOG);
    printf("info: build log of the failed build:\n%s\n", log);
    CHECK(strstr(log, ":4:") != NULL || strstr(log, "line 4") != NULL,
          "the build log names line 4, where the error is");
    CHECK(strstr(log, "undeclared_name") != NULL, "the build log names the undeclared identifier");
    free(log);
    if (hosts_platform_is(env.platform, "Oclgrind")) {
        hosts_skip("clCreateKernel after a failed build (Oclgrind 21.10 says CL_INVALID_KERNEL_NAME)");
    } else {
        clCreateKernel(program, "broken", &err);
        CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel on a program whose build failed");
    }
    CL(clReleaseProgram(program));
}

static void compile_and_link(void)
{
    static const char *header_source =
        "#define HELPER_BIAS 100\n"
        "int helper_twice(int x);\n";
    static const char *main_source =
        "#include \"helper.h\"\n"
        "__kernel void linked(__global int *out)\n"
        "{\n"
        "    int i = get_global_id(0);\n"
        "    out[i] = helper_twice(i) + HELPER_BIAS;\n"
        "}\n";
    static const char *helper_source =
        "#include \"helper.h\"\n"
        "int helper_twice(int x) { return 2 * x + HELPER_EXTRA; }\n";
    const char *header_names[1] = { "helper.h" };
    cl_program header, main_program, helper_program, linked, parts[2];
    cl_int err, out[16];
    int i, wrong = 0;
    char *text;

    header = clCreateProgramWithSource(env.context, 1, &header_source, NULL, &err);
    CL_OK(err, "clCreateProgramWithSource");
    main_program = clCreateProgramWithSource(env.context, 1, &main_source, NULL, &err);
    CL_OK(err, "clCreateProgramWithSource");
    helper_program = clCreateProgramWithSource(env.context, 1, &helper_source, NULL, &err);
    CL_OK(err, "clCreateProgramWithSource");

    err = clCompileProgram(main_program, 1, &env.device, "", 1, &header, header_names, NULL, NULL);
    if (!CHECK_ERR(err, CL_SUCCESS, "clCompileProgram(main, input header \"helper.h\")")) {
        text = build_string(main_program, CL_PROGRAM_BUILD_LOG);
        printf("compile log:\n%s\n", text);
        free(text);
    }
    err = clCompileProgram(helper_program, 1, &env.device, "-DHELPER_EXTRA=1", 1, &header, header_names, NULL, NULL);
    CHECK_ERR(err, CL_SUCCESS, "clCompileProgram(helper, -DHELPER_EXTRA=1, input header \"helper.h\")");
    CHECK(build_status(main_program) == CL_BUILD_SUCCESS, "a compiled program's build status is CL_BUILD_SUCCESS");
    CHECK(binary_type(main_program) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
          "a compiled program's binary type is COMPILED_OBJECT");
    text = build_string(helper_program, CL_PROGRAM_BUILD_OPTIONS);
    CHECK(strcmp(text, "-DHELPER_EXTRA=1") == 0, "CL_PROGRAM_BUILD_OPTIONS of a compile is its options (\"%s\")", text);
    free(text);

    parts[0] = main_program;
    parts[1] = helper_program;
    linked = clLinkProgram(env.context, 1, &env.device, "", 2, parts, NULL, NULL, &err);
    CHECK_ERR(err, CL_SUCCESS, "clLinkProgram(two compiled programs)");
    CL_OK(err, "clLinkProgram");
    CHECK(build_status(linked) == CL_BUILD_SUCCESS, "the linked program's build status is CL_BUILD_SUCCESS");
    CHECK(binary_type(linked) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "the linked program's binary type is EXECUTABLE");
    run_kernel(linked, "linked", out);
    for (i = 0; i < 16; i++)
        wrong += out[i] != 2 * i + 1 + 100;
    CHECK(wrong == 0, "the linked kernel calls the other program's function and the header's macro (%d wrong)", wrong);
    {
        size_t kernels = 0;
        CL(clGetProgramInfo(linked, CL_PROGRAM_NUM_KERNELS, sizeof kernels, &kernels, NULL));
        CHECK(kernels == 1, "the linked program has 1 kernel (%zu)", kernels);
    }
    CL(clReleaseProgram(linked));
    CL(clReleaseProgram(helper_program));
    CL(clReleaseProgram(main_program));
    CL(clReleaseProgram(header));
}

int main(void)
{
    env = hosts_setup();
    several_strings_and_defines();
    failing_build();
    compile_and_link();
    CHECK_CODE(clUnloadPlatformCompiler(env.platform), CL_SUCCESS);
    hosts_teardown(&env);
    return hosts_finish("programs");
}
