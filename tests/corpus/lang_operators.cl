// Front-end coverage: multi-dimensional private arrays, every compound
// assignment operator, pre/post increment and decrement, the comma and
// conditional operators, short-circuit logic, bitwise and shift operators,
// unary operators, sizeof, casts between integer widths.

__kernel void lang_operators(__global const int *in, __global int *out, __global float *fout)
{
    const int i = get_global_id(0);
    int x = in[i];

    int grid[3][4];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            grid[r][c] = r * 4 + c + x;
    float cube[2][2][2] = { { { 1.0f, 2.0f }, { 3.0f, 4.0f } }, { { 5.0f, 6.0f }, { 7.0f, 8.0f } } };

    int a = x;
    a += 3;
    a -= 1;
    a *= 2;
    a /= 3;
    a %= 1000;
    a <<= 2;
    a >>= 1;
    a &= 0x7fff;
    a |= 0x100;
    a ^= 0x55;

    int b = 0, c = 0;
    b = (c = x & 7, c * 2 + 1); // comma operator
    const int post = c++;
    const int pre = ++c;
    const int down = c--;
    --c;

    const int picked = (x > 50) ? grid[2][3] : (x > 20 ? grid[1][1] : grid[0][0]);
    const bool both = (x > 10) && (grid[0][1] - x == 1);
    const bool either = (x < 0) || (b > 5);
    const int bits = (~x & 0xff) | (x << 3) ^ (x >> 2);
    const short narrow = (short)(x * 7);
    const uchar wrapped = (uchar)(x + 250);

    cube[x & 1][(x >> 1) & 1][(x >> 2) & 1] *= -1.0f;
    float fsum = 0.0f;
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++)
            for (int r = 0; r < 2; r++)
                fsum += cube[p][q][r] * (float)(p + q + r + 1);

    out[i] = a + b + post + pre + down + c + picked + (both ? 1000 : 0) + (either ? 2000 : 0) +
             bits + narrow + wrapped + !x + -x + (int)sizeof(grid);
    fout[i] = fsum / (float)(x + 1);
}
