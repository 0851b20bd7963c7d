/* linear.c - KMP and the filter engines' worst-case guard (see linear.h). */
#include "linear.h"

hay_status hay_kmp_build(const hay_patterns *set, hay_kmp *k)
{
    size_t m = set->len[0];
    memset(k, 0, sizeof *k);
    k->m = m;
    k->pat = hay_malloc(&set->alloc, m);
    k->fail = hay_malloc(&set->alloc, (m + 1) * sizeof *k->fail);
    if (!k->pat || !k->fail) {
        hay_kmp_free(set, k);
        return HAY_ERR_NOMEM;
    }
    hay_fold_table(set, k->fold);
    for (size_t i = 0; i < m; i++)
        k->pat[i] = k->fold[hay_pat(set, 0)[i]];
    /* HAY_MAX_PATTERN_LEN fits 32 bits. */
    k->fail[0] = 0;
    if (m)
        k->fail[1] = 0;
    uint32_t q = 0;
    for (size_t i = 1; i < m; i++) {
        while (q > 0 && k->pat[i] != k->pat[q])
            q = k->fail[q];
        if (k->pat[i] == k->pat[q])
            q++;
        k->fail[i + 1] = q;
    }
    return HAY_OK;
}

void hay_kmp_free(const hay_patterns *set, hay_kmp *k)
{
    hay_free(&set->alloc, k->pat);
    hay_free(&set->alloc, k->fail);
    k->pat = NULL;
    k->fail = NULL;
}

size_t hay_kmp_memory(const hay_kmp *k)
{
    return k->m + (k->m + 1) * sizeof *k->fail;
}

/* KMP from window `from` over bytes [from, stop) (stop <= n); reports the
 * matches ending there.  *resume: the first window not decided (the
 * bytes matched so far at stop may begin one). */
static int kmp_run(const hay_kmp *k, const uint8_t *y, size_t from, size_t stop,
                   uint64_t base, hay_emit_fn emit, void *sink, size_t *resume)
{
    const uint8_t *pat = k->pat, *fold = k->fold;
    const uint32_t *fail = k->fail;
    const size_t m = k->m;
    size_t q = 0;
    for (size_t i = from; i < stop; i++) {
        uint8_t c = fold[y[i]];
        while (q > 0 && pat[q] != c)
            q = fail[q];
        if (pat[q] == c)
            q++;
        if (q == m) {
            if (emit(sink, 0, base + i + 1 - m, base + i + 1))
                return 1;
            q = fail[m];
        }
    }
    *resume = stop - q;
    return 0;
}

int hay_guarded_scan(const hay_kmp *k, hay_filter_fn filter, const void *state,
                     const uint8_t *y, size_t n, size_t j, uint64_t base,
                     hay_emit_fn emit, void *sink)
{
    const size_t m = k->m;
    while (j + m <= n) {
        hay_budget b = { j, 0, 4 * m + 4096, 0 };
        int r = filter(state, y, n, j, base, emit, sink, &b);
        if (r != HAY_FILTER_SPENT)
            return r;
        /* KMP's stretch pays for the filter's waste: at least what the
         * filter spent beyond its allowance per byte. */
        size_t stretch = b.slack + 8 * m;
        size_t stop = n - b.at > stretch ? b.at + stretch : n;
        if (kmp_run(k, y, b.at, stop, base, emit, sink, &j))
            return 1;
        if (stop == n)
            return 0;
    }
    return 0;
}
