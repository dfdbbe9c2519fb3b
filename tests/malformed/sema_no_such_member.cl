// expect-error: 8: no member
// struct pair has no member named z.
struct pair { float x; float y; };
__kernel void k(__global float *out)
{   struct pair p;
    p.x = 1.0f;
    p.y = 2.0f;
    out[0] = p.z;
}
