// Records built in private memory and copied whole to global memory. Their padding is never
// written, which is no error; a member taken from local memory nothing wrote is (`fill` = 0).
struct Sample {
    char kind;
    long stamp;
    short chan;
};

struct Pair {
    short id;
    struct Sample first;
    char flag;
};

struct __attribute__((packed)) Tight {
    uchar kind;
    int stamp;
    ushort chan;
};

__kernel void record(__local long *scratch, __global struct Sample *out, int fill)
{
    if (fill)
        *scratch = 0x0102030405060708;
    struct Sample s = {3, *scratch, 9};
    *out = s;
}

__kernel void record_pair(__local long *scratch, __global struct Pair *out, int fill)
{
    if (fill)
        *scratch = 77;
    struct Pair p = {5, {6, *scratch, 7}, 8};
    *out = p;
}

__kernel void record_tight(__local int *scratch, __global struct Tight *out, int fill)
{
    if (fill)
        *scratch = 0x11223344;
    struct Tight t = {2, *scratch, 0x0506};
    *out = t;
}
