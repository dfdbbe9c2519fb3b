// Front-end coverage: the preprocessor: #include of a local header, object
// and function-like macros, stringizing (#), token pasting (##) forming
// identifiers and kernel names, variadic macros with __VA_ARGS__, macros that
// expand to other macros, multi-line macros, #if/#elif/#else with defined()
// and arithmetic, #undef and redefinition, __LINE__, __OPENCL_C_VERSION__.

#include "corpus_common.h"

#define STRINGIZE(x) #x
#define PASTE(a, b) a##b
#define KERNEL_NAME(stem) PASTE(lang_, stem)
#define SQUARE_OF(x) corpus_square(x)
#define SUM3(a, b, c) ((a) + (b) + (c))
#define SUM_OF(...) SUM3(__VA_ARGS__)
#define FIRST(first, ...) (first)
#define CLAMPED_STORE(buffer, index, value)                                                  \
    do {                                                                                     \
        (buffer)[(index)] = clamp((value), -100.0f, 100.0f);                                 \
    } while (0)

#define SCALE 3
#if defined(SCALE) && SCALE > 2
#define FACTOR 2.0f
#elif defined(SCALE)
#define FACTOR 1.0f
#else
#error "SCALE must be defined"
#endif

// __OPENCL_C_VERSION__ is the language version; older compilers only define
// the device's __OPENCL_VERSION__, and an offline checker may define neither.
#if defined(__OPENCL_C_VERSION__)
#define LANGUAGE_VERSION __OPENCL_C_VERSION__
#elif defined(__OPENCL_VERSION__)
#define LANGUAGE_VERSION __OPENCL_VERSION__
#else
#define LANGUAGE_VERSION 120
#endif
#if LANGUAGE_VERSION >= 120
#define VERSION_TAG 12
#else
#define VERSION_TAG 11
#endif

#define OFFSET 1
#undef OFFSET
#define OFFSET 2

__constant char kernel_label[] = STRINGIZE(lang_macros);

static float PASTE(helper_, twice)(float x)
{
    return FACTOR * x;
}

__kernel void KERNEL_NAME(macros)(__global const float *in, __global float *out, const int width)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const int here = CORPUS_IDX2(row, col, width);
    const float private_values[] = { 1.0f, 2.0f, 3.0f };
    const int line = __LINE__;

    const float v = in[here];
    const float total = SUM_OF(SQUARE_OF(v), helper_twice(v), FIRST(v, 7, 8)) +
                        (float)CORPUS_COUNT(private_values) + (float)(kernel_label[0] - 'l') +
                        (float)(VERSION_TAG + OFFSET) + (float)(line > 0);
    CLAMPED_STORE(out, here, total);
}
