// Front-end coverage: kernel attributes (reqd_work_group_size,
// work_group_size_hint, vec_type_hint), variable and type attributes
// (aligned, packed), loop pragmas (#pragma unroll, #pragma unroll N).

typedef struct __attribute__((packed)) {
    char tag;
    int value;
} packed_record;

typedef struct __attribute__((aligned(16))) {
    float weight;
    int count;
} aligned_record;

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
__attribute__((vec_type_hint(float4)))
void lang_attributes_required(__global const float4 *in, __global float4 *out)
{
    __local float4 tile[64] __attribute__((aligned(16)));
    const size_t lid = get_local_id(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);

    float4 sum = (float4)(0.0f);
#pragma unroll
    for (int k = 0; k < 4; k++)
        sum += tile[(lid + k) % 64];
    out[get_global_id(0)] = sum;
}

__kernel __attribute__((work_group_size_hint(64, 1, 1)))
void lang_attributes_hinted(__global const int *in, __global int *out)
{
    packed_record record;
    record.tag = 'p';
    record.value = in[get_global_id(0)];
    aligned_record extra = { 0.5f, 3 };

    int acc = 0;
#pragma unroll 4
    for (int k = 0; k < 8; k++)
        acc += record.value >> k;
    out[get_global_id(0)] = acc + (int)sizeof(packed_record) * 100 +
                            (int)sizeof(aligned_record) * 1000 + extra.count + record.tag;
}
