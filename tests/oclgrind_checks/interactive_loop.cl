int triple(int x)
{
  int t = 3 * x;
  return t;
}

kernel void interactive_loop(global int *in, global int *out)
{
  int i = get_global_id(0);
  int sum = 0;
  int parts[3];
  for (int k = 0; k < 3; k++)
  {
    parts[k] = in[i * 3 + k];
    sum += parts[k];
  }
  float4 v = (float4)(sum, 0.5f, -2.0f, 1e7f);
  out[i] = triple(sum);
}
