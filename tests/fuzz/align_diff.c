/* align_diff.c - see align_diff.h. */
#include "align_diff.h"

#include <stdlib.h>

void align_diff_check(const hay_align_scoring *s, const uint8_t *q, size_t m,
                      const uint8_t *t, size_t n)
{
    hay_align_options o;
    hay_align_options_init(&o);
    o.variant = "scalar";
    o.score_only = 1;
    hay_align_result ref, r;
    hay_status want = hay_align_pair(s, q, m, t, n, &o, &ref);
    if (want != HAY_OK && want != HAY_ERR_TOO_LARGE)
        abort();
    const char *v;
    for (size_t k = 0; hay_align_variant_name(k, &v) == HAY_OK; k++) {
        if (hay_align_variant_check(v, NULL) != HAY_OK)
            continue;
        o.variant = v;
        for (int tb = 0; tb < 3; tb++) {
            o.score_only = tb == 0;
            o.traceback_bytes = tb == 2 ? 1 : 0;
            hay_status st = hay_align_pair(s, q, m, t, n, &o, &r);
            if (st != want)
                abort();
            if (st != HAY_OK)
                continue;
            if (r.score != ref.score || r.q_end != ref.q_end ||
                r.t_end != ref.t_end)
                abort();
            if (r.cigar) {
                int32_t sc;
                if (hay_align_rescore(s, q, m, t, n, r.q_start, r.t_start,
                                      r.cigar, &sc) != HAY_OK || sc != r.score)
                    abort();
            } else if (!o.score_only && r.score > 0) {
                abort();
            }
            hay_align_result_clear(&r);
        }
    }
}

void align_diff_bytes(const hay_align_scoring *s, const uint8_t *qb, size_t m,
                      const uint8_t *tb, size_t n)
{
    int alpha = hay_align_scoring_alpha(s);
    uint8_t *q = malloc(m), *t = malloc(n);
    if (!q || !t)
        abort();
    for (size_t i = 0; i < m; i++)
        q[i] = (uint8_t)(qb[i] % alpha);
    for (size_t j = 0; j < n; j++)
        t[j] = (uint8_t)(tb[j] % alpha);
    align_diff_check(s, q, m, t, n);
    free(q);
    free(t);
}
