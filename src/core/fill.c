/*
 * fill.c - hay_scan_list and hay_scan_buffer_list: the match list in the
 * caller's arrays, bounded by cap and resumable at an end offset (fill.h).
 *
 * A call is an ordinary batched list scan (hay_run_ask) whose batches go
 * to hay_fill_batch, so every backend and match mode gives the same
 * matches in the same order as hay_scan.  Resuming at `from`: the input
 * handed to the backend starts `from - (longest - 1)` bytes in (the
 * look-back; in the leftmost modes at `from` itself, where the selection
 * restarts) and the matches ending at or before `from` are dropped.
 */
#include "fill.h"

int hay_fill_stop(hay_fill *f, uint64_t end)
{
    if (f->n && f->last_end == end)
        f->n = f->first_of_last;   /* never split the matches of one end */
    f->done = f->leftmost && f->n ? f->last_end : end - 1;
    f->state = f->n ? HAY_FILL_FULL : HAY_FILL_TOO_LARGE;
    return 1;
}

/* A batch that fits whole, past `from`: copied without a test per match;
 * the bookkeeping from its last end. */
static void fill_whole(hay_fill *f, const hay_match *m, size_t n)
{
    hay_match_list *l = f->list;
    uint64_t base = f->base;
    uint32_t *ids = l->ids + f->n;
    for (size_t i = 0; i < n; i++)
        ids[i] = m[i].id;
    if (l->starts) {
        uint64_t *st = l->starts + f->n;
        for (size_t i = 0; i < n; i++)
            st[i] = m[i].start + base;
    }
    if (l->ends) {
        uint64_t *en = l->ends + f->n;
        for (size_t i = 0; i < n; i++)
            en[i] = m[i].end + base;
    }
    uint64_t last = m[n - 1].end;
    size_t first = n - 1;
    while (first > 0 && m[first - 1].end == last)
        first--;
    hay_fill_commit(f, n, first, last + base);
}

int hay_fill_batch(const hay_match *m, size_t n, void *ctx)
{
    hay_fill *f = ctx;
    hay_match_list *l = f->list;
    if (n && f->n + n <= l->cap && m[0].end + f->base > f->from) {
        fill_whole(f, m, n);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t end = m[i].end + f->base;
        if (end <= f->from)
            continue;
        if (f->n == l->cap)
            return hay_fill_stop(f, end);
        if (end != f->last_end || f->n == 0) {
            f->first_of_last = f->n;
            f->last_end = end;
        }
        l->ids[f->n] = m[i].id;
        if (l->starts)
            l->starts[f->n] = m[i].start + f->base;
        if (l->ends)
            l->ends[f->n] = end;
        f->n++;
    }
    return 0;
}

/* The list scan of r (the input less its first skip bytes); sets list->n
 * and done. */
static hay_status fill_run(const hay_patterns *set, hay_scratch *scratch, hay_run *r,
                           uint64_t skip, uint64_t from, hay_match_list *list)
{
    hay_fill f = { .list = list, .from = from, .base = skip,
                   .leftmost = set->mode != HAY_MATCH_ALL };
    r->ask = HAY_ASK_LIST;
    r->batch = hay_fill_batch;
    r->ctx = &f;
    hay_status s = hay_run_ask(set, scratch, r);
    if (f.state == HAY_FILL_FULL || (f.state == HAY_FILL_GOING && s == HAY_OK)) {
        list->n = f.n;
        list->done = f.state == HAY_FILL_FULL ? f.done : skip + r->len;
        return HAY_OK;
    }
    list->n = 0;
    if (f.state == HAY_FILL_TOO_LARGE) {
        list->done = f.done;
        return HAY_ERR_TOO_LARGE;
    }
    list->done = from;
    return s < 0 ? s : HAY_ERR_STATE;   /* a stop with nothing full: never */
}

hay_status hay_fill_list(const hay_patterns *set, hay_scratch *scratch, const uint8_t *host,
                         const void *buffer, uint64_t len, uint64_t from,
                         const hay_scan_opts *opts, hay_match_list *list)
{
    RETURN_ERROR_IF(!list, HAY_ERR_INVALID);
    list->n = 0;
    list->done = from;
    RETURN_ERROR_IF(!set || !scratch || !list->ids || list->cap == 0 || from > len,
                    HAY_ERR_INVALID);
    RETURN_ERROR_IF(!host && !buffer && len, HAY_ERR_INVALID);
    RETURN_ERROR_IF(host && len > SIZE_MAX, HAY_ERR_TOO_LARGE);
    if (from == len)
        return HAY_OK;
    hay_scan_opts defaults;
    if (!opts) {
        hay_scan_opts_init(&defaults);
        opts = &defaults;
    }
    /* The look-back; the leftmost modes' selection restarts at from. */
    uint64_t back = set->max_len - 1,
             skip = set->mode != HAY_MATCH_ALL ? from : from > back ? from - back : 0;
    hay_run r = { .host = host ? host + skip : NULL, .buffer = buffer, .len = len - skip,
                  .opts = opts, .skip = buffer ? skip : 0,
                  .note = buffer ? "device-resident buffer" : NULL };
    r.t0 = buffer || opts->stats || opts->log ? hay_now() : 0;
    return fill_run(set, scratch, &r, skip, from, list);
}

hay_status hay_scan_list(const hay_patterns *set, hay_scratch *scratch, const void *data,
                         uint64_t len, uint64_t from, const hay_scan_opts *opts,
                         hay_match_list *list)
{
    /* No data is fine with len 0 (then no buffer either: an empty input). */
    const uint8_t *host = data ? data : len ? NULL : (const uint8_t *)"";
    return hay_fill_list(set, scratch, host, NULL, len, from, opts, list);
}
