// EXPECT-EXIT: 0
// EXPECT-OUTPUT: kernels: all checks passed
// EXEC-FLAGS: --races --uninit
// EXPECT-OUTPUT: no findings
/* Kernels: clCreateKernel, clCreateKernelsInProgram, clGetKernelInfo (function name, number
 * of arguments, attributes, reference count, context, program), clGetKernelArgInfo (address,
 * access and type qualifiers, type and argument names; built with -cl-kernel-arg-info),
 * clGetKernelWorkGroupInfo (work-group size, compile work-group size from
 * reqd_work_group_size, local memory size, preferred multiple, private memory), __local
 * arguments through clSetKernelArg(k, i, size, NULL), a struct and vectors and scalars of every
 * width passed by value, clRetainKernel/clReleaseKernel. Image and sampler arguments where the
 * device has images. (clCloneKernel is OpenCL 2.1: not here.)
 */
#include "common.h"

static const char *source =
    "typedef struct { int a; float b; int c[2]; } params_t;\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "void reverse_groups(__global const float *restrict in, __global float *out,\n"
    "                    __local float *scratch, const int n)\n"
    "{\n"
    "    int l = get_local_id(0);\n"
    "    int g = get_global_id(0);\n"
    "    scratch[l] = g < n ? in[g] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (g < n)\n"
    "        out[g] = scratch[get_local_size(0) - 1 - l];\n"
    "}\n"
    "\n"
    "__kernel void by_value(__global int *out, params_t p, int4 v, char c, short s, long l,\n"
    "                       uchar uc, float f\n"
    "#ifdef HAVE_FP64\n"
    "                       , double d\n"
    "#endif\n"
    "                       )\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    long sum = p.a * i + (int)p.b + p.c[0] - p.c[1] + v.x + v.y * 2 + v.z * 3 + v.w * 4\n"
    "             + c + s + l + uc + (int)(f * 4.0f);\n"
    "#ifdef HAVE_FP64\n"
    "    sum += (long)(d * 8.0);\n"
    "#endif\n"
    "    out[i] = (int)sum;\n"
    "}\n"
    "\n"
    "__kernel void qualifiers(__global volatile int *flags, __constant float *table, uint count,\n"
    "                         __local int *shared_counts)\n"
    "{\n"
    "    __local float tile[64];\n"
    "    tile[get_local_id(0)] = table[0];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    shared_counts[0] = count;\n"
    "    flags[get_global_id(0)] = (int)tile[0];\n"
    "}\n"
    "\n"
    "#ifdef HAVE_IMAGES\n"
    "__kernel void image_args(__read_only image2d_t picture, sampler_t smp, __write_only image2d_t result)\n"
    "{\n"
    "    write_imagef(result, (int2)(0, 0), read_imagef(picture, smp, (int2)(0, 0)));\n"
    "}\n"
    "#endif\n";

struct params {
    cl_int a;
    cl_float b;
    cl_int c[2];
};

static struct hosts_env env;

static char *kernel_string(cl_kernel kernel, cl_kernel_info param)
{
    size_t size = 0;
    char *value;
    CL(clGetKernelInfo(kernel, param, 0, NULL, &size));
    value = calloc(size + 1, 1);
    CL(clGetKernelInfo(kernel, param, size, value, NULL));
    return value;
}

static char *arg_string(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param)
{
    size_t size = 0;
    char *value;
    CL(clGetKernelArgInfo(kernel, index, param, 0, NULL, &size));
    value = calloc(size + 1, 1);
    CL(clGetKernelArgInfo(kernel, index, param, size, value, NULL));
    return value;
}

struct expected_arg {
    const char *name;
    const char *type;
    cl_kernel_arg_address_qualifier address;
    cl_kernel_arg_access_qualifier access;
    cl_kernel_arg_type_qualifier type_qualifier;
};

static void check_arg_info(cl_kernel kernel, const char *kernel_name, const struct expected_arg *args, cl_uint count)
{
    cl_uint i;
    for (i = 0; i < count; i++) {
        const struct expected_arg *e = &args[i];
        cl_kernel_arg_address_qualifier address = 0;
        cl_kernel_arg_access_qualifier access = 0;
        cl_kernel_arg_type_qualifier qualifier = 0;
        char *name = arg_string(kernel, i, CL_KERNEL_ARG_NAME);
        char *type = arg_string(kernel, i, CL_KERNEL_ARG_TYPE_NAME);
        CL(clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
        CL(clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL));
        CL(clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifier, &qualifier, NULL));
        CHECK(strcmp(name, e->name) == 0, "%s arg %u: CL_KERNEL_ARG_NAME is \"%s\" (\"%s\")", kernel_name, i, e->name, name);
        CHECK(strcmp(type, e->type) == 0, "%s arg %u: CL_KERNEL_ARG_TYPE_NAME is \"%s\" (\"%s\")", kernel_name, i, e->type,
              type);
        CHECK(address == e->address, "%s arg %u: CL_KERNEL_ARG_ADDRESS_QUALIFIER is 0x%x (0x%x)", kernel_name, i,
              (unsigned)e->address, (unsigned)address);
        CHECK(access == e->access, "%s arg %u: CL_KERNEL_ARG_ACCESS_QUALIFIER is 0x%x (0x%x)", kernel_name, i,
              (unsigned)e->access, (unsigned)access);
        if (e->address == CL_KERNEL_ARG_ADDRESS_CONSTANT)
            /* Whether __constant implies CL_KERNEL_ARG_TYPE_CONST is read differently by
             * implementations (the 2.0 specification says it does); either is accepted. */
            CHECK((qualifier & ~(cl_kernel_arg_type_qualifier)CL_KERNEL_ARG_TYPE_CONST) == e->type_qualifier,
                  "%s arg %u: CL_KERNEL_ARG_TYPE_QUALIFIER is 0x%llx, CONST allowed (0x%llx)", kernel_name, i,
                  (unsigned long long)e->type_qualifier, (unsigned long long)qualifier);
        else
            CHECK(qualifier == e->type_qualifier, "%s arg %u: CL_KERNEL_ARG_TYPE_QUALIFIER is 0x%llx (0x%llx)",
                  kernel_name, i, (unsigned long long)e->type_qualifier, (unsigned long long)qualifier);
        free(name);
        free(type);
    }
}

static void kernel_info(cl_program program, int images)
{
    static const struct expected_arg reverse_args[] = {
        { "in", "float*", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE,
          CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT },
        { "out", "float*", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "scratch", "float*", CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        /* `const int n`: const on a value is not a type qualifier the API reports. */
        { "n", "int", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
    };
    static const struct expected_arg by_value_args[] = {
        { "out", "int*", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "p", "params_t", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "v", "int4", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "c", "char", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "s", "short", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "l", "long", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "uc", "uchar", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "f", "float", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
    };
    static const struct expected_arg qualifier_args[] = {
        { "flags", "int*", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_VOLATILE },
        { "table", "float*", CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "count", "uint", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "shared_counts", "int*", CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
    };
    static const struct expected_arg image_args[] = {
        { "picture", "image2d_t", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_TYPE_NONE },
        { "smp", "sampler_t", CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE },
        { "result", "image2d_t", CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_TYPE_NONE },
    };
    cl_kernel kernels[4];
    cl_uint count = 0, i, expected_count = images ? 4 : 3;
    int seen_reverse = 0, seen_by_value = 0, seen_qualifiers = 0, seen_images = 0;
    int oclgrind = hosts_platform_is(env.platform, "Oclgrind");

    CL(clCreateKernelsInProgram(program, 0, NULL, &count));
    CHECK(count == expected_count, "clCreateKernelsInProgram counts %u kernels (%u)", expected_count, count);
    if (count != expected_count)
        return;
    CL(clCreateKernelsInProgram(program, count, kernels, NULL));
    for (i = 0; i < count; i++) {
        char *name = kernel_string(kernels[i], CL_KERNEL_FUNCTION_NAME);
        char *attributes = kernel_string(kernels[i], CL_KERNEL_ATTRIBUTES);
        cl_uint args = 0, references = 0;
        cl_context context = NULL;
        cl_program owner = NULL;
        CL(clGetKernelInfo(kernels[i], CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL));
        CL(clGetKernelInfo(kernels[i], CL_KERNEL_REFERENCE_COUNT, sizeof references, &references, NULL));
        CL(clGetKernelInfo(kernels[i], CL_KERNEL_CONTEXT, sizeof context, &context, NULL));
        CL(clGetKernelInfo(kernels[i], CL_KERNEL_PROGRAM, sizeof owner, &owner, NULL));
        CHECK(references == 1 && context == env.context && owner == program,
              "kernel %s: reference count 1, its context and program", name);
        if (oclgrind && strcmp(name, "reverse_groups") == 0)
            attributes[0] = '\0'; /* Oclgrind 21.10 returns bytes of freed memory here */
        printf("info: CL_KERNEL_ATTRIBUTES of %s: \"%s\"\n", name, attributes);
        if (strcmp(name, "reverse_groups") == 0) {
            seen_reverse++;
            CHECK(args == 4, "reverse_groups has 4 arguments (%u)", args);
            /* The attribute string's spelling is the implementation's; empty is allowed too. */
            if (oclgrind)
                hosts_skip("CL_KERNEL_ATTRIBUTES with reqd_work_group_size (Oclgrind 21.10 returns garbage)");
            else
                CHECK(attributes[0] == '\0' || strstr(attributes, "reqd_work_group_size") != NULL,
                  "CL_KERNEL_ATTRIBUTES of reverse_groups is empty or names reqd_work_group_size");
            check_arg_info(kernels[i], name, reverse_args, 4);
        } else if (strcmp(name, "by_value") == 0) {
            seen_by_value++;
            CHECK(args == 8 || args == 9, "by_value has 8 arguments, 9 with a double (%u)", args);
            check_arg_info(kernels[i], name, by_value_args, 8);
        } else if (strcmp(name, "qualifiers") == 0) {
            seen_qualifiers++;
            CHECK(args == 4, "qualifiers has 4 arguments (%u)", args);
            CHECK(strstr(attributes, "reqd_work_group_size") == NULL, "qualifiers has no reqd_work_group_size attribute");
            check_arg_info(kernels[i], name, qualifier_args, 4);
        } else if (strcmp(name, "image_args") == 0) {
            seen_images++;
            CHECK(args == 3, "image_args has 3 arguments (%u)", args);
            check_arg_info(kernels[i], name, image_args, 3);
        }
        free(name);
        free(attributes);
    }
    CHECK(seen_reverse == 1 && seen_by_value == 1 && seen_qualifiers == 1 && seen_images == (images ? 1 : 0),
          "clCreateKernelsInProgram makes one kernel of each name");
    {
        cl_uint references = 0;
        CL(clRetainKernel(kernels[0]));
        CL(clGetKernelInfo(kernels[0], CL_KERNEL_REFERENCE_COUNT, sizeof references, &references, NULL));
        CHECK(references == 2, "clRetainKernel makes the reference count 2");
        CL(clReleaseKernel(kernels[0]));
    }
    {
        cl_kernel_arg_address_qualifier address;
        CHECK_CODE(clGetKernelArgInfo(kernels[0], 17, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL),
                   CL_INVALID_ARG_INDEX);
    }
    for (i = 0; i < count; i++)
        CL(clReleaseKernel(kernels[i]));
}

static void work_group_info(cl_program program)
{
    cl_kernel reverse = hosts_kernel(program, "reverse_groups");
    cl_kernel qualifiers = hosts_kernel(program, "qualifiers");
    size_t size = 0, multiple = 0, compiled[3] = { 99, 99, 99 }, device_max = 0;
    cl_ulong local = 0, private_size = 0;

    CL(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_max, &device_max, NULL));
    CL(clGetKernelWorkGroupInfo(reverse, env.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, NULL));
    CHECK(size >= 1 && size <= device_max, "CL_KERNEL_WORK_GROUP_SIZE is in [1, device max] (%zu)", size);
    CL(clGetKernelWorkGroupInfo(reverse, env.device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled, compiled, NULL));
    CHECK(compiled[0] == 8 && compiled[1] == 1 && compiled[2] == 1,
          "CL_KERNEL_COMPILE_WORK_GROUP_SIZE is reqd_work_group_size(8, 1, 1) ({%zu, %zu, %zu})", compiled[0], compiled[1],
          compiled[2]);
    CL(clGetKernelWorkGroupInfo(qualifiers, env.device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled, compiled, NULL));
    CHECK(compiled[0] == 0 && compiled[1] == 0 && compiled[2] == 0,
          "CL_KERNEL_COMPILE_WORK_GROUP_SIZE without the attribute is {0, 0, 0}");
    CL(clGetKernelWorkGroupInfo(reverse, env.device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple,
                                &multiple, NULL));
    CHECK(multiple >= 1, "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE >= 1 (%zu)", multiple);
    CL(clGetKernelWorkGroupInfo(reverse, env.device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_size, &private_size, NULL));
    printf("info: CL_KERNEL_PRIVATE_MEM_SIZE of reverse_groups: %llu\n", (unsigned long long)private_size);

    /* Local memory: 64 floats declared inside `qualifiers`, plus what the __local argument asks. */
    CL(clSetKernelArg(qualifiers, 3, 100 * sizeof(cl_int), NULL));
    CL(clGetKernelWorkGroupInfo(qualifiers, env.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL));
    CHECK(local >= 64 * sizeof(cl_float) + 100 * sizeof(cl_int),
          "CL_KERNEL_LOCAL_MEM_SIZE counts the __local array and the __local argument (%llu >= %zu)",
          (unsigned long long)local, 64 * sizeof(cl_float) + 100 * sizeof(cl_int));
    CL(clSetKernelArg(reverse, 2, 8 * sizeof(cl_float), NULL));
    CL(clGetKernelWorkGroupInfo(reverse, env.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL));
    CHECK(local >= 8 * sizeof(cl_float), "CL_KERNEL_LOCAL_MEM_SIZE counts a 32-byte __local argument (%llu)",
          (unsigned long long)local);
    CL(clReleaseKernel(reverse));
    CL(clReleaseKernel(qualifiers));
}

static void local_argument(cl_program program)
{
    enum { N = 64 };
    cl_kernel reverse = hosts_kernel(program, "reverse_groups");
    float in[N], out[N];
    cl_mem in_buffer, out_buffer;
    cl_int n = N;
    size_t global = N, local = 8, wrong_local = 4;
    int i, wrong = 0;
    for (i = 0; i < N; i++)
        in[i] = (float)i + 0.25f;
    in_buffer = hosts_buffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in);
    out_buffer = hosts_buffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL);
    CL(clSetKernelArg(reverse, 0, sizeof in_buffer, &in_buffer));
    CL(clSetKernelArg(reverse, 1, sizeof out_buffer, &out_buffer));
    CL(clSetKernelArg(reverse, 2, local * sizeof(cl_float), NULL));
    CL(clSetKernelArg(reverse, 3, sizeof n, &n));
    CL(clEnqueueNDRangeKernel(env.queue, reverse, 1, NULL, &global, &local, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(env.queue, out_buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (i = 0; i < N; i++)
        wrong += out[i] != in[(i / 8) * 8 + 7 - i % 8];
    CHECK(wrong == 0, "a __local argument of 8 floats (size, NULL) reverses each group of 8 (%d wrong)", wrong);
    CHECK_CODE(clEnqueueNDRangeKernel(env.queue, reverse, 1, NULL, &global, &wrong_local, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
    if (hosts_platform_is(env.platform, "Oclgrind"))
        hosts_skip("a __local argument of size 0 (Oclgrind 21.10 accepts it)");
    else
        CHECK_CODE(clSetKernelArg(reverse, 2, 0, NULL), CL_INVALID_ARG_SIZE);
    CL(clReleaseMemObject(in_buffer));
    CL(clReleaseMemObject(out_buffer));
    CL(clReleaseKernel(reverse));
}

static void values(cl_program program, int fp64)
{
    enum { N = 16 };
    cl_kernel kernel = hosts_kernel(program, "by_value");
    struct params p;
    cl_int4 v;
    cl_char c = -3;
    cl_short s = 300;
    cl_long l = 5000000000LL;
    cl_uchar uc = 200;
    cl_float f = 2.5f;
    cl_double d = 0.375;
    cl_int out[N];
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL);
    size_t global = N;
    int i, wrong = 0;

    p.a = 7;
    p.b = 11.75f;
    p.c[0] = 1000;
    p.c[1] = 1;
    v.s[0] = 1;
    v.s[1] = 2;
    v.s[2] = 3;
    v.s[3] = 4;
    CHECK(sizeof p == 16, "the host struct matches the kernel's params_t (16 bytes)");
    CL(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    CL(clSetKernelArg(kernel, 1, sizeof p, &p));
    CL(clSetKernelArg(kernel, 2, sizeof v, &v));
    CL(clSetKernelArg(kernel, 3, sizeof c, &c));
    CL(clSetKernelArg(kernel, 4, sizeof s, &s));
    CL(clSetKernelArg(kernel, 5, sizeof l, &l));
    CL(clSetKernelArg(kernel, 6, sizeof uc, &uc));
    CL(clSetKernelArg(kernel, 7, sizeof f, &f));
    if (fp64)
        CL(clSetKernelArg(kernel, 8, sizeof d, &d));
    CL(clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (i = 0; i < N; i++) {
        long long sum = 7LL * i + 11 + 1000 - 1 + (1 + 4 + 9 + 16) - 3 + 300 + 5000000000LL + 200 + 10 + (fp64 ? 3 : 0);
        wrong += out[i] != (cl_int)sum;
    }
    CHECK(wrong == 0, "a struct, an int4, char, short, long, uchar, float%s by value reach the kernel (%d wrong)",
          fp64 ? ", double" : "", wrong);
    CL(clReleaseMemObject(buffer));
    CL(clReleaseKernel(kernel));
}

int main(void)
{
    cl_program program;
    char extensions[4096] = "", options[128];
    int fp64;
    cl_bool images = CL_FALSE;

    env = hosts_setup();
    CL(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL));
    CL(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
    if (!images)
        hosts_skip("the device has no images: no image and sampler arguments");
    fp64 = strstr(extensions, "cl_khr_fp64") != NULL;
    snprintf(options, sizeof options, "-cl-kernel-arg-info%s%s", fp64 ? " -DHAVE_FP64" : "",
             images ? " -DHAVE_IMAGES" : "");
    program = hosts_build(env.context, env.device, source, options);
    {
        cl_int err;
        cl_kernel missing = clCreateKernel(program, "no_such_kernel", &err);
        CHECK(missing == NULL, "clCreateKernel(unknown name) returns NULL");
        CHECK_ERR(err, CL_INVALID_KERNEL_NAME, "clCreateKernel(unknown name)");
    }
    kernel_info(program, images);
    work_group_info(program);
    local_argument(program);
    values(program, fp64);
    CL(clReleaseProgram(program));
    hosts_teardown(&env);
    return hosts_finish("kernels");
}
