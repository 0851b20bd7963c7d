/*
 * horspool.c - Boyer-Moore-Horspool: compare the window right to left and
 * shift by the bad-character distance of the window's last byte.  Alone
 * it is quadratic on periodic inputs (a run of 'a' in a run of 'a':
 * every window compares the whole pattern and moves by one); its
 * comparisons are budgeted and KMP takes over when they exceed it
 * (linear.h), so the worst case is linear.
 */
#include "linear.h"

typedef struct horspool_state {
    size_t shift[256];
    hay_kmp kmp;       /* the folded pattern and the fallback */
} horspool_state;

static void horspool_destroy(const hay_patterns *set, void *state)
{
    horspool_state *st = state;
    if (!st)
        return;
    hay_kmp_free(set, &st->kmp);
    hay_free(&set->alloc, st);
}

static hay_status horspool_build(hay_patterns *set, void **state)
{
    horspool_state *st = hay_calloc(&set->alloc, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    hay_status s = hay_kmp_build(set, &st->kmp);
    if (s < 0) {
        horspool_destroy(set, st);
        return s;
    }
    hay_bad_char_table(st->kmp.pat, st->kmp.m, set->flags & HAY_CASELESS, st->shift);
    set->state_memory = sizeof *st + hay_kmp_memory(&st->kmp);
    *state = st;
    return HAY_OK;
}

static int horspool_filter(const void *state, const uint8_t *y, size_t n,
                           size_t j, uint64_t base, hay_emit_fn emit,
                           void *sink, hay_budget *b)
{
    const horspool_state *st = state;
    const size_t m = st->kmp.m;
    const uint8_t *x = st->kmp.pat, *fold = st->kmp.fold;
    const uint8_t last = x[m - 1];
    while (j <= n - m) {
        uint8_t c = y[j + m - 1];
        size_t next = j + st->shift[c];
        if (fold[c] == last) {
            size_t i = 0;
            while (i + 1 < m && x[i] == fold[y[j + i]])
                i++;
            if (i + 1 >= m && emit(sink, 0, base + j, base + j + m))
                return 1;
            if (!hay_budget_spend(b, next, i + 1))
                return HAY_FILTER_SPENT;
        }
        j = next;
    }
    return 0;
}

static int horspool_scan(const hay_patterns *set, const void *state,
                         const uint8_t *y, size_t n, size_t min_end,
                         uint64_t base, hay_emit_fn emit, void *sink)
{
    (void)set;
    const horspool_state *st = state;
    const size_t m = st->kmp.m;
    if (n < m)
        return 0;
    size_t j = min_end + 1 > m ? min_end + 1 - m : 0;
    return hay_guarded_scan(&st->kmp, horspool_filter, st, y, n, j, base, emit, sink);
}

const hay_engine hay_engine_horspool = {
    "horspool", false, horspool_build, horspool_destroy, horspool_scan, NULL,
};
