/*
 * marks.c - a piece's bitmap of match ends into the caller's (marks.h).
 */
#include "marks.h"

/* 64 bits of the piece's bitmap w (n32 32-bit words) from bit 64 k on
 * (k >= -1); 0 outside it. */
static uint64_t src64(const uint32_t *w, uint64_t n32, int64_t k)
{
    if (k < 0 || (uint64_t)k * 2 >= n32)
        return 0;
    uint64_t i = (uint64_t)k * 2;
    return (uint64_t)w[i] | (i + 1 < n32 ? (uint64_t)w[i + 1] << 32 : 0);
}

void hay_cuda_put_marks(uint64_t *marks, uint64_t at, const uint32_t *w, uint64_t nbits)
{
    if (!nbits)
        return;
    uint64_t n32 = (nbits + 31) / 32, base = at / 64, last = (at + nbits - 1) / 64;
    unsigned sh = (unsigned)(at % 64);
    if (sh == 0) {
        /* Whole words: the pairs of 32-bit words, low one first. */
        uint64_t n64 = n32 / 2;
        for (uint64_t k = 0; k < n64; k++)
            marks[base + k] = (uint64_t)w[2 * k] | (uint64_t)w[2 * k + 1] << 32;
        if (n32 % 2)
            marks[base + n64] = w[n32 - 1];
        return;
    }
    /* Word base began in the piece before (OR); the others begin here. */
    marks[base] |= src64(w, n32, 0) << sh;
    for (uint64_t j = base + 1; j <= last; j++) {
        int64_t k = (int64_t)(j - base);
        marks[j] = src64(w, n32, k - 1) >> (64 - sh) | src64(w, n32, k) << sh;
    }
}
