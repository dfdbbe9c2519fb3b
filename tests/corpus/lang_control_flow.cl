// Front-end coverage: switch with fallthrough, grouped cases and default;
// do/while; for with two induction variables and the comma operator; while
// with break; continue and break inside for; early return of some work-items.

__kernel void lang_control_flow(__global const int *in, __global int *out)
{
    const size_t i = get_global_id(0);
    const int x = in[i];

    if (x < 0) {
        out[i] = -1;
        return;
    }

    int acc = 0;
    switch (x % 6) {
    case 0:
        acc += 1;
        // fall through
    case 1:
        acc += 10;
        break;
    case 2:
    case 3:
        acc = 100;
        break;
    default:
        acc = -5;
    }

    // Collatz steps, bounded so that every input terminates.
    int n = x + 1;
    int steps = 0;
    do {
        n = (n % 2) ? 3 * n + 1 : n / 2;
        steps++;
    } while (n > 1 && steps < 64);

    for (int k = 0; k < 32; k++) {
        if (k % 3 == 0)
            continue;
        if (k * k > x * 4)
            break;
        acc += k;
    }

    int w = 0;
    while (w < x) {
        w += 3;
        if (w == 9)
            break;
    }

    for (int a = 0, b = 10; a < b; a++, b--)
        acc += a * b;

    out[i] = acc * 1000 + steps * 10 + w;
}
