/*
 * scan.h - one scan on the GPU as the files of the pipeline share it: the
 * scan's state (scan_req: made and run by pipeline.c) and the sinks that
 * hand a piece's results to the caller (sinks.c): sorted lists to the
 * callback or the caller's arrays, a piece's marks, its first match, its
 * count.  Private to the host driver (driver.h), built only with CUDA.
 *
 * A listing scan hands a piece's matches over one piece behind: when the
 * count of piece i is in (pipeline.c take), its sort and copy back are
 * enqueued (r->taken), the next piece goes onto the slot, and then piece
 * i - 1's list (r->held), copied back meanwhile, goes to the callback
 * (hay_cuda_deliver).  So the sort and copy-out of one piece overlap the
 * copy-in and kernel of the next ones, and the host's delivery overlaps
 * all of them.
 */
#ifndef HAY_CUDA_SCAN_H
#define HAY_CUDA_SCAN_H

#include "driver.h"
#include "hostreg.h"
#include "list.h"
#include "list_dev.h"
#include "overflow.h"

typedef struct scan_req {
    const hay_patterns *set;
    cuda_set *cs;
    const uint8_t *host;     /* host input, or */
    const uint8_t *dev;      /* device-resident input (padded) */
    uint64_t len;
    const hay_scan_opts *o;
    hay_ask ask;
    hay_match_fn fn;
    void *ctx;
    uint64_t *marks;         /* HAY_ASK_MARK: the caller's bitmap */
    hay_match *first;        /* HAY_ASK_FIRST: end 0 until found */
    uint64_t count;
    unsigned long long *d_pc;    /* HAY_ASK_EACH */
    hay_scan_stats st;
    cuda_pipe *pp;
    uint64_t chunk, back;
    uint64_t ramp;           /* hay_scan_list: the next piece's size while
                              * below chunk (doubling), so that the first
                              * keys reach the host sooner; 0: chunk */
    bool stopped;
    unsigned stage_threads;  /* threads copying into pinned staging */
    const hay_piece_source *pieces;   /* split scans: pieces come from here */
    hay_hostreg *reg;        /* transfer=register: the input is pinned in place */
    hay_copy_pool *pool;     /* a split's staging copy threads */
    uint64_t direct_bytes;   /* bytes copied from the input itself */
    uint64_t staged_bytes;   /* bytes staged (or copied pageable) */
    hay_list_sink sink;      /* HAY_ASK_LIST: where sorted lists go (list.h) */
    hay_dlist *dl;           /* hay_scan_list into device or pinned arrays:
                              * converted on the device (list_dev.h) */
    uint64_t cap;            /* list slots per piece: the set's result_cap or
                              * less (the slots' lists, made once) */
    uint64_t peek;           /* keys copied back with each piece's count:
                              * lists this short skip the device sort */
    cuda_slot *held, *taken; /* lists enqueued, not yet delivered
                              * (hay_cuda_deliver): the older, the newer */
    bool stage_async;        /* a list from host memory: large pieces staged
                              * on r->pool's threads (started with the first)
                              * while the list before is delivered */
    cuda_slot *staging;      /* the slot being staged so (issue, enqueue) */
    struct {                 /* where a list's time goes (logged, o->log) */
        double sort, back;   /* GPU: sorting, copying back */
        double stage, wait_count, wait_list, deliver;   /* the calling thread */
        uint64_t pieces, reruns, shorts;
        hay_overflow_stats over;   /* what the overflowing pieces cost */
    } tl;
} scan_req;

/* Waits for the slot's enqueued list (pipeline.c enqueue_out) and hands
 * it to the callback, or, into device-reachable arrays, converts it where
 * it lies (list_dev.h).  HAY_STOPPED when the callback stopped the scan. */
hay_status hay_cuda_finish_out(scan_req *r, cuda_slot *sl);

/* Hands the held piece's list over (hay_cuda_finish_out), with a split's
 * bookkeeping and the progress callback; the taken one is held next. */
hay_status hay_cuda_deliver(scan_req *r);
/* Delivers the held list (if any) and what is taken after it. */
hay_status hay_cuda_deliver_all(scan_req *r);

/* A list of n <= r->peek keys, copied back unsorted with the piece's count
 * into sl->h_peek: sorted here and handed over, so the piece costs one
 * round trip, not two. */
hay_status hay_cuda_hand_short(scan_req *r, cuda_slot *sl, uint64_t n);

/* The matches ending in (from, len] of the host text h (whose byte 0 is
 * the input's byte lo), found with the set's PFAC tables, to the callback
 * and the scan's count (an overflow's end positions with more matches than
 * list slots). */
hay_status hay_cuda_hand_host(scan_req *r, const uint8_t *h, uint64_t len, uint64_t from,
                              uint64_t lo);

/* The answer of a piece that is not a list, when its count is in: its
 * marks into the caller's bitmap, its first match (pieces are taken in
 * order), or its count added.  Nothing for HAY_ASK_LIST. */
void hay_cuda_take_answer(scan_req *r, const cuda_slot *sl);

/* hay_scan_list: the lists taken and held (after the first piece, whose
 * first ends may lie below the call's `from`) hold more matches than the
 * caller's arrays have room for, so the call stops within them: no further
 * piece is issued. */
bool hay_cuda_list_full_ahead(const scan_req *r);

#endif
