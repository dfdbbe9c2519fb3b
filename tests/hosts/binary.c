// EXPECT-EXIT: 0
// EXPECT-OUTPUT: binary: all checks passed
/* The program-cache pattern applications use: build from source, take CL_PROGRAM_BINARY_SIZES
 * and CL_PROGRAM_BINARIES, write the binary to a file in a temporary directory, read it back,
 * clCreateProgramWithBinary, clBuildProgram, run the kernel and check its result; then a
 * corrupted binary is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <unistd.h>

static const char *source =
    "__kernel void cached(__global float *out, float scale)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    out[i] = (float)(i * i) * scale + BIAS;\n"
    "}\n";

#define N 64

static int run_and_check(struct hosts_env *env, cl_program program, const char *what)
{
    cl_kernel kernel = hosts_kernel(program, "cached");
    cl_mem buffer = hosts_buffer(env->context, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL);
    float out[N], scale = 0.5f;
    size_t global = N;
    int i, wrong = 0;
    CL(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    CL(clSetKernelArg(kernel, 1, sizeof scale, &scale));
    CL(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (i = 0; i < N; i++)
        wrong += out[i] != (float)(i * i) * 0.5f + 2.0f;
    CL(clReleaseMemObject(buffer));
    CL(clReleaseKernel(kernel));
    return CHECK(wrong == 0, "%s: out[i] = i*i*0.5 + 2 for %d items (%d wrong)", what, N, wrong);
}

int main(void)
{
    struct hosts_env env = hosts_setup();
    cl_program program, loaded;
    cl_uint devices = 0;
    size_t size = 0, read_size = 0;
    unsigned char *binary, *from_file;
    const unsigned char *binary_pointer;
    cl_int err, binary_status = 12345;
    char directory[512], path[600];
    const char *tmp = getenv("TMPDIR");
    FILE *file;

    program = hosts_build(env.context, env.device, source, "-DBIAS=2.0f");
    run_and_check(&env, program, "built from source");

    CL(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof devices, &devices, NULL));
    CHECK(devices == 1, "CL_PROGRAM_NUM_DEVICES is 1");
    {
        size_t sizes_bytes = 0;
        CL(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, 0, NULL, &sizes_bytes));
        CHECK(sizes_bytes == sizeof(size_t), "CL_PROGRAM_BINARY_SIZES has one size_t per device (%zu bytes)",
              sizes_bytes);
    }
    CL(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
    CHECK(size > 0, "the binary is %zu bytes", size);
    binary = malloc(size);
    {
        size_t pointers_bytes = 0;
        CL(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, &pointers_bytes));
        CHECK(pointers_bytes == sizeof(unsigned char *), "CL_PROGRAM_BINARIES fills one pointer per device");
    }

    /* The cache: a file in a directory of its own. */
    snprintf(directory, sizeof directory, "%s/clmap-binary-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(directory) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/cached.bin", directory);
    file = fopen(path, "wb");
    CHECK(file != NULL && fwrite(binary, 1, size, file) == size && fclose(file) == 0,
          "the binary is written to %s", path);
    CL(clReleaseProgram(program));

    from_file = malloc(size + 1);
    file = fopen(path, "rb");
    if (file != NULL) {
        read_size = fread(from_file, 1, size + 1, file);
        fclose(file);
    }
    CHECK(read_size == size && memcmp(from_file, binary, size) == 0, "the file holds the %zu bytes", size);
    remove(path);
    rmdir(directory);

    binary_pointer = from_file;
    loaded = clCreateProgramWithBinary(env.context, 1, &env.device, &read_size, &binary_pointer, &binary_status, &err);
    CHECK_ERR(err, CL_SUCCESS, "clCreateProgramWithBinary(the file's bytes)");
    CL_OK(err, "clCreateProgramWithBinary");
    CHECK(binary_status == CL_SUCCESS, "binary_status is CL_SUCCESS (%s)", cl_error_name(binary_status));
    CHECK_CODE(clBuildProgram(loaded, 1, &env.device, NULL, NULL, NULL), CL_SUCCESS);
    {
        cl_build_status status = 0;
        CL(clGetProgramBuildInfo(loaded, env.device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
        CHECK(status == CL_BUILD_SUCCESS, "the program from the binary built");
    }
    {
        char names[256] = "";
        CL(clGetProgramInfo(loaded, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
        CHECK(strcmp(names, "cached") == 0, "CL_PROGRAM_KERNEL_NAMES of the loaded program is \"cached\" (\"%s\")", names);
    }
    run_and_check(&env, loaded, "built from the cached binary (BIAS kept from the first build)");
    CL(clReleaseProgram(loaded));

    /* A binary that is not one: refused when the program is made, or at the latest when built. */
    {
        static const unsigned char garbage[64] = "this is not a program binary of any device at all";
        const unsigned char *garbage_pointer = garbage;
        size_t garbage_size = sizeof garbage;
        cl_program bad = clCreateProgramWithBinary(env.context, 1, &env.device, &garbage_size, &garbage_pointer,
                                                   &binary_status, &err);
        if (err == CL_SUCCESS) {
            cl_int built = clBuildProgram(bad, 1, &env.device, NULL, NULL, NULL);
            CHECK(built == CL_INVALID_BINARY || built == CL_BUILD_PROGRAM_FAILURE,
                  "a garbage binary fails to build (%s)", cl_error_name(built));
            CL(clReleaseProgram(bad));
        } else {
            CHECK(err == CL_INVALID_BINARY && binary_status == CL_INVALID_BINARY,
                  "clCreateProgramWithBinary refuses a garbage binary: CL_INVALID_BINARY (%s, status %s)",
                  cl_error_name(err), cl_error_name(binary_status));
        }
    }

    free(binary);
    free(from_file);
    hosts_teardown(&env);
    return hosts_finish("binary");
}
