// Structs that point to themselves (C11 6.7.2.3): a node pointing to itself, two structs
// pointing to each other through a forward declaration, a linked list in __local memory built
// by work-item 0 and walked by every work-item after a barrier, and a ring of nodes in
// __global memory. See recursive_structs.toml.
typedef struct node {
    struct node *next;
    int v;
} node;

struct right;

struct left {
    struct right *other;
    int a;
};

struct right {
    struct left *other;
    int b;
};

typedef struct cell cell;

struct cell {
    __local cell *next;
    int value;
};

struct gnode {
    __global struct gnode *next;
    int value;
};

int walk(__local const cell *c)
{
    int sum = 0;
    while (c != 0) {
        sum += c->value;
        c = c->next;
    }
    return sum;
}

__kernel void recursive_structs(__global int *self_out, __global int *pair_out,
                                __global int *local_out, __global int *global_out,
                                __global ulong *scratch)
{
    __local cell cells[16];
    int gid = (int)get_global_id(0);
    int lid = (int)get_local_id(0);
    int n = (int)get_local_size(0);

    node x;
    x.v = gid * 3;
    x.next = &x;
    self_out[gid] = x.next->next->next->v;

    struct left l;
    struct right r;
    l.other = &r;
    r.other = &l;
    l.a = gid;
    r.b = gid + 100;
    pair_out[gid] = l.other->other->other->b * 2 - r.other->a;

    if (lid == 0) {
        for (int i = 0; i < n; i++) {
            cells[i].value = (int)get_group_id(0) * 16 + i;
            cells[i].next = i + 1 < n ? &cells[i + 1] : 0;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    local_out[gid] = walk(&cells[lid]);

    __global struct gnode *nodes = (__global struct gnode *)scratch;
    int base = gid - lid;
    nodes[gid].value = gid * 7;
    nodes[gid].next = &nodes[base + (lid + 1) % n];
    barrier(CLK_GLOBAL_MEM_FENCE);
    __global struct gnode *g = &nodes[gid];
    int total = 0;
    for (int i = 0; i < 3; i++) {
        total += g->value;
        g = g->next;
    }
    global_out[gid] = total;
}
