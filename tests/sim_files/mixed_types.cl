__kernel void mix(__global const float *a, __global const int *b, __global float *out,
                  __global char *c, __global short *s, __global ulong *u, __global double *d, uint n, __local float *tmp)
{
  size_t i = get_global_id(0);
  tmp[get_local_id(0)] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) {
    out[i] = tmp[get_local_id(0)] * b[i] + 0.1f * i - 3.0f;
    c[i] = (char)(i * 40);
    s[i] = (short)(i * 9000 - 20000);
    u[i] = (ulong)i * 0x7000000000000000UL / 3;
    d[i] = 1.0 / (i + 1) * 1e10 * (i % 2 ? -1 : 1);
  }
  if (i == 0) { out[0] = 1.0f/0.0f; out[1] = 1e-7f; out[2] = 123456789.0f; out[3] = -0.0f; out[4]=0.5f/0.0f - 1.0f/0.0f; }
}
