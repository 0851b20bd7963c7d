/*
 * sw_scalar.c - the reference score pass: Gotoh's recurrences one cell at
 * a time, row by row (query outer, target inner), in linear space.  A cell
 * replaces the best only when strictly better, so the first best cell in
 * row-major order wins: the smallest query end, then the smallest target
 * end (the tie rule of sw_device.h).
 */
#include "align_internal.h"

#include <stdlib.h>

/* Scores stay below 2^30 (align.c refuses pairs that could pass it), so
 * 32 bits are exact here; -2^30 is minus infinity. */
#define NEG_INF (-(1 << 30))

static inline int32_t max32(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

hay_status hay_sw_scalar_score(const hay_align_scoring *s, const uint8_t *q,
                               size_t m, const uint8_t *t, size_t n,
                               sw_end *e)
{
    int32_t *h = malloc((n + 1) * sizeof *h);
    int32_t *f = malloc((n + 1) * sizeof *f);
    if (!h || !f) {
        free(h);
        free(f);
        return HAY_ERR_NOMEM;
    }
    const int32_t open = s->open, ext = s->extend;
    for (size_t j = 0; j <= n; j++) {
        h[j] = 0;
        f[j] = NEG_INF;
    }
    int32_t best = 0;
    uint64_t bi = 0, bj = 0;
    for (size_t i = 0; i < m; i++) {
        const int32_t *row = s->matrix + q[i] * s->alpha;
        int32_t diag = 0, left = 0, ecur = NEG_INF, rowbest = 0;
        size_t rowj = 0;
        for (size_t j = 1; j <= n; j++) {
            int32_t up = h[j];
            ecur = max32(ecur - ext, left - open);
            int32_t fv = max32(f[j] - ext, up - open);
            f[j] = fv;
            int32_t v = max32(max32(diag + row[t[j - 1]], 0), max32(ecur, fv));
            diag = up;
            h[j] = v;
            left = v;
            if (v > rowbest) {
                rowbest = v;
                rowj = j - 1;
            }
        }
        /* The first best cell in row-major order: a row replaces the best
         * only when strictly better, and within a row the first wins. */
        if (rowbest > best) {
            best = rowbest;
            bi = i;
            bj = rowj;
        }
    }
    free(h);
    free(f);
    e->score = best;
    e->q_end = bi;
    e->t_end = bj;
    e->saturated = 0;
    return HAY_OK;
}

static int always(void)
{
    return 1;
}

static hay_status scalar_profile(const hay_align_scoring *s, const uint8_t *q,
                                 size_t m, void **prof)
{
    *prof = NULL;
    return HAY_OK;
}

static void scalar_profile_free(void *prof)
{
}

static hay_status scalar_score(const void *prof, const hay_align_scoring *s,
                               const uint8_t *q, size_t m, const uint8_t *t,
                               size_t n, sw_end *e)
{
    return hay_sw_scalar_score(s, q, m, t, n, e);
}

const sw_engine hay_sw_scalar = {
    "scalar", 32, always, scalar_profile, scalar_profile_free, scalar_score
};
