/*
 * horspool.c - Boyer-Moore-Horspool: compare the window right to left and
 * shift by the bad-character distance of the window's last byte.
 */
#include "../core/internal.h"

typedef struct horspool_state {
    size_t shift[256];
    uint8_t fold[256];
    uint8_t *pat;
    size_t m;
} horspool_state;

static void horspool_destroy(const hay_patterns *set, void *state)
{
    horspool_state *st = state;
    if (!st)
        return;
    hay_free(&set->alloc, st->pat);
    hay_free(&set->alloc, st);
}

static hay_status horspool_build(hay_patterns *set, void **state)
{
    horspool_state *st = hay_calloc(&set->alloc, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    size_t m = set->len[0];
    st->m = m;
    st->pat = hay_malloc(&set->alloc, m);
    if (!st->pat) {
        horspool_destroy(set, st);
        return HAY_ERR_NOMEM;
    }
    hay_fold_table(set, st->fold);
    for (size_t i = 0; i < m; i++)
        st->pat[i] = st->fold[hay_pat(set, 0)[i]];
    hay_bad_char_table(st->pat, m, set->flags & HAY_CASELESS, st->shift);
    set->state_memory = sizeof *st + m;
    *state = st;
    return HAY_OK;
}

static int horspool_scan(const hay_patterns *set, const void *state,
                         const uint8_t *y, size_t n, size_t min_end,
                         uint64_t base, hay_emit_fn emit, void *sink)
{
    (void)set;
    const horspool_state *st = state;
    const size_t m = st->m;
    const uint8_t *x = st->pat, *fold = st->fold;
    if (n < m)
        return 0;
    const uint8_t last = x[m - 1];
    size_t j = min_end + 1 > m ? min_end + 1 - m : 0;
    while (j <= n - m) {
        uint8_t c = y[j + m - 1];
        if (fold[c] == last) {
            size_t i = 0;
            while (i + 1 < m && x[i] == fold[y[j + i]])
                i++;
            if (i + 1 >= m && emit(sink, 0, base + j, base + j + m))
                return 1;
        }
        j += st->shift[c];
    }
    return 0;
}

const hay_engine hay_engine_horspool = {
    "horspool", false, horspool_build, horspool_destroy, horspool_scan, NULL,
};
