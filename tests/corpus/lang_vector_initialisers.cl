// Brace initialisers of vector arrays and of structs with vector members, from lists of
// scalars: each scalar converts to a whole vector element (OpenCL's replicating scalar-to-vector
// conversion), while a vector's own braces list its components. Front-end corner; clang (and so
// PoCL and Oclgrind) read `long16 l[4] = {1, 2, 3, 4}` as four splatted vectors.

typedef struct {
    int4 a;
    int b;
} Pair;

__kernel void lang_vector_initialisers(__global long *wide, __global int *narrow) {
    int i = get_global_id(0);
    long16 l[4] = { 1L, 2L, 3L, 4L };
    int4 w[2] = { 7 + i, 8 };
    int4 v[2] = { { 1, 2, 3, 4 }, 5 };
    Pair p = { i, 2 };
    wide[i] = ((long *)&l[(i / 16) % 4])[i % 16] + i;
    narrow[i] = ((int *)&w[0])[i % 8] + ((int *)&v[0])[(i / 8) % 8] * 10 + p.a.w * 100 + p.b * 1000;
}
