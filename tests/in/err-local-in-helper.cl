float helper(float x)
{
    __local float scratch[4];
    scratch[0] = x;
    return scratch[0];
}

__kernel void caller(__global float *out)
{
    out[0] = helper(out[1]);
}
