// OpenCL C 2.0 program-scope pointers initialised with the addresses of other program-scope
// variables: an element, a struct member's element, an offset pointer and a cast.
typedef struct
{
    int tag;
    float weights[3];
} Entry;

global Entry table[2] = {{1, {0.5f, 1.5f, 2.5f}}, {2, {3.5f, 4.5f, 5.5f}}};
constant short steps[4] = {10, 20, 30, 40};
global float *second_weight = &table[1].weights[1];
global Entry *first_entry = table;
constant short *last_step = steps + 3;
global int *first_tag = (global int *)&table;

__kernel void read_through(__global float *out)
{
    out[0] = *second_weight;
    out[1] = first_entry[1].weights[2];
    out[2] = *last_step;
    out[3] = first_tag[4];
    // The pointers are variables: moved, they point elsewhere for the rest of the program.
    second_weight += 1;
    out[4] = *second_weight;
}
