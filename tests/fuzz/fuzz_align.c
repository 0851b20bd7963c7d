/*
 * fuzz_align.c - differential fuzzing of the aligner: the first bytes pick
 * a scoring and gap penalties, the rest is split into a query and a target
 * (bytes taken modulo the alphabet).  Every variant must give the scalar
 * reference's score and end cell, and the traceback (full matrix and
 * linear space) must rescore to that score; otherwise abort.
 */
#include "haystack_align.h"

#include <stdlib.h>
#include <string.h>

static const char *const matrices[] = { "blosum62", "pam30", "blosum45" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    int32_t open = 1 + data[1] % 16, ext = data[2] % 16;
    if (ext > open)
        ext = open;
    hay_align_scoring *s = NULL;
    if (data[0] % 4 == 3)
        hay_align_scoring_dna(1 + data[3] % 5, -(int32_t)(data[3] / 5 % 6), open,
                              ext, &s);
    else
        hay_align_scoring_builtin(matrices[data[0] % 4], open, ext, &s);
    if (!s)
        return 0;
    int alpha = hay_align_scoring_alpha(s);
    size_t split = data[4] % (size - 5 + 1);
    size_t m = split, n = size - 5 - split;
    if (m == 0 || n == 0 || m > 2000 || n > 2000) {
        hay_align_scoring_free(s);
        return 0;
    }
    uint8_t *q = malloc(m), *t = malloc(n);
    for (size_t i = 0; i < m; i++)
        q[i] = (uint8_t)(data[5 + i] % alpha);
    for (size_t j = 0; j < n; j++)
        t[j] = (uint8_t)(data[5 + m + j] % alpha);
    hay_align_options o;
    hay_align_options_init(&o);
    o.variant = "scalar";
    o.score_only = 1;
    hay_align_result ref, r;
    if (hay_align_pair(s, q, m, t, n, &o, &ref) != HAY_OK)
        abort();
    const char *v;
    for (size_t k = 0; hay_align_variant_name(k, &v) == HAY_OK; k++) {
        if (hay_align_variant_check(v, NULL) != HAY_OK)
            continue;
        o.variant = v;
        for (int tb = 0; tb < 3; tb++) {
            o.score_only = tb == 0;
            o.traceback_bytes = tb == 2 ? 1 : 0;
            if (hay_align_pair(s, q, m, t, n, &o, &r) != HAY_OK)
                abort();
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
    free(q);
    free(t);
    hay_align_scoring_free(s);
    return 0;
}
