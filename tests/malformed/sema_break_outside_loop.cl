// expect-error: 4: break
// break is only valid inside a loop or a switch.
__kernel void k(__global int *out)
{   if (out[0] > 0) break;
    out[0] = 1;
}
