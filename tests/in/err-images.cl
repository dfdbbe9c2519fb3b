void takes_output(write_only image2d_t out) {}

__kernel void misuse(read_only image2d_t in, write_only image2d_t out, sampler_t s)
{
    int2 at = (int2)(0, 0);
    float4 wrong = in + 1;
    write_imagef(in, at, wrong);
    float4 never = read_imagef(out, s, at);
    takes_output(in);
    in = in;
    image2d_t copy = in;
    sampler_t bad = 0x1234;
    sampler_t varying = get_global_id(0);
}
