/*
 * hostreg.h - a host input registered with the CUDA driver block by block
 * on threads of their own (cudaHostRegister, read-only), so that the copy
 * engine reads it where it lies: no staging copy on the CPU, one read of
 * host memory per byte (params transfer=register; docs/PERF.md "GPU from
 * the page cache").
 *
 * The input [data, data + len) is cut into page-aligned blocks of `block`
 * bytes.  The threads register them in the order the pipeline will copy
 * its pieces (ascending, or descending for a split's GPU side), at most
 * `ahead` blocks past the last one asked for, and unregister the blocks
 * the pipeline has finished with (hay_hostreg_done) as it goes.  A block
 * the driver refuses (already registered by someone else, no memory) is
 * reported as not registered and the pipeline stages that piece instead.
 *
 * Only shared mappings are eligible (a file mapped MAP_SHARED, as hay maps
 * its inputs, or shared anonymous memory): whole pages are pinned, and
 * nothing else lives in them.  Not private file mappings: pinning one did
 * not finish (docs/PERF.md).  Not the heap either: its pages hold other
 * objects that the allocator may trim or move while they are pinned (on
 * the H200, small heap inputs registered this way failed copies now and
 * then); heap inputs are staged.
 */
#ifndef HAY_HOSTREG_H
#define HAY_HOSTREG_H

#include "../core/internal.h"

typedef struct hay_hostreg hay_hostreg;

typedef struct hay_hostreg_stats {
    double register_seconds, unregister_seconds;   /* on the thread */
    double wait_seconds;     /* the pipeline waiting for a block */
    uint64_t blocks, failed;
} hay_hostreg_stats;

/* Whether every page of [p, p + n) is in a readable shared mapping
 * (/proc/self/maps).  Built
 * in every build (tests/split.c checks it without a GPU); the rest only
 * with CUDA. */
bool hay_hostreg_eligible(const void *p, uint64_t n);

/* Whether device dev can register memory read-only. */
bool hay_hostreg_supported(int dev);

/* Starts `threads` threads (with dev current on them).  HAY_ERR_NOMEM
 * when no thread or memory could be had: the caller stages instead. */
hay_status hay_hostreg_start(int dev, const uint8_t *data, uint64_t len,
                             uint64_t block, unsigned ahead, unsigned threads,
                             bool descending, hay_hostreg **out);

/* Waits until every block of [a, b) (offsets in data) has been tried;
 * true when all are registered (copy from data directly). */
bool hay_hostreg_wait(hay_hostreg *r, uint64_t a, uint64_t b);

/* The end of the registered block holding offset x (a direct copy must
 * not cross it: one cudaMemcpyAsync per block). */
uint64_t hay_hostreg_block_end(const hay_hostreg *r, uint64_t x);

/* The pipeline no longer reads below mark (ascending) or at and above it
 * (descending): those blocks may be unregistered. */
void hay_hostreg_done(hay_hostreg *r, uint64_t mark);

/* Stops the thread after unregistering every block; no copy from data may
 * be in flight.  st may be NULL. */
void hay_hostreg_stop(hay_hostreg *r, hay_hostreg_stats *st);

#endif
