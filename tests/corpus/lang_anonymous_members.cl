// Front-end coverage: anonymous struct and union members (C11 6.7.2.1p13). A complex
// type in the form numerical libraries generate for OpenCL (a union of two anonymous
// structs, `x`/`y` and `re`/`im`, with an alignment attribute on each), a tagged record
// holding an anonymous union beside named members, and anonymous records nested two
// deep. Members are reached through the anonymous levels by name, the layout (sizes,
// offsets) follows C's rules, and brace initialisers treat an anonymous member as the
// sub-aggregate it is.

#define DECLARE_COMPLEX(BASE)                                      \
    typedef union {                                                \
        struct { BASE x, y; } __attribute__((aligned(8)));         \
        struct { BASE re, im; } __attribute__((aligned(8)));       \
    } c##BASE##_t;                                                 \
    inline c##BASE##_t c##BASE##_new(BASE re, BASE im)             \
    {                                                              \
        c##BASE##_t r;                                             \
        r.re = re;                                                 \
        r.im = im;                                                 \
        return r;                                                  \
    }                                                              \
    inline c##BASE##_t c##BASE##_mul(c##BASE##_t a, c##BASE##_t b) \
    {                                                              \
        return c##BASE##_new(a.re * b.re - a.im * b.im,            \
                             a.re * b.im + a.im * b.re);           \
    }

DECLARE_COMPLEX(float)

// A value that is either an integer or a float, tagged; the union has no name.
struct tagged {
    int is_float;
    union {
        int i;
        float f;
    };
    float weight;
};

// Two levels: an anonymous struct inside an anonymous union.
typedef struct {
    union {
        struct {
            short lo, hi;
        };
        int both;
    };
    char flag;
} halves;

__kernel void lang_anonymous_members(__global const float2 *a,
                                     __global const float2 *b,
                                     __global float2 *product,
                                     __global int *layout)
{
    const size_t i = get_global_id(0);
    const cfloat_t p = cfloat_mul(cfloat_new(a[i].x, a[i].y), cfloat_new(b[i].x, b[i].y));
    // `x`/`y` and `re`/`im` name the same bytes.
    product[i] = (float2)(p.x, p.im);

    struct tagged t = { 1, { 7 }, 0.25f };
    if (i % 2 == 0) {
        t.f = a[i].x;
    } else {
        t.is_float = 0;
        t.i = (int)i;
    }
    const float value = t.is_float ? t.f : (float)t.i;

    halves h;
    h.both = 0;
    h.lo = (short)i;
    h.hi = 3;
    h.flag = 1;

    layout[4 * i] = (int)sizeof(cfloat_t) * 100 + (int)sizeof(struct tagged) * 10 +
                    (int)sizeof(halves);
    layout[4 * i + 1] = h.both;
    layout[4 * i + 2] = (int)(value * 4.0f * t.weight * 1000.0f);
    layout[4 * i + 3] = (int)((char *)&t.weight - (char *)&t) * 10 +
                        (int)((char *)&h.flag - (char *)&h);
}
