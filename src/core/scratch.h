/*
 * scratch.h - the scratch's layout, shared by the public scan calls
 * (scan.c: its life and its hold) and the chunk driver (chunks.c: the
 * match buffers of a parallel scan).
 */
#ifndef HAY_CORE_SCRATCH_H
#define HAY_CORE_SCRATCH_H

#include "internal.h"

#include <stdatomic.h>

typedef struct match_rec {
    uint64_t end;
    uint32_t id;
} match_rec;

/* A parallel scan's match buffer for one chunk (chunks.c). */
typedef struct chunk_buf {
    match_rec *m;
    size_t n, cap;
    uint64_t complete_end;   /* when overflowed: all ends <= this are in m */
    bool overflow;   /* full (or could not grow): rescan after complete_end */
    atomic_uint_fast64_t filled;   /* the ring: 1 + the chunk it holds, once filled */
} chunk_buf;

struct hay_scratch {
    hay_allocator alloc;
    chunk_buf *bufs;
    size_t nbufs;
    atomic_bool in_use;   /* a scan holds it (hay_run_ask) */
    hay_match *batch;     /* a batched scan's array (HAY_BATCH_MAX), kept */
};

#endif
