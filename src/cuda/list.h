/*
 * list.h - the host side of the CUDA driver's match list (list.c): a
 * piece's sorted keys (cuda_engine.h HAY_CUDA_MATCH: local end above, id
 * below) become the caller's matches, in order.
 *
 * Per-match callbacks get one call per match on the calling thread.  A
 * batched scan (hay_batcher_of) gets arrays: with a pool, a helper thread
 * turns the keys into hay_match records, one round ahead of the calling
 * thread, which only hands HAY_BATCH_MAX-sized slices of them to the
 * caller (no work per match on it); without one, the calling thread
 * writes the records into the batch itself.  hay_scan_list (a batcher
 * whose fn is src/core/fill.h's) gets no records at all: the keys go
 * straight into the caller's arrays at their final index, converted by
 * the calling thread and threads - 1 helpers when long (device arrays,
 * which the host cannot write: as records through fill.c's bounce; the
 * long lists of device and pinned arrays never come here, list_dev.h).
 *
 * Plain C on the host (no CUDA): the probes and tests build it alone.
 */
#ifndef HAY_CUDA_LIST_H
#define HAY_CUDA_LIST_H

#include "../core/internal.h"

typedef struct hay_list_pool hay_list_pool;

/* A pool of up to threads - 1 helper threads (at most one: list.c says
 * why), or NULL when fewer than two threads are wanted or none could be
 * made (then the calling thread converts). */
hay_list_pool *hay_list_pool_start(unsigned threads);
void hay_list_pool_stop(hay_list_pool *p);
/* The pool's helper threads (0 for NULL). */
unsigned hay_list_pool_threads(const hay_list_pool *p);

/* Where a list goes: the caller's callback, the set's pattern lengths,
 * the matches handed over so far. */
typedef struct hay_list_sink {
    hay_match_fn fn;
    void *ctx;
    const size_t *plen;
    uint64_t count;
    hay_list_pool *pool;   /* or NULL */
    /* With pool NULL: the threads a pool should have, started at the
     * first batched list long enough to use it (so scans whose lists are
     * all short make no thread); the sink's owner stops k->pool. */
    unsigned threads;
} hay_list_sink;

/* hay_scan_list: the matches the caller's arrays still have room for;
 * UINT64_MAX for any other sink. */
uint64_t hay_list_room(const hay_list_sink *k);

/* Hands keys[0, n) (sorted; ends local to lo) to the sink in order.
 * Returns 0, or 1 when the callback stopped (sink->count then includes the
 * matches of the batch or call that stopped). */
int hay_list_deliver(hay_list_sink *k, const unsigned long long *keys, uint64_t n,
                     uint64_t lo);

#endif
