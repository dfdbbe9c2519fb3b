// A struct only declared may be pointed to, never held by value.
struct later;

struct holder {
    struct later inside;
};

__kernel void uses(__global struct later *p, __global int *out)
{
    struct later value;
    out[0] = sizeof(struct later);
    out[1] = p->field;
    p++;
}
