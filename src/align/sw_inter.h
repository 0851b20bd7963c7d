/*
 * sw_inter.h - the inter-sequence score pass (sw_inter_avx2.c): many
 * targets at once, one per SIMD lane, as SWIPE does (Rognes, BMC
 * Bioinformatics 12:221, 2011), for the database search (db_search.c).
 *
 * Scores only (no end cell), with the rules of sw_device.h: local
 * alignment, a gap of length k costs open + (k - 1) * extend.  A batch is
 * up to 32 targets in 8-bit lanes or 16 in 16-bit lanes; the values are
 * unsigned and biased (a matrix entry plus `bias` is never negative), so a
 * cell is max(diag + entry + bias - bias, E, F) with saturating adds and
 * subtractions that floor at 0, which is the local alignment's own floor.
 * A lane whose best score reaches `limit` (the width's largest value less
 * the largest biased entry) may have been clipped: it is reported as
 * saturated for a wider pass.  The 16-bit limit is the striped 16-bit
 * engine's (INT16_MAX less the largest entry), so that the same targets go
 * to 32 bits whichever kernel ran.
 */
#ifndef HAY_SW_INTER_H
#define HAY_SW_INTER_H

#include "align_internal.h"

#include <stdint.h>

#define HAY_SW_INTER_LANES8 32
#define HAY_SW_INTER_LANES16 16

/* A scoring's biased tables: read-only, shared by threads. */
typedef struct sw_inter {
    int alpha;
    int usable8, usable16;       /* whether each width can hold the scoring */
    int32_t bias;                /* -min(min_score, 0) */
    int32_t limit8, limit16;     /* a lane at or above this saturated */
    int32_t open8, ext8, open16, ext16;  /* clamped to the width */
    /* row a (query code) by target code: matrix + bias; codes >= alpha
     * and the padding code (0x80, see the .c) give 0 */
    uint8_t table[HAY_ALIGN_MAX_ALPHA][32];
} sw_inter;

/* Whether this CPU runs the kernel (AVX2). */
int hay_sw_inter_supported(void);

/* Fills x for scoring s (nothing to free). */
void hay_sw_inter_prepare(const hay_align_scoring *s, sw_inter *x);

/* Marks a lane's score that saturated at the pass's width. */
#define HAY_SW_INTER_SATURATED (-1)

/*
 * One pass of `bits` (8 or 16, with x->usable8/16 set) over count targets
 * (1 .. 32 or 16; t[k] may be NULL when n[k] is 0), the query q of m >= 1
 * residues: scores[k] is target k's best local score, or
 * HAY_SW_INTER_SATURATED.  HAY_ERR_NOMEM, HAY_ERR_INVALID.
 */
hay_status hay_sw_inter_pass(const sw_inter *x, int bits, const uint8_t *q,
                             size_t m, const uint8_t *const *t,
                             const size_t *n, size_t count, int32_t *scores);

/*
 * Up to 32 targets: 8-bit lanes where the scoring fits them, the lanes
 * that saturated (or all, when 8 bits do not fit) again in 16-bit lanes;
 * scores[k] is then exact, or HAY_SW_INTER_SATURATED for a target that
 * needs 32 bits (every target when 16 bits do not fit the scoring either).
 */
hay_status hay_sw_inter_scores(const sw_inter *x, const uint8_t *q, size_t m,
                               const uint8_t *const *t, const size_t *n,
                               size_t count, int32_t *scores);

#endif
