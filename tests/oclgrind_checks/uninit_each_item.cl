// Every other work-item keeps a value it never set and stores it: each of them is an error of
// its own, as Oclgrind reports it (a block per work-item). The clean twin sets the value in
// every work-item.
__kernel void half_set(__global int *out, int set_all)
{
    int i = get_global_id(0);
    int v;
    if (set_all || (i & 1) == 0)
        v = 3 * i;
    out[i] = v;
}
