// Records each work-item's linear ids (OpenCL C 2.0) at its linear global position, in a
// launch whose last work-groups are partial in two dimensions.
__kernel void record_linear_ids(__global int *global_ids, __global int *local_ids)
{
    size_t g = get_global_linear_id();
    global_ids[g] = (int)(get_global_id(0) + 10 * get_global_id(1));
    local_ids[g] = (int)get_local_linear_id();
}
