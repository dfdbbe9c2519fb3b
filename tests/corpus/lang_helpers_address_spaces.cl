// Front-end coverage: helper functions taking pointers in each address space
// (global, local, constant, private), pointer arithmetic and pointer
// differences in all of them, address-space keywords without underscores,
// restrict, const and volatile qualifiers, a void helper writing through a
// local pointer.

constant float weights[4] = { 0.1f, 0.2f, 0.3f, 0.4f };

float sum_global(const global float *p, int n)
{
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += *(p + k);
    return s;
}

float sum_local(const local float *p, int n)
{
    float s = 0.0f;
    const local float *end = p + n;
    while (p < end)
        s += *p++;
    return s;
}

float weighted_constant(constant float *w, int n, float x)
{
    float s = 0.0f;
    for (constant float *q = w; q != w + n; ++q)
        s += *q * x;
    return s;
}

float sum_private(const private float *p, int n)
{
    float s = 0.0f;
    for (int k = n - 1; k >= 0; k--)
        s += p[k];
    return s;
}

void scale_in_place(local float *p, float factor)
{
    *p *= factor;
}

kernel void lang_helpers_address_spaces(global const float *restrict in,
                                        global float *restrict out,
                                        local float *scratch,
                                        volatile global int *groups_done)
{
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);

    scratch[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);

    private float priv[4] = { in[gid], 1.0f, 2.0f, 3.0f };
    private float *pp = priv + 1;
    pp[1] += 1.0f;

    local float *group_start = scratch;
    local float *mine = group_start + lid;
    const global float *quad = in + (gid / 4) * 4;

    const float s = sum_global(quad, 4) + sum_local(scratch + (lid & ~3), 4) +
                    weighted_constant(weights, 4, *mine) + sum_private(priv, 4);
    const ptrdiff_t distance = mine - group_start;
    barrier(CLK_LOCAL_MEM_FENCE); // all reads of the neighbours' cells are done

    scale_in_place(mine, 2.0f);
    out[gid] = s + (float)distance + *mine;

    if (lid == 0)
        atomic_inc(groups_done);
}
