/*
 * naive.c - the oracle: at every end position, try every pattern in id
 * order.  O(n * patterns * length); the ground truth for every other engine.
 */
#include "../core/internal.h"

static hay_status naive_build(hay_patterns *set, void **state)
{
    (void)set;
    *state = NULL;
    return HAY_OK;
}

static int naive_scan(const hay_patterns *set, const void *state,
                      const uint8_t *hay, size_t len, size_t min_end,
                      uint64_t base, hay_emit_fn emit, void *sink)
{
    (void)state;
    bool caseless = set->flags & HAY_CASELESS;
    for (size_t end = min_end + 1; end <= len; end++) {
        for (size_t i = 0; i < set->n; i++) {
            size_t m = set->len[i];
            if (m > end)
                continue;
            if (hay_eq(hay + end - m, hay_pat(set, i), m, caseless) &&
                emit(sink, (uint32_t)i, base + end - m, base + end))
                return 1;
        }
    }
    return 0;
}

const hay_engine hay_engine_naive = {
    "naive", true, naive_build, NULL, naive_scan, NULL,
};
