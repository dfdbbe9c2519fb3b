__kernel void precedence(__global int *out, __global const uint *in, int k) {
    int i = (int)get_global_id(0);
    uint x = in[i];
    int a = i + 1;
    int b = i - 2;
    int c = i * 3;
    out[0] = (a + b) * c - (a - (b - c));
    out[1] = a - b - c + a / (b | 1) % 7;
    out[2] = (int)(x << (k + 1)) + (int)((x & 255u) | (x >> 3));
    out[3] = (a < b) == (b < c);
    out[4] = (a && b) || !c;
    out[5] = a > 0 ? b : c < 0 ? -c : c;
    out[6] = -(-a) + ~b + !(a == c);
    a += b *= 2;
    out[7] = a++ + --b;
    out[8] = (a, b);
    out[9] = (a ^ b) & (c | k);
}
