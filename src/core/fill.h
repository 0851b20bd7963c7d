/*
 * fill.h - the match list in the caller's arrays (hay_scan_list, fill.c).
 *
 * Every backend delivers through the batch path: fill.c's hay_fill_batch
 * (a hay_batch_fn) copies each batch into the arrays and stops the scan
 * (non-zero) at the first match that does not fit.  A delivery loop that
 * holds an ordered array of its own (the CUDA list, src/cuda/list.c) asks
 * hay_fill_of() and, when it gets one, writes into the arrays directly,
 * with hay_fill_take() to know how much fits and hay_fill_stop() at the
 * first match that does not.
 */
#ifndef HAY_FILL_H
#define HAY_FILL_H

#include "devmem.h"
#include "internal.h"

typedef enum hay_fill_state {
    HAY_FILL_GOING = 0,
    HAY_FILL_FULL = 1,        /* stopped before a match that did not fit */
    HAY_FILL_TOO_LARGE = 2    /* the first end's matches alone exceed cap */
} hay_fill_state;

typedef struct hay_fill {
    hay_match_list *list;     /* the caller's arrays; list->n is kept here */
    uint64_t from;            /* store the matches with end > from */
    uint64_t base;            /* added to the offsets the backend reports */
    bool leftmost;            /* a leftmost mode (done = the last end) */
    size_t n;                 /* stored */
    uint64_t last_end;        /* the end of match n - 1 */
    size_t first_of_last;     /* the first stored match ending at last_end */
    hay_fill_state state;
    uint64_t done;            /* set by hay_fill_stop */
    /* Where the arrays are (devmem.h): the same kind for all of them, and
     * their device when device memory.  Device arrays are written through
     * a bounce (hay_fill_batch); a backend that converts on the device
     * writes them itself (src/cuda/list_dev.h). */
    hay_mem mem;
    int device;
    void *bounce;             /* device arrays: HAY_FILL_BOUNCE entries, made on use */
    bool put;                 /* a bounce was copied (synchronised at the end) */
    hay_status err;           /* a failed copy into device arrays */
} hay_fill;

/* Entries of a device list's bounce (ids, starts and ends). */
#define HAY_FILL_BOUNCE 4096u

/* The batch callback (ctx: a hay_fill). */
int hay_fill_batch(const hay_match *m, size_t n, void *ctx);

/* The fill behind a match callback (a batcher whose fn is
 * hay_fill_batch), or NULL. */
static inline hay_fill *hay_fill_of(hay_match_fn fn, void *ctx)
{
    hay_batcher *b = hay_batcher_of(fn, ctx);
    return b && b->fn == hay_fill_batch ? (hay_fill *)b->ctx : NULL;
}

/* The match ending at `end` (absolute) does not fit: the list ends before
 * that end (the matches stored at it, if any, are taken back).  Returns 1
 * (stop the scan). */
int hay_fill_stop(hay_fill *f, uint64_t end);

/* After storing k matches directly at list->ids + f->n ... whose last
 * ends at `last` and the first of whose matches ending at `last` is
 * number `first` of the k: the bookkeeping. */
static inline void hay_fill_commit(hay_fill *f, size_t k, size_t first, uint64_t last)
{
    if (k == 0)
        return;
    if (!(first == 0 && f->n && f->last_end == last))
        f->first_of_last = f->n + first;
    f->last_end = last;
    f->n += k;
}

/* hay_scan_list over a host input (host, NULL buffer) or hay_scan_buffer_list
 * over a device buffer of the set's backend (buffer: its ops' handle, NULL
 * host): the checks, then the batched scan into list. */
hay_status hay_fill_list(const hay_patterns *set, hay_scratch *scratch, const uint8_t *host,
                         const void *buffer, uint64_t len, uint64_t from,
                         const hay_scan_opts *opts, hay_match_list *list);

#endif
