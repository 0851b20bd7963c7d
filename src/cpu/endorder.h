/*
 * endorder.h - what the filter engines (teddy.c, fdr.c) share to meet the
 * engine contract's order: their candidates come by start, the contract
 * wants matches by end.
 *
 * Verified matches wait in a small buffer sorted by (end, tie); once every
 * start up to S is verified, those ending at or before S + shortest are
 * final and go out (hay_eo_flush).  Should the buffer fill (dense
 * duplicates or overlaps), hay_eo_scan hands a stretch of ends to the
 * engine's direct per-end check and restarts the filter after it.
 */
#ifndef HAY_ENDORDER_H
#define HAY_ENDORDER_H

#include "../core/internal.h"

#define HAY_EO_CAP 4096      /* matches waiting (64 KiB of stack) */
#define HAY_EO_DIRECT 4096   /* ends checked directly after an overflow */

typedef struct hay_eo_match {
    uint64_t end;
    uint32_t tie;    /* order among equal ends */
    uint32_t val;    /* the engine's: a pattern id or a literal index */
} hay_eo_match;

typedef struct hay_eo {
    hay_eo_match *buf;
    size_t n;
    size_t flushed;   /* every match ending at or before it is out */
    /* Reports one match; non-zero stops the scan. */
    int (*out)(void *ctx, const hay_eo_match *m);
    void *ctx;
} hay_eo;

/* Inserts in (end, tie) order; false when full. */
static inline bool hay_eo_push(hay_eo *q, uint64_t end, uint32_t tie, uint32_t val)
{
    if (q->n == HAY_EO_CAP)
        return false;
    size_t k = q->n;
    while (k > 0 && (q->buf[k - 1].end > end ||
                     (q->buf[k - 1].end == end && q->buf[k - 1].tie > tie))) {
        q->buf[k] = q->buf[k - 1];
        k--;
    }
    q->buf[k] = (hay_eo_match){ end, tie, val };
    q->n++;
    return true;
}

/* Reports the matches ending at or before upto; 1 when out() stopped. */
static inline int hay_eo_flush(hay_eo *q, size_t upto)
{
    size_t k = 0;
    for (; k < q->n && q->buf[k].end <= upto; k++)
        if (q->out(q->ctx, &q->buf[k]))
            return 1;
    if (k) {
        memmove(q->buf, q->buf + k, (q->n - k) * sizeof *q->buf);
        q->n -= k;
    }
    if (upto > q->flushed)
        q->flushed = upto;
    return 0;
}

/* The first start whose matches can end after min_end. */
static inline size_t hay_eo_first_start(size_t max_len, size_t min_end)
{
    return min_end + 1 > max_len ? min_end + 1 - max_len : 0;
}

/*
 * The rounds of a filter engine's scan: filter(ctx, q, min_end) runs the
 * filter over the ends after min_end, pushing into q (q->n is 0,
 * q->flushed is min_end) and returns 0 when done, 1 when out() stopped, 2
 * when q filled; direct(ctx, lo, hi) reports the ends in (lo, hi] itself
 * (non-zero: stopped).  Returns non-zero when stopped.
 */
static inline int hay_eo_rounds(hay_eo *q, size_t n, size_t min_end, size_t max_len,
                                int (*filter)(void *ctx, hay_eo *q, size_t min_end),
                                int (*direct)(void *ctx, size_t lo, size_t hi),
                                void *ctx)
{
    while (min_end < n) {
        q->n = 0;
        q->flushed = min_end;
        int r = filter(ctx, q, min_end);
        if (r == 1)
            return 1;
        if (r == 0)
            return hay_eo_flush(q, SIZE_MAX);
        size_t stretch = max_len > HAY_EO_DIRECT ? max_len : HAY_EO_DIRECT;
        size_t stop = n - q->flushed > stretch ? q->flushed + stretch : n;
        if (direct(ctx, q->flushed, stop))
            return 1;
        min_end = stop;
    }
    return 0;
}

/*
 * A filter engine's scan (hay_eo_rounds) with its queue on the stack:
 * out(ctx, m) reports each match; *qp, the engine's own pointer to the
 * queue, points at it while the scan runs and is NULL after.
 */
static inline int hay_eo_scan(hay_eo **qp, int (*out)(void *ctx, const hay_eo_match *m),
                              size_t n, size_t min_end, size_t max_len,
                              int (*filter)(void *ctx, hay_eo *q, size_t min_end),
                              int (*direct)(void *ctx, size_t lo, size_t hi),
                              void *ctx)
{
    hay_eo_match buf[HAY_EO_CAP];
    hay_eo q = { .buf = buf, .out = out, .ctx = ctx };
    *qp = &q;
    int r = hay_eo_rounds(&q, n, min_end, max_len, filter, direct, ctx);
    *qp = NULL;
    return r;
}

#endif
