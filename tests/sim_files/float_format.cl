__kernel void fcopy(__global const float *in, __global float *out, __global double *dout)
{
  size_t i = get_global_id(0);
  out[i] = in[i];
  dout[i] = (double)in[i] * 3.0;
  if (i == 0) { out[0] = 0.0f/0.0f; out[1] = -1.0f/0.0f; }
}
