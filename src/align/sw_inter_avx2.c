/*
 * sw_inter_avx2.c - the inter-sequence score pass with AVX2 vectors: 32
 * targets in 8-bit lanes, the saturated ones again 16 at a time in 16-bit
 * lanes (the contract is in sw_inter.h, the loops in sw_inter_impl.h).
 * Without AVX2 the database search keeps the striped engines.
 */
#include "sw_inter.h"

#include <immintrin.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A lane past its target's end: the byte shuffles give 0 for it. */
#define SWI_PAD_CODE 0x80
#define SWI_FN static __attribute__((target("avx2")))

int hay_sw_inter_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

void hay_sw_inter_prepare(const hay_align_scoring *s, sw_inter *x)
{
    memset(x, 0, sizeof *x);
    x->alpha = s->alpha;
    x->bias = s->min_score < 0 ? -s->min_score : 0;
    int32_t top = s->max_score > 0 ? s->max_score : 0;
    int32_t span = top + x->bias;          /* the largest biased entry */
    for (int a = 0; a < s->alpha; a++)
        for (int c = 0; c < s->alpha; c++)
            x->table[a][c] = (uint8_t)(span <= UINT8_MAX
                                           ? s->matrix[a * s->alpha + c] + x->bias
                                           : 0);
    /* A gap cost past the width's largest value takes any H to 0, as the
     * true cost would. */
    x->open8 = s->open < UINT8_MAX ? s->open : UINT8_MAX;
    x->ext8 = s->extend < UINT8_MAX ? s->extend : UINT8_MAX;
    x->open16 = s->open < UINT16_MAX ? s->open : UINT16_MAX;
    x->ext16 = s->extend < UINT16_MAX ? s->extend : UINT16_MAX;
    /* diag + entry + bias stays below the width's top while diag < limit */
    x->limit8 = UINT8_MAX - span;
    x->limit16 = INT16_MAX - top;
    x->usable8 = span < UINT8_MAX / 2;
    /* the striped 16-bit engine's condition too, so that both send the
     * same pairs to 32 bits */
    x->usable16 = span <= UINT8_MAX && s->max_score <= 8192 &&
                  s->min_score >= -8192 && s->open <= 8192;
}

#define SWI_BITS 8
#include "sw_inter_impl.h"
#undef SWI_BITS
#define SWI_BITS 16
#include "sw_inter_impl.h"
#undef SWI_BITS

hay_status hay_sw_inter_pass(const sw_inter *x, int bits, const uint8_t *q,
                             size_t m, const uint8_t *const *t,
                             const size_t *n, size_t count, int32_t *scores)
{
    if (!m || !count || (bits != 8 && bits != 16) ||
        count > (bits == 8 ? HAY_SW_INTER_LANES8 : HAY_SW_INTER_LANES16) ||
        !(bits == 8 ? x->usable8 : x->usable16) || !hay_sw_inter_supported())
        return HAY_ERR_INVALID;
    return bits == 8 ? inter_pass8(x, q, m, t, n, count, scores)
                     : inter_pass16(x, q, m, t, n, count, scores);
}

hay_status hay_sw_inter_scores(const sw_inter *x, const uint8_t *q, size_t m,
                               const uint8_t *const *t, const size_t *n,
                               size_t count, int32_t *scores)
{
    if (!m || !count || count > HAY_SW_INTER_LANES8)
        return HAY_ERR_INVALID;
    hay_status st;
    size_t redo[HAY_SW_INTER_LANES8], nredo = 0;
    if (x->usable8) {
        st = hay_sw_inter_pass(x, 8, q, m, t, n, count, scores);
        if (st != HAY_OK)
            return st;
        for (size_t k = 0; k < count; k++)
            if (scores[k] == HAY_SW_INTER_SATURATED)
                redo[nredo++] = k;
    } else {
        for (size_t k = 0; k < count; k++) {
            scores[k] = HAY_SW_INTER_SATURATED;
            redo[nredo++] = k;
        }
    }
    if (!x->usable16)
        return HAY_OK;
    for (size_t at = 0; at < nredo; at += HAY_SW_INTER_LANES16) {
        size_t c = nredo - at < HAY_SW_INTER_LANES16 ? nredo - at
                                                     : HAY_SW_INTER_LANES16;
        const uint8_t *tt[HAY_SW_INTER_LANES16];
        size_t nn[HAY_SW_INTER_LANES16];
        int32_t got[HAY_SW_INTER_LANES16];
        for (size_t k = 0; k < c; k++) {
            tt[k] = t[redo[at + k]];
            nn[k] = n[redo[at + k]];
        }
        st = hay_sw_inter_pass(x, 16, q, m, tt, nn, c, got);
        if (st != HAY_OK)
            return st;
        for (size_t k = 0; k < c; k++)
            scores[redo[at + k]] = got[k];
    }
    return HAY_OK;
}
