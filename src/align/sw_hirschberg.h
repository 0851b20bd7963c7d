/*
 * sw_hirschberg.h - what sw_global.c (the traceback on one thread) and
 * sw_hirschberg.c (the same traceback on many) share: Myers and Miller's
 * half pass, the choice of the split point, and the serial recursion on a
 * sub-rectangle.  Costs and names are sw_global.c's (g = open - extend,
 * h = extend, C best cost, D a path ending in a vertical gap).
 */
#ifndef HAY_SW_HIRSCHBERG_H
#define HAY_SW_HIRSCHBERG_H

#include "align_internal.h"

/*
 * One half pass: the global costs of rows 1..rows of a rectangle with n
 * columns, from the top row of a sub-rectangle (C(0, 0) = 0,
 * C(0, j) = g + h j), a left column whose vertical gap opens at t0
 * (C(i, 0) = t0 + h i), row i scoring a[i - 1] against column j's
 * b[j - 1]; rev: both run backwards (a[-(i - 1)], b[-(j - 1)]), the
 * reverse pass.  Writes the last row into cc and dd (n + 1 each;
 * dd[0] = cc[0]).  tile 0: one loop on this thread; else tiles of about
 * tile x tile cells along anti-diagonals as OpenMP tasks (inside a parallel
 * region; the caller's task waits for them).  Returns 0, or -1 when the
 * tiles' edges cannot be allocated.
 */
int hay_mm_half(const hay_align_scoring *s, const uint8_t *a, const uint8_t *b,
                int rev, size_t rows, size_t n, int64_t t0, size_t tile,
                int64_t *cc, int64_t *dd);

/*
 * The split of a rectangle with n columns from the forward pass's last row
 * (cc, dd) and the reverse pass's (rr, ss): the column *bjm and the type
 * (1: any path; 2: a vertical gap across the middle).  Ties: the smallest
 * column, and at one column type 1 before type 2.  This alone decides
 * which of several optimal alignments the traceback returns.
 */
void hay_mm_split(const int64_t *cc, const int64_t *dd, const int64_t *rr,
                  const int64_t *ss, size_t n, int64_t g, size_t *bjm,
                  int *type);

/*
 * The traceback of a[0, m) x b[0, n) on this thread (sw_global.c): tb, te
 * the costs of a vertical gap opening at its top and bottom; ops
 * (capacity m + n) gets the ops, *len their count; *linear set to 1 when
 * it split.  budget as in hay_sw_global_ops.
 */
hay_status hay_mm_serial(const hay_align_scoring *s, const uint8_t *a,
                         size_t m, const uint8_t *b, size_t n, int64_t tb,
                         int64_t te, uint64_t budget, char *ops, size_t *len,
                         int *linear);

/* Whether a rectangle of m x n is solved with the full direction matrix
 * under budget (before any allocation fails). */
int hay_mm_fits(uint64_t budget, size_t m, size_t n);

/*
 * The traceback of a[0, m) x b[0, n) on `threads` threads
 * (sw_hirschberg.c): the same splits as hay_mm_serial while a rectangle
 * does not fit the budget and has split_cells cells or more, the two half
 * passes of a split at once (tiled when large), the two halves after it as
 * tasks; smaller rectangles go to hay_mm_serial.  The ops of the
 * sub-rectangle at (i, j) start at ops[i + j], so ops (capacity m + n,
 * zeroed by the caller) comes back with zero bytes between runs.
 */
hay_status hay_mm_parallel(const hay_align_scoring *s, const uint8_t *a,
                           size_t m, const uint8_t *b, size_t n,
                           uint64_t budget, int threads, uint64_t split_cells,
                           size_t tile, char *ops, int *linear);

#endif
