// Front-end coverage: string literals used as values (C99 6.4.5), the way generated and
// hand-written kernels use them: passed to a `__constant char *` parameter, held in a
// pointer, subscripted, measured with `sizeof`, compared byte by byte, and chosen between
// with `?:`. OpenCL C 1.2 (6.5.3) puts each literal in the constant address space; equal
// literals may share storage, and every literal ends with a NUL.

// Copies the first n bytes of s to out, as a string-building kernel does.
inline void copy_bytes(__constant const char *s, int n, __global char *out)
{
    for (int i = 0; i < n; ++i)
        out[i] = s[i];
}

// Length of a NUL-terminated string in the constant space.
inline int length(__constant const char *s)
{
    int n = 0;
    while (s[n] != '\0')
        ++n;
    return n;
}

// Sum of the bytes of a word, a small hash.
inline int byte_sum(__constant const char *s)
{
    int sum = 0;
    for (int i = 0; s[i]; ++i)
        sum += s[i];
    return sum;
}

__kernel void lang_string_literals(__global const int *in, __global char *text,
                                   __global int *numbers)
{
    int i = get_global_id(0);
    int v = in[i];
    // Fizz buzz into 8 bytes per work-item.
    __global char *mine = text + 8 * i;
    __constant char *word = (v % 15 == 0) ? "fizzbuzz" : (v % 5 == 0) ? "buzz" : "fizz";
    if (v % 3 == 0 || v % 5 == 0) {
        copy_bytes(word, length(word), mine);
    } else {
        mine[0] = "0123456789"[v % 10];
        mine[1] = "0123456789"[(v / 10) % 10];
    }
    // Sizes and lengths: a literal's size counts its NUL; an embedded NUL ends the string early.
    numbers[4 * i + 0] = sizeof("fizzbuzz") + 10 * sizeof("");
    numbers[4 * i + 1] = length("ab\0cd") + 10 * length("tab\there");
    numbers[4 * i + 2] = byte_sum("fizz") * (v & 1) + byte_sum("buzz") * (1 - (v & 1));
    // Escapes: octal, hexadecimal and simple escapes give the bytes C says they do.
    numbers[4 * i + 3] = "\101\x42\n\\"[v & 3];
}
