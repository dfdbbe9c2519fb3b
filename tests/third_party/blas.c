// A host program of ours whose kernels are CLBlast's (Debian's libclblast-dev): SGEMM,
// SAXPY, SDOT, SNRM2 and SGEMV through CLBlast's C API on the first OpenCL device, each
// checked against a direct computation in double precision. Under `clmap exec` every one of
// CLBlast's generated kernels is built by clmap's front end and run on the simulator.
// Usage: blas [N] (square sizes, default 64; sizes that are not multiples of CLBlast's tiles
// take its padded paths). Prints one line per routine and ALL OK, or exits 1.
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
static cl_context ctx; static cl_command_queue q;
static cl_mem buf(size_t n, const float *h) { cl_int e; cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, (void*)h, &e); return m; }
static void get(cl_mem m, size_t n, float *h) { clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * 4, h, 0, NULL, NULL); }
static int fails = 0;
static void report(const char *name, int status, double err) { printf("%s: status %d, max error %g %s\n", name, status, err, (status == 0 && err < 1e-3) ? "ok" : "WRONG"); if (status != 0 || err >= 1e-3) fails++; }
int main(int argc, char **argv) {
  size_t m = argc > 1 ? atoi(argv[1]) : 64, n = m, k = m;
  cl_platform_id p; cl_device_id d; clGetPlatformIDs(1, &p, NULL); clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  ctx = clCreateContext(NULL, 1, &d, NULL, NULL, NULL); q = clCreateCommandQueue(ctx, d, 0, NULL);
  float *A = malloc(m*k*4), *B = malloc(k*n*4), *C = malloc(m*n*4), *R = malloc(m*n*4);
  for (size_t i = 0; i < m*k; i++) A[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
  for (size_t i = 0; i < k*n; i++) B[i] = (float)((i * 53) % 97) / 97.0f - 0.5f;
  for (size_t i = 0; i < m*n; i++) C[i] = 0.25f;
  cl_mem a = buf(m*k, A), b = buf(k*n, B), c = buf(m*n, C);
  cl_event ev = NULL;
  int s = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.5f, a, 0, k, b, 0, n, 0.5f, c, 0, n, &q, &ev);
  if (s == 0) { clWaitForEvents(1, &ev); }
  get(c, m*n, R); double err = 0;
  for (size_t i = 0; i < m; i++) for (size_t j = 0; j < n; j++) { double acc = 0; for (size_t l = 0; l < k; l++) acc += (double)A[i*k+l] * B[l*n+j]; double want = 1.5 * acc + 0.5 * C[i*n+j]; double e = fabs(want - R[i*n+j]); if (e > err) err = e; }
  report("sgemm", s, err);
  /* axpy */
  cl_mem x = buf(m, A), y = buf(m, B); s = CLBlastSaxpy(m, 2.0f, x, 0, 1, y, 0, 1, &q, NULL); clFinish(q); get(y, m, R); err = 0;
  for (size_t i = 0; i < m; i++) { double e = fabs(2.0 * A[i] + B[i] - R[i]); if (e > err) err = e; } report("saxpy", s, err);
  /* dot */
  cl_mem r = buf(1, C); s = CLBlastSdot(m, r, 0, x, 0, 1, x, 0, 1, &q, NULL); clFinish(q); get(r, 1, R); double want = 0; for (size_t i = 0; i < m; i++) want += (double)A[i]*A[i]; report("sdot", s, fabs(want - R[0]));
  /* nrm2 */
  s = CLBlastSnrm2(m, r, 0, x, 0, 1, &q, NULL); clFinish(q); get(r, 1, R); report("snrm2", s, fabs(sqrt(want) - R[0]));
  /* gemv */
  cl_mem yv = buf(m, C); s = CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, m, n, 1.0f, a, 0, n, x, 0, 1, 0.0f, yv, 0, 1, &q, NULL); clFinish(q); get(yv, m, R); err = 0;
  for (size_t i = 0; i < m; i++) { double acc = 0; for (size_t j = 0; j < n; j++) acc += (double)A[i*n+j] * A[j]; double e = fabs(acc - R[i]); if (e > err) err = e; } report("sgemv", s, err);
  printf(fails ? "SOME WRONG\n" : "ALL OK\n"); return fails != 0;
}
