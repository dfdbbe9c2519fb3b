typedef struct {
    float x;
    float y;
} vec2_t;

struct particle {
    vec2_t pos;
    vec2_t vel;
    int alive;
};

typedef union {
    float f;
    uint bits;
} float_bits;

typedef struct __attribute__((packed)) {
    char tag;
    int value;
} packed_t;

float energy(__global const struct particle *p) {
    return 0.5f * (p->vel.x * p->vel.x + p->vel.y * p->vel.y);
}

__kernel void structs(__global struct particle *ps, __global float *e, __global packed_t *tags) {
    ulong i = get_global_id(0);
    struct particle p = ps[i];
    vec2_t corners[2] = {{0.0f, 1.0f}, {2.0f, 3.0f}};
    p.pos.x += p.vel.x + corners[1].y;
    float_bits fb;
    fb.f = p.pos.y;
    fb.bits ^= 2147483648u;
    p.pos.y = fb.f;
    ps[i] = p;
    e[i] = energy(ps + i);
    tags[i].value = p.alive;
}
