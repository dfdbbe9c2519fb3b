// Reads row 0 of a 4x4 table at column n. For n past the row the address is still inside the
// table (it lands in a later row), but the index exceeds the row's declared size.
__kernel void lookup(__global int *out, int n)
{
    int a[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] = i * 4 + j;
    out[get_global_id(0)] = a[0][n];
}

// The same with a table in local memory, each work-item filling its row.
__kernel void lookup_local(__global int *out, int n)
{
    __local int t[2][4];
    int l = get_local_id(0);
    for (int j = 0; j < 4; j++)
        t[l][j] = l * 4 + j;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
        out[0] = t[0][n];
}
