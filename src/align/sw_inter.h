/*
 * sw_inter.h - the inter-sequence score pass: many targets at once, one
 * per SIMD lane, as SWIPE does (Rognes, BMC Bioinformatics 12:221, 2011),
 * for the database search (db_search.c).  sw_inter.c: the scoring's
 * tables, the 8 -> 16-bit cascade, the choice of instance;
 * sw_inter_impl.h: the loops, instantiated by sw_inter_avx2.c (32 8-bit or
 * 16 16-bit lanes) and sw_inter_avx512.c (AVX-512BW: 64 or 32).
 *
 * Scores only (no end cell), with the rules of sw_device.h: local
 * alignment, a gap of length k costs open + (k - 1) * extend.  The values
 * are unsigned and biased (a matrix entry plus `bias` is never negative),
 * so a cell is max(diag + (entry + bias) - bias, E, F) with saturating
 * adds and subtractions that floor at 0, which is the local alignment's
 * own floor.  A lane whose best score reaches `limit` (the width's largest
 * value less the largest biased entry) may have been clipped: it is
 * reported as saturated for a wider pass.  The 16-bit limit is the striped
 * 16-bit engine's (INT16_MAX less the largest entry), so that the same
 * targets go to 32 bits whichever kernel ran.
 */
#ifndef HAY_SW_INTER_H
#define HAY_SW_INTER_H

#include "align_internal.h"

#include <stdint.h>

/* The most targets a pass takes: 8-bit lanes of the widest instance. */
#define HAY_SW_INTER_MAX_LANES 64

/* Instances (sw_inter.isa). */
enum { HAY_SW_INTER_NONE, HAY_SW_INTER_AVX2, HAY_SW_INTER_AVX512 };

/* A scoring's biased tables and the instance that runs them: read-only,
 * shared by threads. */
typedef struct sw_inter {
    int isa;                     /* HAY_SW_INTER_*; NONE: the CPU has none */
    int lanes8, lanes16;         /* targets a pass at each width */
    int alpha;
    int usable8, usable16;       /* whether each width can hold the scoring */
    int32_t bias;                /* -min(min_score, 0) */
    int32_t limit8, limit16;     /* a lane at or above this saturated */
    int32_t open8, ext8, open16, ext16;  /* clamped to the width */
    /* row a (query code) by target code: matrix + bias; codes >= alpha
     * and the padding code (0x80) give 0 */
    uint8_t table[HAY_ALIGN_MAX_ALPHA][32];
} sw_inter;

/* A thread's scratch, kept from one pass to the next (zero it first;
 * hay_sw_inter_work_free releases it). */
typedef struct sw_inter_work {
    void *mem;
    size_t cap;
} sw_inter_work;

void hay_sw_inter_work_free(sw_inter_work *w);

/* Whether this CPU runs instance isa (AVX2, AVX-512BW). */
int hay_sw_inter_isa_supported(int isa);

/* Fills x for scoring s and instance isa (NONE: the default, AVX2); x->isa
 * is NONE when the CPU cannot run it. */
void hay_sw_inter_prepare(const hay_align_scoring *s, int isa, sw_inter *x);

/* The code of a lane past its target's end: the byte shuffles give 0. */
#define HAY_SW_INTER_PAD 0x80

/* Marks a lane's score that saturated at the pass's width. */
#define HAY_SW_INTER_SATURATED (-1)

/*
 * One pass of `bits` (8 or 16, with x->usable8/16 set) over count targets
 * (1 .. x->lanes8 or lanes16; t[k] may be NULL when n[k] is 0), the query
 * q of m >= 1 residues: scores[k] is target k's best local score, or
 * HAY_SW_INTER_SATURATED.  work: the thread's scratch (NULL: the pass's
 * own).  HAY_ERR_NOMEM, HAY_ERR_INVALID.
 */
hay_status hay_sw_inter_pass(const sw_inter *x, int bits, const uint8_t *q,
                             size_t m, const uint8_t *const *t,
                             const size_t *n, size_t count, int32_t *scores,
                             sw_inter_work *work);

/*
 * Up to x->lanes8 targets: 8-bit lanes where the scoring fits them, the
 * lanes that saturated (or all, when 8 bits do not fit) again in 16-bit
 * lanes; scores[k] is then exact, or HAY_SW_INTER_SATURATED for a target
 * that needs 32 bits (every target when 16 bits do not fit the scoring
 * either).
 */
hay_status hay_sw_inter_scores(const sw_inter *x, const uint8_t *q, size_t m,
                               const uint8_t *const *t, const size_t *n,
                               size_t count, int32_t *scores,
                               sw_inter_work *work);

/* The instances' passes (sw_inter_avx2.c, sw_inter_avx512.c): the
 * arguments of hay_sw_inter_pass, checked; mem holds `cap` bytes, 64-byte
 * aligned, at least hay_sw_inter_work_bytes(). */
size_t hay_sw_inter_work_bytes(const sw_inter *x, int bits, size_t m,
                               size_t len);
hay_status hay_sw_inter_pass8_avx2(const sw_inter *x, const uint8_t *q,
                                   size_t m, const uint8_t *const *t,
                                   const size_t *n, size_t count,
                                   int32_t *scores, void *mem);
hay_status hay_sw_inter_pass16_avx2(const sw_inter *x, const uint8_t *q,
                                    size_t m, const uint8_t *const *t,
                                    const size_t *n, size_t count,
                                    int32_t *scores, void *mem);
hay_status hay_sw_inter_pass8_avx512(const sw_inter *x, const uint8_t *q,
                                     size_t m, const uint8_t *const *t,
                                     const size_t *n, size_t count,
                                     int32_t *scores, void *mem);
hay_status hay_sw_inter_pass16_avx512(const sw_inter *x, const uint8_t *q,
                                      size_t m, const uint8_t *const *t,
                                      const size_t *n, size_t count,
                                      int32_t *scores, void *mem);

#endif
