/*
 * sw_scalar.c - the reference score pass: Gotoh's recurrences one cell at
 * a time, row by row (query outer, target inner), in linear space.  A cell
 * replaces the best only when strictly better, so the first best cell in
 * row-major order wins: the smallest query end, then the smallest target
 * end (the tie rule of sw_device.h).
 */
#include "align_internal.h"

#include <stdlib.h>

#define NEG_INF (INT64_MIN / 4)

hay_status hay_sw_scalar_score(const hay_align_scoring *s, const uint8_t *q,
                               size_t m, const uint8_t *t, size_t n,
                               sw_end *e)
{
    /* 64-bit cells: the reference must not share the engines' limits. */
    int64_t *h = malloc((n + 1) * sizeof *h);
    int64_t *f = malloc((n + 1) * sizeof *f);
    if (!h || !f) {
        free(h);
        free(f);
        return HAY_ERR_NOMEM;
    }
    const int64_t open = s->open, ext = s->extend;
    for (size_t j = 0; j <= n; j++) {
        h[j] = 0;
        f[j] = NEG_INF;
    }
    int64_t best = 0;
    uint64_t bi = 0, bj = 0;
    for (size_t i = 0; i < m; i++) {
        const int32_t *row = s->matrix + q[i] * s->alpha;
        int64_t diag = 0, left = 0, ecur = NEG_INF;
        for (size_t j = 1; j <= n; j++) {
            int64_t up = h[j];
            ecur = ecur - ext > left - open ? ecur - ext : left - open;
            int64_t fv = f[j] - ext > up - open ? f[j] - ext : up - open;
            f[j] = fv;
            int64_t v = diag + row[t[j - 1]];
            if (ecur > v)
                v = ecur;
            if (fv > v)
                v = fv;
            if (v < 0)
                v = 0;
            diag = up;
            h[j] = v;
            left = v;
            if (v > best) {
                best = v;
                bi = i;
                bj = j - 1;
            }
        }
    }
    free(h);
    free(f);
    if (best > INT32_MAX)
        return HAY_ERR_TOO_LARGE;
    e->score = (int32_t)best;
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
