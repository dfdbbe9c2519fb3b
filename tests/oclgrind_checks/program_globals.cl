// Program-scope variables of OpenCL C 2.0: one with an initialiser, one starting as zeros.
global int base = 100;
global int table[4];
global int last;

// Each work-item fills its own entry of the table from `base`.
__kernel void fill(__global int *out)
{
    int i = get_global_id(0);
    table[i] = base + i + table[i];
    out[i] = table[i];
}

// The same, but every work-item also records its id in the one variable `last`.
__kernel void fill_last(__global int *out)
{
    int i = get_global_id(0);
    table[i] = base + i + table[i];
    last = i;
    out[i] = table[i];
}
