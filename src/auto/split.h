/*
 * split.h - one input shared between CPU threads and a second worker (the
 * GPU pipeline, or for tests a host thread), backend auto's "split"
 * (split.c; the GPU worker is in auto.c and reaches the pipeline through
 * the CUDA backend's ops, with the split as its hay_piece_source).
 *
 * The calling thread scans pieces from the front of the input with the CPU
 * backend; the worker, on a thread of its own, takes pieces from the back.
 * Both claim pieces under one lock from the same pair of cursors, so they
 * meet wherever their real rates put them, with no calibration.  A piece
 * owns the matches whose end lies in it ((gs, ge], chunks.c's chunk rule) and
 * is searched from longest - 1 bytes before it, so each match is found
 * once.  Counts simply add.  For the full list the worker's matches are
 * kept per piece (up to a byte budget; a piece over it is "deferred") and
 * handed to the callback, in order, after the CPU's part: the worker's
 * pieces all lie after the meeting point.  Deferred pieces, and pieces the
 * worker claimed but could not finish (a GPU error), are searched by the
 * CPU at that point, so nothing is lost.
 */
#ifndef HAY_SPLIT_H
#define HAY_SPLIT_H

#include "../core/internal.h"
#include "policy.h"

/* Scan modes: the asks of internal.h. */
enum { HAY_SPLIT_COUNT = HAY_ASK_COUNT, HAY_SPLIT_EACH = HAY_ASK_EACH,
       HAY_SPLIT_LIST = HAY_ASK_LIST };

typedef struct hay_split hay_split;

/* The worker: takes pieces with hay_split_claim_back until it returns
 * false, searches each, and reports it with hay_split_piece_done (count
 * modes) after handing a list piece's matches to hay_split_collect.  In
 * HAY_SPLIT_EACH it adds its per-pattern counts to hay_split_counts(sp)
 * before returning HAY_OK.  A negative status makes the CPU redo every
 * piece not reported done (all of them in HAY_SPLIT_EACH). */
typedef hay_status (*hay_split_worker_fn)(hay_split *sp, void *wctx);

typedef struct hay_split_cfg {
    uint64_t cpu_piece;      /* bytes the calling thread claims at a time */
    uint64_t list_budget;    /* bytes of worker matches held for the list */
    hay_split_worker_fn worker;
    void *wctx;
    /* The count modes' CPU threads that search beside the worker (0: all
     * of them); the others wait, and search only if the worker returns
     * without taking a piece (no usable GPU), so that a failed start-up
     * still leaves every core searching. */
    unsigned cpu_keep;
    /* HAY_SPLIT_COUNT: the matches ending in the first `front` bytes were
     * counted already (front_count; backend auto's probe of the CPU's
     * rate), and the split starts after them. */
    uint64_t front, front_count;
    /* The piece sizes' tuning; NULL: hay_auto_policy_default. */
    const hay_auto_policy *policy;
} hay_split_cfg;

/* What a split scan did (filled by hay_split_scan). */
typedef struct hay_split_result {
    uint64_t cpu_bytes, worker_bytes;    /* owned bytes searched by each side */
    double cpu_seconds, worker_seconds;  /* time each side spent searching */
    uint64_t redone_bytes;               /* worker pieces the CPU searched */
    hay_status worker_status;
    uint64_t matches;
} hay_split_result;

/* One split scan of data[0, len) with set (backend auto: set->engine is
 * the CPU engine).  mode: HAY_SPLIT_*; fn/ctx for the list, count or
 * counts (zeroed by the caller) for the others.  With o->log set, the
 * split's timeline goes there.  Returns HAY_OK, HAY_STOPPED or an error of
 * the CPU side or of memory. */
hay_status hay_split_scan(const hay_patterns *set, hay_scratch *scratch,
                          const uint8_t *data, uint64_t len,
                          const hay_scan_opts *o, int mode, hay_match_fn fn,
                          void *ctx, uint64_t *count, uint64_t *counts,
                          const hay_split_cfg *cfg, hay_split_result *res);

/* For the worker. */
bool hay_split_claim_back(hay_split *sp, uint64_t want, size_t *piece,
                          uint64_t *gs, uint64_t *ge);
/* The piece whose matches hay_split_collect receives next. */
void hay_split_collect_into(hay_split *sp, size_t piece);
/* A hay_match_fn (ctx = sp) that keeps a list match of the current piece. */
int hay_split_collect(uint32_t id, uint64_t start, uint64_t end, void *ctx);
void hay_split_piece_done(hay_split *sp, size_t piece, uint64_t count);
uint64_t *hay_split_counts(hay_split *sp);
const hay_patterns *hay_split_set(const hay_split *sp);
int hay_split_mode(const hay_split *sp);
bool hay_split_stopping(const hay_split *sp);
/* The split as a device pipeline's source of pieces (hay_run.pieces). */
hay_piece_source hay_split_source(hay_split *sp);

/* A worker that searches its pieces on its host thread with the CPU engine
 * (params split=emulate): the split machinery without a GPU, for tests.
 * wctx: a uint64_t * holding the piece size. */
hay_status hay_split_host_worker(hay_split *sp, void *wctx);

#endif
