// Sums the first n entries of a private table of which only two were written.
__kernel void partial_sum(__global int *out, int n)
{
    int table[4];
    table[0] = 10;
    table[1] = 20;
    int sum = 0;
    for (int k = 0; k < n; k++)
        sum += table[k];
    out[get_global_id(0)] = sum;
}
