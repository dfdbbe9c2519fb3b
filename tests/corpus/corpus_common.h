// Helpers shared by corpus kernels through #include "corpus_common.h".
// Kept small on purpose: it exists to exercise include handling (search path
// relative to the including file, include guards, spans inside a header).

#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

// Row-major index of (row, col) in a matrix of the given width.
#define CORPUS_IDX2(row, col, width) ((row) * (width) + (col))

// Number of elements of a private array.
#define CORPUS_COUNT(array) (sizeof(array) / sizeof((array)[0]))

typedef float corpus_real;

static inline corpus_real corpus_square(corpus_real x)
{
    return x * x;
}

#endif // CORPUS_COMMON_H
