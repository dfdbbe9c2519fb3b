// Sums column 1 of the first `rows` rows of a grid held in a struct, reached through a
// pointer to it. Rows past the third are still inside the struct (its tail follows the
// grid), but their index exceeds the grid's declared size.
struct Board {
    short cells[3][4];
    int tail[8];
};

__kernel void column(__global int *out, int rows)
{
    struct Board b;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            b.cells[r][c] = (short)(r * 4 + c);
    for (int t = 0; t < 8; t++)
        b.tail[t] = 100 + t;
    struct Board *p = &b;
    int sum = 0;
    for (int r = 0; r < rows; r++)
        sum += p->cells[r][1];
    out[get_global_id(0)] = sum;
}
