// Each work-group writes its own id to its own element.
__kernel void group_ids(__global int *ids)
{
    if (get_local_id(0) == 0)
        ids[get_group_id(0)] = get_group_id(0) + 1;
}
