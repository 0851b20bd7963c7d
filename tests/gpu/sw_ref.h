/*
 * sw_ref.h - the scalar Gotoh reference of the GPU Smith-Waterman tests
 * (sw_cuda_test.c, sw_db_test.c): local alignment, affine gaps (a gap of k
 * costs go + (k - 1) * ge), linear space, row by row.  The first cell
 * reaching the best score in row-major order is the smallest q_end, then
 * the smallest t_end (src/align/sw_device.h's tie rule).  H and F hold
 * n + 1 entries each.
 */
#ifndef HAY_TEST_SW_REF_H
#define HAY_TEST_SW_REF_H

#include <stddef.h>
#include <stdint.h>

#define REF_NEG (-(1 << 29))

static inline int32_t sw_ref_gotoh(const uint8_t *q, size_t m, const uint8_t *t, size_t n,
                                   const int32_t *mat, int alpha, int go, int ge,
                                   int32_t *H, int32_t *F, uint64_t *qe, uint64_t *te)
{
    int32_t best = 0;
    uint64_t bi = 0, bj = 0;
    for (size_t j = 0; j <= n; j++) {
        H[j] = 0;
        F[j] = REF_NEG;
    }
    for (size_t i = 1; i <= m; i++) {
        const int32_t *row = mat + (size_t)q[i - 1] * (size_t)alpha;
        int32_t diag = 0, e = REF_NEG, hleft = 0;
        for (size_t j = 1; j <= n; j++) {
            int32_t a = e - ge, b = hleft - go;
            e = a > b ? a : b;
            a = F[j] - ge;
            b = H[j] - go;
            int32_t f = a > b ? a : b;
            int32_t h = diag + row[t[j - 1]];
            if (e > h)
                h = e;
            if (f > h)
                h = f;
            if (h < 0)
                h = 0;
            diag = H[j];
            H[j] = h;
            F[j] = f;
            hleft = h;
            if (h > best) {
                best = h;
                bi = i - 1;
                bj = j - 1;
            }
        }
    }
    if (qe)
        *qe = bi;
    if (te)
        *te = bj;
    return best;
}

#endif
