/*
 * marks.h - the host side of the CUDA driver's marks (hay_scan_marks,
 * marks.c): a piece's bitmap of match ends, made by the kernels in 32-bit
 * words (cuda_engine.h, d_marks), OR-ed into the caller's 64-bit words.
 *
 * Plain C on the host (no CUDA): tests/internal/cuda_marks.c runs it alone.
 */
#ifndef HAY_CUDA_MARKS_H
#define HAY_CUDA_MARKS_H

#include <stdint.h>

/* Puts nbits bits w (32-bit words, bit i % 32 of w[i / 32] for byte at + i)
 * into marks (bit j % 64 of marks[j / 64] for byte j), for pieces handed
 * over in order from byte 0 (so marks need not be zeroed first): the
 * words that begin in the piece are written whole, the one that began in
 * the piece before (a start that is not a multiple of 64) is OR-ed into.
 * Bits of w past nbits must be 0, and marks must hold the words of bytes
 * below at + nbits; no other word is touched. */
void hay_cuda_put_marks(uint64_t *marks, uint64_t at, const uint32_t *w, uint64_t nbits);

#endif
