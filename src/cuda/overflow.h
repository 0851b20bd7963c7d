/*
 * overflow.h - a listing piece whose matches overflow the slot's list
 * (pipeline.c take): searched again in parts that fit, planned from
 * counts (overflow.c).
 *
 * The piece's ends (x, y] hold n matches, more than the cap slots of the
 * list.  They are cut into parts of about cap / 4 matches (about 4 n / cap
 * parts, at most one per end position), whose matches are counted
 * HAY_OVERFLOW_PARTS at a time (count: count-only launches and one
 * synchronisation, a round); then, in order of end:
 *   - neighbouring parts whose matches fit one list together are listed
 *     by one launch (list: n is known, so the sort and copy back go with
 *     the kernel, one synchronisation per list);
 *   - a part of one end position with more than cap matches (more
 *     duplicate patterns than slots) is searched on the host, together
 *     with the like parts right after it;
 *   - a part with more than cap matches over several ends (denser than
 *     the rest) is cut and counted again the same way;
 *   - parts without matches are not searched again.
 * So n matches spread evenly take about n / cap lists (at most 4/3 of
 * that, plus one) and 4 n / (cap HAY_OVERFLOW_PARTS) rounds: about
 * n / cap round trips with the device (halving the piece until the halves
 * fit takes about 3 n / cap).
 *
 * Plain C (no CUDA): the pipeline gives the device operations; the tests
 * (tests/internal/cuda_overflow.c) a host model.
 */
#ifndef HAY_CUDA_OVERFLOW_H
#define HAY_CUDA_OVERFLOW_H

#include "../core/internal.h"

enum { HAY_OVERFLOW_PARTS = 512 };   /* parts counted per round, at most */

typedef struct hay_overflow_ops {
    void *ctx;
    /* The matches ending in (b[i], b[i + 1]] into c[i], for i < k
     * (k <= HAY_OVERFLOW_PARTS). */
    hay_status (*count)(void *ctx, const uint64_t *b, unsigned k, uint64_t *c);
    /* Hands over the n matches (1 <= n <= cap, as counted) ending in
     * (x, y], in order. */
    hay_status (*list)(void *ctx, uint64_t x, uint64_t y, uint64_t n);
    /* Finds the matches ending in (x, y] on the host and hands them over. */
    hay_status (*host)(void *ctx, uint64_t x, uint64_t y);
} hay_overflow_ops;

/* What an overflow cost (added to). */
typedef struct hay_overflow_stats {
    uint64_t rounds;   /* count rounds */
    uint64_t parts;    /* parts counted in them */
    uint64_t lists;    /* list calls */
    uint64_t host;     /* host calls */
} hay_overflow_stats;

/* Hands over the n matches ending in (x, y] (x < y) through ops, in order
 * of end, with lists of at most cap (>= 1) matches.  Returns HAY_OK or the
 * first error (or HAY_STOPPED) an op returned; HAY_ERR_NOMEM when a
 * round's bounds cannot be allocated. */
hay_status hay_overflow_search(const hay_overflow_ops *ops, uint64_t cap, uint64_t x,
                               uint64_t y, uint64_t n, hay_overflow_stats *st);

#endif
