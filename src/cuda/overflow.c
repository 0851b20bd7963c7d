/*
 * overflow.c - an overflowing piece searched again in parts that fit
 * (overflow.h).
 */
#include "overflow.h"

#include <stdlib.h>

enum { SPREAD = 4 };   /* parts per list's worth of matches: lists fill >= 3/4 */

/* The call being gathered: parts that fit one list together, or a run of
 * single end positions for the host. */
typedef struct pending {
    enum { P_NONE, P_LIST, P_HOST } kind;
    uint64_t x, y, n;
} pending;

static hay_status flush(const hay_overflow_ops *ops, pending *p, hay_overflow_stats *st)
{
    hay_status s = HAY_OK;
    if (p->kind == P_LIST) {
        st->lists++;
        s = ops->list(ops->ctx, p->x, p->y, p->n);
    } else if (p->kind == P_HOST) {
        st->host++;
        s = ops->host(ops->ctx, p->x, p->y);
    }
    p->kind = P_NONE;
    return s;
}

/* Adds the ends (lo, hi] holding m matches to what is gathered, handing
 * over what can no longer grow. */
static hay_status add(const hay_overflow_ops *ops, uint64_t cap, pending *p, uint64_t lo,
                      uint64_t hi, uint64_t m, hay_overflow_stats *st);

/* The ends (x, y] with n > cap matches (y - x > 1): parts of about
 * cap / SPREAD matches each, counted HAY_OVERFLOW_PARTS at a time (a
 * round), each added in order. */
static hay_status plan(const hay_overflow_ops *ops, uint64_t cap, pending *p, uint64_t x,
                       uint64_t y, uint64_t n, hay_overflow_stats *st)
{
    uint64_t w = y - x;
    uint64_t k = (n / cap + 1) * SPREAD;
    if (k > w)
        k = w;
    /* Part i: ends (x + i wp + min(i, r), ...]: the first r are a byte wider. */
    uint64_t wp = w / k, r = w % k;
    /* On the heap: a dense part is planned within its round (depth). */
    uint64_t *b = malloc((2 * HAY_OVERFLOW_PARTS + 1) * sizeof *b);
    RETURN_ERROR_IF(!b, HAY_ERR_NOMEM);
    uint64_t *c = b + HAY_OVERFLOW_PARTS + 1;
    hay_status s = HAY_OK;
    for (uint64_t i0 = 0; i0 < k && s == HAY_OK; i0 += HAY_OVERFLOW_PARTS) {
        unsigned np = k - i0 < HAY_OVERFLOW_PARTS ? (unsigned)(k - i0) : HAY_OVERFLOW_PARTS;
        for (unsigned j = 0; j <= np; j++) {
            uint64_t i = i0 + j;
            b[j] = x + i * wp + (i < r ? i : r);
        }
        st->rounds++;
        st->parts += np;
        s = ops->count(ops->ctx, b, np, c);
        for (unsigned j = 0; j < np && s == HAY_OK; j++)
            s = add(ops, cap, p, b[j], b[j + 1], c[j], st);
    }
    free(b);
    return s;
}

static hay_status add(const hay_overflow_ops *ops, uint64_t cap, pending *p, uint64_t lo,
                      uint64_t hi, uint64_t m, hay_overflow_stats *st)
{
    if (m == 0)
        return HAY_OK;   /* a list gathered across it searches it in passing */
    if (m > cap && hi - lo == 1) {
        if (p->kind == P_HOST && p->y == lo) {
            p->y = hi;
            return HAY_OK;
        }
        hay_status s = flush(ops, p, st);   /* an error, or HAY_STOPPED */
        *p = (pending){ P_HOST, lo, hi, 0 };
        return s;
    }
    if (m > cap)   /* denser than the parts around it: finer parts */
        return plan(ops, cap, p, lo, hi, m, st);
    if (p->kind == P_LIST && p->n + m <= cap) {
        p->y = hi;
        p->n += m;
        return HAY_OK;
    }
    hay_status s = flush(ops, p, st);
    *p = (pending){ P_LIST, lo, hi, m };
    return s;
}

hay_status hay_overflow_search(const hay_overflow_ops *ops, uint64_t cap, uint64_t x,
                               uint64_t y, uint64_t n, hay_overflow_stats *st)
{
    pending p = { P_NONE, 0, 0, 0 };
    hay_status s = add(ops, cap, &p, x, y, n, st);
    if (s == HAY_OK)
        s = flush(ops, &p, st);
    return s;
}
