// EXPECT-EXIT: 0
// EXEC-FLAGS: --check-api --oclgrind-output
// EXPECT-OUTPUT: check_api: all checks passed
// EXPECT-OUTPUT: Oclgrind - OpenCL runtime error detected
// EXPECT-OUTPUT: Function: clCreateBuffer
// EXPECT-OUTPUT: Error:    CL_INVALID_BUFFER_SIZE
// EXPECT-OUTPUT: Function: clSetKernelArg
// EXPECT-OUTPUT: Error:    CL_INVALID_ARG_INDEX
// EXPECT-OUTPUT: Function: clCreateKernel
// EXPECT-OUTPUT: Error:    CL_INVALID_KERNEL_NAME
/* Under `clmap exec --check-api`, every call that fails is reported with its function and
 * status code, as Oclgrind's --check-api reports it; the calls still fail as they would
 * without it, and calls that succeed are not reported. */
#include "common.h"

int main(void)
{
    struct hosts_env env = hosts_setup();
    cl_int err;

    /* A handle-returning call reports through errcode_ret. */
    cl_mem empty = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 0, NULL, &err);
    CHECK_ERR(err, CL_INVALID_BUFFER_SIZE, "clCreateBuffer");
    CHECK(empty == NULL, "a 0-byte buffer is refused");
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE, 16, NULL);

    cl_program program =
        hosts_build(env.context, env.device, "__kernel void k(__global int *a) { a[0] = 1; }", "");
    cl_kernel kernel = hosts_kernel(program, "k");

    /* A status-returning call, and a handle-returning one without errcode_ret. */
    CHECK_CODE(clSetKernelArg(kernel, 3, sizeof(cl_mem), &buffer), CL_INVALID_ARG_INDEX);
    CHECK(clCreateKernel(program, "nosuch", NULL) == NULL, "an unknown kernel is refused");

    CL(clReleaseKernel(kernel));
    CL(clReleaseProgram(program));
    CL(clReleaseMemObject(buffer));
    hosts_teardown(&env);
    return hosts_finish("check_api");
}
