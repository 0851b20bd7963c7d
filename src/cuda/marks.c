/*
 * marks.c - a piece's bitmap of match ends into the caller's (marks.h).
 */
#include "marks.h"

void hay_cuda_put_marks(uint64_t *marks, uint64_t at, const uint32_t *w, uint64_t nbits)
{
    uint64_t n32 = (nbits + 31) / 32, base = at / 64;
    unsigned sh = (unsigned)(at % 64);
    for (uint64_t k = 0; 2 * k < n32; k++) {
        uint64_t v = (uint64_t)w[2 * k] | (2 * k + 1 < n32 ? (uint64_t)w[2 * k + 1] << 32 : 0);
        if (!v)
            continue;
        marks[base + k] |= v << sh;
        /* A bit carried into the next word marks a byte below at + nbits,
         * so that word is the caller's. */
        if (sh && v >> (64 - sh))
            marks[base + k + 1] |= v >> (64 - sh);
    }
}
