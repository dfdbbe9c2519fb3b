__kernel void control_flow(__global const int *in, __global int *out) {
    int x = in[get_global_id(0)];
    int acc = 0;
    switch (x & 7) {
        case 0:
            acc = 1;
        case 1:
            acc += 2;
            break;
        case 2:
        case 3:
            {
                int t = x * 2;
                acc = t;
                break;
            }
        default:
            acc = -1;
    }
    #pragma unroll 4
    for (int i = 0, j = 8; i < j; i++, j--) {
        if (i == 2) {
            continue;
        }
        acc += i * j;
    }
    int n = x;
    do {
        n /= 2;
    } while (n > 1);
    while (1) {
        if (acc > 100) {
            break;
        } else if (acc < -100) {
            acc = 0;
        } else {
            acc += 17;
        }
    }
    for (;;) {
        acc--;
        if (acc % 5 == 0) {
            break;
        }
    }
    {
        int scoped = acc + n;
        out[get_global_id(0)] = scoped;
    }
}
