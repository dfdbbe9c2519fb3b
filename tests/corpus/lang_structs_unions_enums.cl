// Front-end coverage: structs (named, typedef'd, anonymous, nested, arrays of
// structs, struct copy, brace and designated initialisers), unions for type
// punning, enums with explicit values, typedef'd scalars, a helper taking an
// enum and a struct by value.

typedef float real;

typedef struct {
    real x;
    real y;
} point2;

struct particle {
    float4 pos;
    point2 vel;
    int kind;
};
typedef struct particle particle_t;

typedef union {
    float f;
    uint u;
    uchar bytes[4];
} float_bits;

enum shape_kind { SHAPE_CIRCLE, SHAPE_SQUARE = 4, SHAPE_TRIANGLE };
typedef enum shape_kind shape_kind_t;

static real area(shape_kind_t kind, real size)
{
    switch (kind) {
    case SHAPE_CIRCLE:
        return 3.14159265f * size * size;
    case SHAPE_SQUARE:
        return size * size;
    default:
        return 0.5f * size * size;
    }
}

static real speed_of(struct particle p)
{
    return sqrt(p.vel.x * p.vel.x + p.vel.y * p.vel.y);
}

__kernel void lang_structs_unions_enums(__global const float4 *in,
                                        __global float *out,
                                        __global uint *bits)
{
    const size_t i = get_global_id(0);
    const float4 v = in[i];

    particle_t p;
    p.pos = v;
    p.vel.x = v.x * 0.5f;
    p.vel.y = v.y;
    p.kind = (int)(i % 3);

    struct particle copy = p; // whole-struct copy
    copy.pos.w += 1.0f;

    point2 corners[2] = { { 0.0f, 1.0f }, { .x = 2.0f, .y = 3.0f } };
    corners[1].y += copy.vel.x;

    float_bits fb;
    fb.f = v.z;
    bits[i] = fb.u ^ (uint)fb.bytes[0] ^ (uint)SHAPE_TRIANGLE;

    const shape_kind_t kind = copy.kind == 0   ? SHAPE_CIRCLE
                              : copy.kind == 1 ? SHAPE_SQUARE
                                               : SHAPE_TRIANGLE;
    out[i] = area(kind, v.w) + speed_of(copy) + corners[0].y + corners[1].y + copy.pos.w -
             p.pos.w;
}
