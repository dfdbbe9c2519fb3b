// expect-error: 5: case label outside switch
// The case label is inside an if, not a switch.
__kernel void k(__global int *out)
{   if (out[0] > 0) {
    case 1:
        out[0] = 2;
    }
}
