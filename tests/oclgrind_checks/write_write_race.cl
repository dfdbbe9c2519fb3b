// Every work-item stores its own id to the same element: the last store wins, and which one
// that is depends on scheduling.
__kernel void last_id(__global int *last)
{
    last[0] = get_local_id(0);
}
