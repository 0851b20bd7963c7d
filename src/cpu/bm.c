/*
 * bm.c - Boyer-Moore with the bad-character and good-suffix rules, as in
 * parallel-boyer-moore-manycore.txt: the pattern is compared right to left;
 * on a mismatch at pattern[i] against target byte c the window moves by
 * the larger of the good-suffix shift gs[i] and the bad-character shift
 * bc[c] - (m - 1 - i).  bc[c] is the distance from the last occurrence of c
 * in pattern[0 .. m-2] to the end (m when absent); gs is built from the
 * suffix array suff[i] = length of the longest common suffix of
 * pattern[0 .. i] and the pattern, covering the paper's two cases (a
 * matching suffix elsewhere, or a prefix that is also a suffix).
 *
 * Galil's rule makes counting every occurrence linear: after a match the
 * window moves by the pattern's period p, and its first m - p bytes are
 * then known to match (they are the last m - p of the match), so only
 * the last p are compared.  Without it a run of 'a' in a run of 'a'
 * compares the whole pattern at every position.
 */
#include "../core/internal.h"

typedef struct bm_state {
    hay_bm_tables t;
    uint8_t *pat;      /* folded when caseless */
    size_t m;
    size_t period;     /* the smallest period: the shift after a match */
    uint8_t fold[256];
} bm_state;

static void build_suffixes(const uint8_t *x, size_t m, size_t *suff)
{
    /* suff[i]: longest common suffix of x[0..i] and x. */
    suff[m - 1] = m;
    ptrdiff_t g = (ptrdiff_t)m - 1, f = 0;
    for (ptrdiff_t i = (ptrdiff_t)m - 2; i >= 0; --i) {
        if (i > g && (ptrdiff_t)suff[i + (ptrdiff_t)m - 1 - f] < i - g) {
            suff[i] = suff[i + (ptrdiff_t)m - 1 - f];
        } else {
            if (i < g)
                g = i;
            f = i;
            while (g >= 0 && x[g] == x[g + (ptrdiff_t)m - 1 - f])
                --g;
            suff[i] = (size_t)(f - g);
        }
    }
}

static void build_good_suffix(size_t m, const size_t *suff, size_t *gs)
{
    for (size_t i = 0; i < m; i++)
        gs[i] = m;
    /* Case 2: a prefix of the pattern that is also a suffix. */
    size_t j = 0;
    for (ptrdiff_t i = (ptrdiff_t)m - 1; i >= 0; --i) {
        if (suff[i] == (size_t)i + 1) {
            for (; j < m - 1 - (size_t)i; ++j)
                if (gs[j] == m)
                    gs[j] = m - 1 - (size_t)i;
        }
    }
    /* Case 1: the matched suffix reoccurs, preceded by another byte. */
    for (size_t i = 0; i + 1 < m; ++i)
        gs[m - 1 - suff[i]] = m - 1 - i;
}

static void bm_destroy(const hay_patterns *set, void *state)
{
    bm_state *st = state;
    if (!st)
        return;
    hay_free(&set->alloc, st->t.good_suffix);
    hay_free(&set->alloc, st->t.suffix);
    hay_free(&set->alloc, st->pat);
    hay_free(&set->alloc, st);
}

static hay_status bm_build(hay_patterns *set, void **state)
{
    bm_state *st = hay_calloc(&set->alloc, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    size_t m = set->len[0];
    st->m = m;
    st->pat = hay_malloc(&set->alloc, m);
    st->t.good_suffix = hay_malloc(&set->alloc, m * sizeof(size_t));
    st->t.suffix = hay_malloc(&set->alloc, m * sizeof(size_t));
    if (!st->pat || !st->t.good_suffix || !st->t.suffix) {
        bm_destroy(set, st);
        return HAY_ERR_NOMEM;
    }
    hay_fold_table(set, st->fold);
    for (size_t i = 0; i < m; i++)
        st->pat[i] = st->fold[hay_pat(set, 0)[i]];
    hay_bad_char_table(st->pat, m, set->flags & HAY_CASELESS, st->t.bad_char);
    build_suffixes(st->pat, m, st->t.suffix);
    build_good_suffix(m, st->t.suffix, st->t.good_suffix);
    /* The longest border is the longest prefix that is also a suffix. */
    st->period = m;
    for (size_t i = m - 1; i-- > 0;)
        if (st->t.suffix[i] == i + 1) {
            st->period = m - 1 - i;
            break;
        }
    *state = st;
    set->state_memory = sizeof *st + m * (1 + 2 * sizeof(size_t));
    return HAY_OK;
}

static int bm_scan(const hay_patterns *set, const void *state,
                   const uint8_t *y, size_t n, size_t min_end, uint64_t base,
                   hay_emit_fn emit, void *sink)
{
    (void)set;
    const bm_state *st = state;
    const size_t m = st->m;
    const uint8_t *x = st->pat, *fold = st->fold;
    const size_t *gs = st->t.good_suffix, *bc = st->t.bad_char;
    if (n < m)
        return 0;
    size_t j = min_end + 1 > m ? min_end + 1 - m : 0;
    ptrdiff_t known = 0;   /* window bytes [0, known) match (Galil) */
    while (j <= n - m) {
        ptrdiff_t i = (ptrdiff_t)m - 1;
        while (i >= known && x[i] == fold[y[(size_t)i + j]])
            --i;
        if (i < known) {
            if (emit(sink, 0, base + j, base + j + m))
                return 1;
            j += st->period;
            known = (ptrdiff_t)(m - st->period);
        } else {
            known = 0;
            size_t b = bc[y[(size_t)i + j]];
            size_t skip = m - 1 - (size_t)i;
            size_t bad = b > skip ? b - skip : 0;
            size_t good = gs[i];
            j += good > bad ? good : bad;
        }
    }
    return 0;
}

const hay_bm_tables *hay_bm_tables_of(const hay_patterns *set)
{
    if (!set || set->engine != &hay_engine_bm)
        return NULL;
    return &((const bm_state *)set->state)->t;
}

const hay_engine hay_engine_bm = {
    "bm", false, bm_build, bm_destroy, bm_scan, NULL,
};
