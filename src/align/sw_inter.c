/*
 * sw_inter.c - the inter-sequence score pass (sw_inter.h) apart from its
 * loops: the scoring's biased tables, the instance a CPU runs, the
 * threads' scratch and the 8 -> 16-bit cascade.
 */
#include "sw_inter.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int hay_sw_inter_isa_supported(int isa)
{
    __builtin_cpu_init();
    if (isa == HAY_SW_INTER_AVX2)
        return __builtin_cpu_supports("avx2");
    if (isa == HAY_SW_INTER_AVX512)
        return __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw");
    return 0;
}

void hay_sw_inter_prepare(const hay_align_scoring *s, int isa, sw_inter *x)
{
    memset(x, 0, sizeof *x);
    /* AVX2 unless AVX-512 is asked for: on the GPU host's Xeon the 512-bit
     * instance tied on one thread and lost on 16 (0.61 s against 0.46 on
     * the E. coli search), where on this project's AMD VM it won 1.65x
     * (docs/notes/2026-11-26-sw-inter.md). */
    if (isa == HAY_SW_INTER_NONE)
        isa = HAY_SW_INTER_AVX2;
    x->isa = hay_sw_inter_isa_supported(isa) ? isa : HAY_SW_INTER_NONE;
    x->lanes8 = isa == HAY_SW_INTER_AVX512 ? 64 : 32;
    x->lanes16 = x->lanes8 / 2;
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
    /* the striped 16-bit engine's condition too, so that both send the
     * same pairs to 32 bits */
    x->usable16 = span <= UINT8_MAX && s->max_score <= 8192 &&
                  s->min_score >= -8192 && s->open <= 8192;
    x->usable8 = x->usable16 && span < UINT8_MAX / 2;
}

void hay_sw_inter_work_free(sw_inter_work *w)
{
    if (w) {
        free(w->mem);
        w->mem = NULL;
        w->cap = 0;
    }
}

size_t hay_sw_inter_work_bytes(const sw_inter *x, int bits, size_t m,
                               size_t len)
{
    size_t vec = x->isa == HAY_SW_INTER_AVX512 ? 64 : 32;
    size_t lanes = (size_t)(bits == 8 ? x->lanes8 : x->lanes16);
    if (m > SIZE_MAX / 4 / vec || len > SIZE_MAX / 2 / lanes - 2)
        return 0;
    size_t b = 2 * m * vec + (len + 2) * lanes + 64;
    return (b + 63) & ~(size_t)63;
}

hay_status hay_sw_inter_pass(const sw_inter *x, int bits, const uint8_t *q,
                             size_t m, const uint8_t *const *t,
                             const size_t *n, size_t count, int32_t *scores,
                             sw_inter_work *work)
{
    if (!m || !count || (bits != 8 && bits != 16) ||
        count > (size_t)(bits == 8 ? x->lanes8 : x->lanes16) ||
        !(bits == 8 ? x->usable8 : x->usable16) || x->isa == HAY_SW_INTER_NONE)
        return HAY_ERR_INVALID;
    size_t len = 0;
    for (size_t k = 0; k < count; k++)
        if (n[k] > len)
            len = n[k];
    size_t need = hay_sw_inter_work_bytes(x, bits, m, len);
    if (!need)
        return HAY_ERR_INVALID;
    sw_inter_work own = { NULL, 0 };
    sw_inter_work *w = work ? work : &own;
    if (w->cap < need) {
        free(w->mem);
        w->cap = 0;
        w->mem = aligned_alloc(64, need);
        if (!w->mem)
            return HAY_ERR_NOMEM;
        w->cap = need;
    }
    hay_status st;
    if (x->isa == HAY_SW_INTER_AVX512)
        st = bits == 8 ? hay_sw_inter_pass8_avx512(x, q, m, t, n, count,
                                                   scores, w->mem)
                       : hay_sw_inter_pass16_avx512(x, q, m, t, n, count,
                                                    scores, w->mem);
    else
        st = bits == 8 ? hay_sw_inter_pass8_avx2(x, q, m, t, n, count,
                                                 scores, w->mem)
                       : hay_sw_inter_pass16_avx2(x, q, m, t, n, count,
                                                  scores, w->mem);
    hay_sw_inter_work_free(&own);
    return st;
}

hay_status hay_sw_inter_scores(const sw_inter *x, const uint8_t *q, size_t m,
                               const uint8_t *const *t, const size_t *n,
                               size_t count, int32_t *scores,
                               sw_inter_work *work)
{
    if (!m || !count || count > (size_t)x->lanes8)
        return HAY_ERR_INVALID;
    hay_status st;
    size_t redo[HAY_SW_INTER_MAX_LANES], nredo = 0;
    if (x->usable8) {
        st = hay_sw_inter_pass(x, 8, q, m, t, n, count, scores, work);
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
    const size_t lanes = (size_t)x->lanes16;
    for (size_t at = 0; at < nredo; at += lanes) {
        size_t c = nredo - at < lanes ? nredo - at : lanes;
        const uint8_t *tt[HAY_SW_INTER_MAX_LANES];
        size_t nn[HAY_SW_INTER_MAX_LANES];
        int32_t got[HAY_SW_INTER_MAX_LANES];
        for (size_t k = 0; k < c; k++) {
            tt[k] = t[redo[at + k]];
            nn[k] = n[redo[at + k]];
        }
        st = hay_sw_inter_pass(x, 16, q, m, tt, nn, c, got, work);
        if (st != HAY_OK)
            return st;
        for (size_t k = 0; k < c; k++)
            scores[redo[at + k]] = got[k];
    }
    return HAY_OK;
}
