// A host program of ours whose kernels are clFFT's (Debian's libclfft-dev): a single-precision
// complex-to-complex forward FFT of N points, in place, on the first OpenCL device, compared with
// a direct DFT in double precision. clFFT generates each plan's kernel source at run time for
// the length's factors (radix 2, 3, 5, 7 and their mixes).
// Usage: fft [N] (default 1024). Prints the error and ALL OK, or exits 1.
#define CL_TARGET_OPENCL_VERSION 120
#include <clFFT.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
static const double PI = 3.14159265358979323846;
int main(int argc, char **argv) {
  size_t n = argc > 1 ? atoi(argv[1]) : 1024;
  cl_platform_id p; cl_device_id d; cl_int e;
  clGetPlatformIDs(1, &p, NULL); clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &e); cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &e);
  clfftSetupData setup; clfftInitSetupData(&setup); clfftSetup(&setup);
  float *x = malloc(2 * n * sizeof(float)), *y = malloc(2 * n * sizeof(float));
  for (size_t i = 0; i < n; i++) { x[2*i] = sinf(0.1f * i) + 0.3f * (float)(i % 7); x[2*i+1] = cosf(0.05f * i); }
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 2 * n * sizeof(float), x, &e);
  clfftPlanHandle plan; size_t lengths[1] = {n};
  int s = clfftCreateDefaultPlan(&plan, ctx, CLFFT_1D, lengths);
  s |= clfftSetPlanPrecision(plan, CLFFT_SINGLE); s |= clfftSetLayout(plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
  s |= clfftSetResultLocation(plan, CLFFT_INPLACE); s |= clfftBakePlan(plan, 1, &q, NULL, NULL);
  s |= clfftEnqueueTransform(plan, CLFFT_FORWARD, 1, &q, 0, NULL, NULL, &buf, NULL, NULL);
  clFinish(q); clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 2 * n * sizeof(float), y, 0, NULL, NULL);
  double err = 0, scale = 0;
  for (size_t k = 0; k < n; k++) { double re = 0, im = 0; for (size_t t = 0; t < n; t++) { double a = -2 * PI * (double)((k * t) % n) / n; re += x[2*t] * cos(a) - x[2*t+1] * sin(a); im += x[2*t] * sin(a) + x[2*t+1] * cos(a); }
    double e1 = fabs(re - y[2*k]) + fabs(im - y[2*k+1]); if (e1 > err) err = e1; if (fabs(re) > scale) scale = fabs(re); }
  printf("fft %zu: status %d, max error %g of %g %s\n", n, s, err, scale, (s == 0 && err < 1e-4 * scale + 1e-3) ? "ALL OK" : "WRONG");
  clfftDestroyPlan(&plan); clfftTeardown(); return !(s == 0 && err < 1e-4 * scale + 1e-3);
}
