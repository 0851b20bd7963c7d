/*
 * linear.h - the worst-case guard of the one-pattern filter engines (simd,
 * horspool): a linear-time search (Knuth-Morris-Pratt) that a filter hands
 * the scan to when verifying its candidates costs more than a budget
 * proportional to the bytes it has moved past, as memchr's memmem and
 * Rust's memchr::memmem do.  A 64 KiB run of 'a' over megabytes of 'a'
 * makes every position a candidate costing 64 KiB: quadratic without the
 * guard, linear with it.
 *
 * The filter and KMP take turns: the filter scans until its budget is
 * spent, KMP then searches a stretch long enough to pay for what the
 * filter wasted (and at least 8 x the pattern), and hands the scan back
 * where a match may still begin.  On ordinary text the budget is never
 * spent and the filter runs alone.
 */
#ifndef HAY_CPU_LINEAR_H
#define HAY_CPU_LINEAR_H

#include "../core/internal.h"

/* KMP over the folded pattern: fail[q] is the longest proper border of
 * pat[0, q) (q = 1 .. m); fold is the set's case folding. */
typedef struct hay_kmp {
    uint8_t *pat;       /* folded copy, m bytes */
    uint32_t *fail;     /* m + 1 entries */
    size_t m;
    uint8_t fold[256];
} hay_kmp;

hay_status hay_kmp_build(const hay_patterns *set, hay_kmp *k);
void hay_kmp_free(const hay_patterns *set, hay_kmp *k);
/* Bytes held (for set->state_memory). */
size_t hay_kmp_memory(const hay_kmp *k);

/*
 * A filter's verification budget over one turn: the work it may spend is
 * slack plus HAY_VERIFY_FACTOR per byte moved past since `start`.
 */
#define HAY_VERIFY_FACTOR 8
typedef struct hay_budget {
    size_t start;   /* the first window of the turn */
    size_t work;    /* bytes compared so far (or charged) */
    size_t slack;
    size_t at;      /* over budget: the first window not yet decided */
} hay_budget;

/* Charges `cost` after the windows before `next` are decided; false when
 * the budget is spent (b->at = next: the filter returns HAY_FILTER_SPENT). */
static inline bool hay_budget_spend(hay_budget *b, size_t next, size_t cost)
{
    b->work += cost;
    if (b->work <= b->slack + HAY_VERIFY_FACTOR * (next - b->start))
        return true;
    b->at = next;
    return false;
}

/* What a filter turn returns besides 0 (done) and 1 (emit stopped). */
#define HAY_FILTER_SPENT 2

/* One turn of a filter engine over windows j.. of y[0, n): reports each
 * match (all start at or after j) and returns 0, 1 when emit stops, or
 * HAY_FILTER_SPENT with b->at set. */
typedef int (*hay_filter_fn)(const void *state, const uint8_t *y, size_t n,
                             size_t j, uint64_t base, hay_emit_fn emit,
                             void *sink, hay_budget *b);

/*
 * Every match starting at or after j in y[0, n), in order: the filter's
 * turns, and KMP's between them.  Returns 1 when emit stops, else 0.
 */
int hay_guarded_scan(const hay_kmp *k, hay_filter_fn filter, const void *state,
                     const uint8_t *y, size_t n, size_t j, uint64_t base,
                     hay_emit_fn emit, void *sink);

#endif
