/* align_diff.h - the aligner's differential check, shared by the fuzz
 * targets that build a scoring (fuzz_align, fuzz_matrix). */
#ifndef HAY_FUZZ_ALIGN_DIFF_H
#define HAY_FUZZ_ALIGN_DIFF_H

#include "haystack_align.h"

/*
 * q (m codes) against t (n codes) with s: every variant this CPU runs,
 * score-only, with the full-matrix traceback and the linear-space one, must
 * give the scalar reference's score and end cell, and every CIGAR must
 * rescore to the score; otherwise abort().  A pair whose score the library
 * refuses (HAY_ERR_TOO_LARGE) must be refused by every variant.
 */
void align_diff_check(const hay_align_scoring *s, const uint8_t *q, size_t m,
                      const uint8_t *t, size_t n);

/* The same with the query and target made of m and n bytes taken modulo
 * the scoring's alphabet. */
void align_diff_bytes(const hay_align_scoring *s, const uint8_t *qb, size_t m,
                      const uint8_t *tb, size_t n);

#endif
