// EXPECT-EXIT: 0
// EXPECT-OUTPUT: write_past_end
// EXPECT-OUTPUT: input.cl:6:
// EXPECT-OUTPUT-NOCASE: out-of-bounds
// EXPECT-OUTPUT: oob: finished
// EXPECT-OUTPUT: oob: all checks passed
/* A kernel that writes one element past the end of its buffer, on line 6 of its source
 * (`data[n] = -1;`, by the last work-item). The program itself notices nothing: it finishes
 * and exits 0. A checking platform reports the write; the directives above expect the
 * kernel's name, the line and the words "out-of-bounds" in that report.
 *
 * The buffer is CL_MEM_USE_HOST_PTR over a host array one element longer than the buffer, so
 * on a device that works in the host array in place (a CPU device) the stray write lands in
 * memory the program owns: the program is memory-safe wherever it runs.
 */
#include "common.h"

static const char *source =
    "__kernel void write_past_end(__global int *data, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    data[i] = 3 * i;\n"
    "    if (i == n - 1)\n"
    "        data[n] = -1;\n"
    "}\n";

#define N 256

int main(void)
{
    struct hosts_env env = hosts_setup();
    static cl_int host[N + 1];
    cl_program program = hosts_build(env.context, env.device, source, "");
    cl_kernel kernel = hosts_kernel(program, "write_past_end");
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, N * sizeof(cl_int), host);
    cl_int n = N, back[N];
    size_t global = N;
    int i, wrong = 0;

    CL(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    CL(clSetKernelArg(kernel, 1, sizeof n, &n));
    CL(clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    for (i = 0; i < N; i++)
        wrong += back[i] != 3 * i;
    /* The in-bounds part is right; whatever happened past the end is the checker's business. */
    CHECK(wrong == 0, "the %d elements inside the buffer hold 3 * i (%d wrong)", N, wrong);

    CL(clReleaseMemObject(buffer));
    CL(clReleaseKernel(kernel));
    CL(clReleaseProgram(program));
    hosts_teardown(&env);
    printf("oob: finished\n");
    return hosts_finish("oob");
}
