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
 *
 * The arrays may be device memory (CUDA sets only) or pinned (devmem.h):
 * the CUDA backend converts its lists on the device into either
 * (src/cuda/list_dev.h); what reaches hay_fill_batch (host runs, the
 * leftmost modes) is copied into device arrays through a bounce.
 */
#include "fill.h"

#include <stdlib.h>

int hay_fill_stop(hay_fill *f, uint64_t end)
{
    if (f->n && f->last_end == end)
        f->n = f->first_of_last;   /* never split the matches of one end */
    f->done = f->leftmost && f->n ? f->last_end : end - 1;
    f->state = f->n ? HAY_FILL_FULL : HAY_FILL_TOO_LARGE;
    return 1;
}

/* m[0, n) written at entry `at` of the arrays ids, starts, ends (any may
 * be NULL but ids), their offsets plus base. */
static void fill_write(uint32_t *ids, uint64_t *starts, uint64_t *ends, size_t at,
                       const hay_match *m, size_t n, uint64_t base)
{
    ids += at;
    for (size_t i = 0; i < n; i++)
        ids[i] = m[i].id;
    if (starts) {
        uint64_t *st = starts + at;
        for (size_t i = 0; i < n; i++)
            st[i] = m[i].start + base;
    }
    if (ends) {
        uint64_t *en = ends + at;
        for (size_t i = 0; i < n; i++)
            en[i] = m[i].end + base;
    }
}

/* Device arrays: m[0, n) through the bounce, a copy of each array per
 * HAY_FILL_BOUNCE matches.  Returns 0, or 1 with f->err set. */
static int fill_put(hay_fill *f, const hay_match *m, size_t n)
{
    hay_match_list *l = f->list;
    const size_t B = HAY_FILL_BOUNCE;
    if (!f->bounce)
        f->bounce = malloc(B * (sizeof *l->ids + 2 * sizeof *l->starts));
    if (!f->bounce) {
        f->err = HAY_ERR_NOMEM;
        return 1;
    }
    uint64_t *bs = f->bounce, *be = bs + B;
    uint32_t *bi = (uint32_t *)(be + B);
    for (size_t at = 0; at < n; at += B) {
        size_t k = n - at < B ? n - at : B, to = f->n + at;
        fill_write(bi, l->starts ? bs : NULL, l->ends ? be : NULL, 0, m + at, k, f->base);
        hay_status s = hay_devmem_put(l->ids + to, bi, k * sizeof *bi);
        if (s == HAY_OK && l->starts)
            s = hay_devmem_put(l->starts + to, bs, k * sizeof *bs);
        if (s == HAY_OK && l->ends)
            s = hay_devmem_put(l->ends + to, be, k * sizeof *be);
        f->put = true;
        if (s != HAY_OK) {
            f->err = s;
            return 1;
        }
    }
    return 0;
}

/* m[0, n) (all past `from`, all fitting) stored at f->n; the bookkeeping
 * from their last end.  Returns 0, or 1 when a device copy failed. */
static int fill_store(hay_fill *f, const hay_match *m, size_t n)
{
    hay_match_list *l = f->list;
    if (f->mem == HAY_MEM_DEVICE) {
        if (fill_put(f, m, n))
            return 1;
    } else {
        fill_write(l->ids, l->starts, l->ends, f->n, m, n, f->base);
    }
    uint64_t last = m[n - 1].end;
    size_t first = n - 1;
    while (first > 0 && m[first - 1].end == last)
        first--;
    hay_fill_commit(f, n, first, last + f->base);
    return 0;
}

int hay_fill_batch(const hay_match *m, size_t n, void *ctx)
{
    hay_fill *f = ctx;
    size_t skip = 0;   /* the matches ending at or before from come first */
    while (skip < n && m[skip].end + f->base <= f->from)
        skip++;
    m += skip;
    n -= skip;
    if (n == 0)
        return 0;
    size_t room = f->list->cap - f->n;
    if (n <= room)
        return fill_store(f, m, n);
    /* m[room] does not fit: the list ends before its end (never split). */
    uint64_t over = m[room].end;
    size_t take = room;
    while (take > 0 && m[take - 1].end == over)
        take--;
    if (take && fill_store(f, m, take))
        return 1;
    return hay_fill_stop(f, over + f->base);
}

/* Where the list's arrays are: all pinned, all device memory of one
 * device, else host memory; device memory mixed with host memory, or
 * device arrays on a backend other than CUDA: HAY_ERR_INVALID, said in
 * the log. */
static hay_status fill_where(const hay_patterns *set, const hay_scan_opts *o, hay_fill *f)
{
    const hay_match_list *l = f->list;
    const void *p[3] = { l->ids, l->starts, l->ends };
    int dev[3] = { -1, -1, -1 };
    unsigned pinned = 0, device = 0, given = 0;
    for (int i = 0; i < 3; i++) {
        if (!p[i])
            continue;
        hay_mem m = hay_devmem_kind(p[i], &dev[i]);
        given++;
        pinned += m == HAY_MEM_PINNED;
        device += m == HAY_MEM_DEVICE;
        if (m == HAY_MEM_DEVICE && dev[i] != dev[0]) {
            hay_log(o, "hay_scan_list: the arrays are device memory of devices %d and %d",
                    dev[0], dev[i]);
            return HAY_ERR_INVALID;
        }
    }
    if (device && device < given) {
        hay_log(o, "hay_scan_list: device memory mixed with host memory in the arrays");
        return HAY_ERR_INVALID;
    }
    if (device && set->backend->id != HAY_BACKEND_CUDA) {
        hay_log(o, "hay_scan_list: the arrays are device memory, which only a set compiled "
                "for HAY_BACKEND_CUDA writes (this one: %s)", set->backend->name);
        return HAY_ERR_INVALID;
    }
    f->mem = device ? HAY_MEM_DEVICE : pinned == given ? HAY_MEM_PINNED : HAY_MEM_HOST;
    f->device = dev[0];
    return HAY_OK;
}

/* The list scan of r (the input less its first skip bytes); sets list->n
 * and done. */
static hay_status fill_run(const hay_patterns *set, hay_scratch *scratch, hay_run *r,
                           uint64_t skip, uint64_t from, hay_match_list *list)
{
    hay_fill f = { .list = list, .from = from, .base = skip,
                   .leftmost = set->mode != HAY_MATCH_ALL };
    FORWARD_IF_ERROR(fill_where(set, r->opts, &f));
    r->ask = HAY_ASK_LIST;
    r->batch = hay_fill_batch;
    r->ctx = &f;
    hay_status s = hay_run_ask(set, scratch, r);
    free(f.bounce);
    if (f.put && f.err == HAY_OK)
        f.err = hay_devmem_sync();
    if (f.err != HAY_OK) {
        list->n = 0;
        list->done = from;
        return f.err;
    }
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
