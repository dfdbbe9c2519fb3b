struct node {
    struct node *next;
    int v;
};

typedef struct node node;

struct a {
    struct b *p;
    int y;
};

struct b {
    struct a *q;
    int x;
};

struct opaque;

struct inner {
    int w;
};

struct outer {
    struct inner in;
    __local struct outer *self;
};

typedef struct list list;

struct list {
    __local struct list *next;
    int value;
};

int walk(__local struct list *head, __global struct opaque *unused) {
    int sum = 0;
    for (__local struct list *l = head; l != 0; l = l->next) {
        sum += l->value;
    }
    return sum;
}

__kernel void recursive_structs(__global int *out, __global struct opaque *handle) {
    __local struct list cells[4];
    struct node n;
    n.v = 7;
    n.next = &n;
    struct a left;
    struct b right;
    left.p = &right;
    right.q = &left;
    right.x = 5;
    left.y = 6;
    if (get_local_id(0) == 0) {
        for (int i = 0; i < 4; i++) {
            cells[i].value = i + 1;
            cells[i].next = i < 3 ? &cells[i + 1] : 0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = n.next->next->next->v + left.p->q->p->x + walk(cells, handle);
}
