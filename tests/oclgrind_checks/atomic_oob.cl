// Each work-item adds 3 to its own bin of a histogram of five bins; the host launches five
// work-items or six. The sixth one's update both reads and writes past the end, and what it
// writes comes from a read out of bounds.
__kernel void tally(__global uint *hist)
{
    uint g = get_global_id(0);
    atomic_add(hist + g, 3u);
}
