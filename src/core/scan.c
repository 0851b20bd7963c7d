/*
 * scan.c - the public scan calls: options and scratch, the checks every
 * call makes, one ask of the set's backend (the leftmost modes' filter,
 * batches, the scratch's hold), and streams.  The CPU backend's scans are
 * the chunk driver's (chunks.c).
 */
#include "scratch.h"

#include <stdatomic.h>

void hay_scan_opts_init(hay_scan_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->schedule = HAY_SCHEDULE_DYNAMIC;
}

hay_status hay_scratch_create(const hay_patterns *set, hay_scratch **out)
{
    RETURN_ERROR_IF(!out, HAY_ERR_INVALID);
    *out = NULL;
    RETURN_ERROR_IF(!set, HAY_ERR_INVALID);
    hay_scratch *s = hay_calloc(&set->alloc, 1, sizeof *s);
    RETURN_ERROR_IF(!s, HAY_ERR_NOMEM);
    s->alloc = set->alloc;
    atomic_init(&s->in_use, false);
    *out = s;
    return HAY_OK;
}

void hay_scratch_free(hay_scratch *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nbufs; i++)
        hay_free(&s->alloc, s->bufs[i].m);
    hay_free(&s->alloc, s->bufs);
    hay_free(&s->alloc, s->batch);
    hay_allocator a = s->alloc;
    hay_free(&a, s);
}

/* Public entry points ------------------------------------------------------ */

/*
 * What every scan entry point checks first: the arguments, the default
 * options.  Returns HAY_OK to scan, HAY_STOPPED when there is nothing to
 * scan (an empty haystack: the caller returns HAY_OK), or an error.
 */
static hay_status scan_begin(const hay_patterns *set, const hay_scratch *scratch,
                             const void *data, uint64_t len,
                             const hay_scan_opts **opts, hay_scan_opts *defaults)
{
    RETURN_ERROR_IF(!set || !scratch, HAY_ERR_INVALID);
    RETURN_ERROR_IF(!data && len, HAY_ERR_INVALID);
    RETURN_ERROR_IF(len > SIZE_MAX, HAY_ERR_TOO_LARGE);
    if (!*opts) {
        hay_scan_opts_init(defaults);
        *opts = defaults;
    }
    return len == 0 ? HAY_STOPPED : HAY_OK;
}

static int count_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}

int hay_count_each_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start; (void)end;
    ((uint64_t *)ctx)[id]++;
    return 0;
}

int hay_mark_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start;
    hay_mark_set(ctx, end);
    return 0;
}

int hay_first_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    *(hay_match *)ctx = (hay_match){ id, 0, start, end };
    return 1;
}

hay_status hay_run_host_ops(const hay_backend_ops *b, const hay_patterns *set,
                            hay_scratch *scratch, const hay_run *r)
{
    const hay_scan_opts *o = r->opts;
    switch (r->ask) {
    case HAY_ASK_COUNT:
        return b->count(set, scratch, r->host, r->len, o, r->count);
    case HAY_ASK_EACH:
        if (b->count_each)
            return b->count_each(set, scratch, r->host, r->len, o, r->counts);
        return b->scan(set, scratch, r->host, r->len, o, hay_count_each_cb, r->counts);
    case HAY_ASK_MARK:
        hay_marks_clear(r);
        if (b->marks)
            return b->marks(set, scratch, r->host, r->len, o, r->marks);
        return b->scan(set, scratch, r->host, r->len, o, hay_mark_cb, r->marks);
    case HAY_ASK_FIRST: {
        /* The stop is hay_first_cb's: the first match is in. */
        hay_status s = b->scan(set, scratch, r->host, r->len, o, hay_first_cb, r->first);
        return s == HAY_STOPPED ? HAY_OK : s;
    }
    case HAY_ASK_LIST:
        break;
    }
    return b->scan(set, scratch, r->host, r->len, o, r->fn, r->ctx);
}

/* One ask of the set's backend: every occurrence. */
static hay_status run_backend(const hay_patterns *set, hay_scratch *scratch,
                              const hay_run *r)
{
    const hay_backend_ops *b = set->backend;
    if (b->run)
        return b->run(set, scratch, r);
    RETURN_ERROR_IF(r->buffer, HAY_ERR_UNSUPPORTED);
    return hay_run_host_ops(b, set, scratch, r);
}

/* The callback that answers ask r from a list of matches (the leftmost
 * modes' filter hands it its selection), with its ctx. */
static hay_match_fn list_answer(const hay_run *r, void **ctx)
{
    switch (r->ask) {
    case HAY_ASK_LIST:
        *ctx = r->ctx;
        return r->fn;
    case HAY_ASK_EACH:
        *ctx = r->counts;
        return hay_count_each_cb;
    case HAY_ASK_MARK:
        *ctx = r->marks;
        return hay_mark_cb;
    case HAY_ASK_FIRST:
        *ctx = r->first;
        return hay_first_cb;
    case HAY_ASK_COUNT:
        break;
    }
    *ctx = r->count;
    return count_cb;
}

static hay_status run_ask(const hay_patterns *set, hay_scratch *scratch,
                          const hay_run *r)
{
    if (set->mode == HAY_MATCH_ALL)
        return run_backend(set, scratch, r);
    /* The leftmost modes select from the list of every occurrence, on
     * every backend and for every ask. */
    void *ctx;
    hay_match_fn to = list_answer(r, &ctx);
    hay_leftmost *f;
    FORWARD_IF_ERROR(hay_leftmost_create(set, to, ctx, &f));
    hay_run lr = *r;
    lr.ask = HAY_ASK_LIST;
    lr.fn = hay_leftmost_match;
    lr.ctx = f;
    lr.count = NULL;
    lr.counts = NULL;
    if (r->ask == HAY_ASK_MARK)
        hay_marks_clear(r);
    lr.marks = NULL;
    lr.first = NULL;
    hay_status s = run_backend(set, scratch, &lr);
    if (s == HAY_OK && hay_leftmost_flush(f))
        s = HAY_STOPPED;
    hay_leftmost_free(f);
    /* The first match stopped the list (hay_first_cb). */
    if (s == HAY_STOPPED && r->ask == HAY_ASK_FIRST && r->first->end)
        s = HAY_OK;
    return s;
}

/* Documented misuse (haystack.h), detected as Hyperscan's scratch does:
 * a second scan on a scratch that a scan holds is refused, not run on
 * match buffers another thread is filling. */
hay_status hay_run_ask(const hay_patterns *set, hay_scratch *scratch,
                       const hay_run *r)
{
    if (atomic_exchange_explicit(&scratch->in_use, true, memory_order_acquire))
        return HAY_ERR_SCRATCH_IN_USE;
    hay_status s;
    if (r->batch) {
        /* The batch is delivered under the scratch's hold: a scan from the
         * callback finds it in use, as from a per-match callback. */
        hay_batcher bt;
        hay_run br = *r;
        br.fn = hay_batch_match;
        br.ctx = &bt;
        br.batch = NULL;
        s = hay_batcher_init(&bt, &scratch->alloc, &scratch->batch, r->batch, r->ctx);
        if (s == HAY_OK)
            s = run_ask(set, scratch, &br);
        if (s == HAY_OK && hay_batch_flush(&bt))
            s = HAY_STOPPED;
    } else {
        s = run_ask(set, scratch, r);
    }
    atomic_store_explicit(&scratch->in_use, false, memory_order_release);
    return s;
}

/* A host input's ask: the checks, the defaults, then hay_run_ask. */
static hay_status host_ask(const hay_patterns *set, hay_scratch *scratch,
                           const void *data, uint64_t len,
                           const hay_scan_opts *opts, hay_run *r)
{
    hay_scan_opts defaults;
    hay_status s = scan_begin(set, scratch, data, len, &opts, &defaults);
    if (s != HAY_OK)
        return s == HAY_STOPPED ? HAY_OK : s;
    r->host = data;
    r->len = len;
    r->opts = opts;
    /* Only the stats and the log read the start; a clock read is a fifth
     * of a scan of a short line (a caller scanning line after line). */
    r->t0 = opts->stats || opts->log ? hay_now() : 0;
    return hay_run_ask(set, scratch, r);
}

hay_status hay_scan(const hay_patterns *set, hay_scratch *scratch,
                    const void *data, uint64_t len, const hay_scan_opts *opts,
                    hay_match_fn on_match, void *ctx)
{
    RETURN_ERROR_IF(!on_match, HAY_ERR_INVALID);
    hay_run r = { .ask = HAY_ASK_LIST, .fn = on_match, .ctx = ctx };
    return host_ask(set, scratch, data, len, opts, &r);
}

hay_status hay_scan_batch(const hay_patterns *set, hay_scratch *scratch,
                          const void *data, uint64_t len, const hay_scan_opts *opts,
                          hay_batch_fn on_batch, void *ctx)
{
    RETURN_ERROR_IF(!on_batch, HAY_ERR_INVALID);
    hay_run r = { .ask = HAY_ASK_LIST, .batch = on_batch, .ctx = ctx };
    return host_ask(set, scratch, data, len, opts, &r);
}

hay_status hay_scan_count(const hay_patterns *set, hay_scratch *scratch,
                          const void *data, uint64_t len,
                          const hay_scan_opts *opts, uint64_t *count)
{
    RETURN_ERROR_IF(!count, HAY_ERR_INVALID);
    *count = 0;
    hay_run r = { .ask = HAY_ASK_COUNT, .count = count };
    return host_ask(set, scratch, data, len, opts, &r);
}

hay_status hay_scan_count_each(const hay_patterns *set, hay_scratch *scratch,
                               const void *data, uint64_t len,
                               const hay_scan_opts *opts, uint64_t *counts)
{
    RETURN_ERROR_IF(!set || !counts, HAY_ERR_INVALID);
    memset(counts, 0, set->n * sizeof *counts);
    hay_run r = { .ask = HAY_ASK_EACH, .counts = counts };
    return host_ask(set, scratch, data, len, opts, &r);
}

hay_status hay_scan_marks(const hay_patterns *set, hay_scratch *scratch,
                          const void *data, uint64_t len,
                          const hay_scan_opts *opts, uint64_t *marks)
{
    /* Nothing is written unless the call is valid. */
    RETURN_ERROR_IF(!marks || !set || !scratch || (!data && len), HAY_ERR_INVALID);
    RETURN_ERROR_IF(len > SIZE_MAX - 63, HAY_ERR_TOO_LARGE);
    hay_run r = { .ask = HAY_ASK_MARK, .marks = marks };
    return host_ask(set, scratch, data, len, opts, &r);
}

hay_status hay_scan_first(const hay_patterns *set, hay_scratch *scratch,
                          const void *data, uint64_t len,
                          const hay_scan_opts *opts, hay_match *first)
{
    RETURN_ERROR_IF(!first, HAY_ERR_INVALID);
    memset(first, 0, sizeof *first);
    hay_run r = { .ask = HAY_ASK_FIRST, .first = first };
    return host_ask(set, scratch, data, len, opts, &r);
}

/* Streams ------------------------------------------------------------------ */

struct hay_stream {
    const hay_patterns *set;
    hay_cb_sink cb;
    hay_emit_fn emit;    /* to cb, or into batch */
    void *sink;
    hay_batcher batch;   /* hay_stream_open_batch: batch.fn set */
    hay_match *batch_m;
    uint64_t pos;        /* bytes written so far */
    uint8_t *buf;        /* tail (up to longest - 1 bytes), then room for a junction */
    size_t tail;
    bool stopped;
    bool closed;         /* hay_stream_close done: only free is left */
    hay_leftmost *leftmost;   /* the leftmost modes' filter, or NULL */
};

/* A stream reporting to on_match(ctx), or in batches to on_batch(ctx). */
static hay_status stream_open(const hay_patterns *set, hay_match_fn on_match,
                              hay_batch_fn on_batch, void *ctx, hay_stream **out)
{
    RETURN_ERROR_IF(!out, HAY_ERR_INVALID);
    *out = NULL;
    RETURN_ERROR_IF(!set || !(on_match || on_batch), HAY_ERR_INVALID);
    RETURN_ERROR_IF(!set->engine, HAY_ERR_UNSUPPORTED);
    hay_stream *st = hay_calloc(&set->alloc, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    st->set = set;
    hay_status s = HAY_OK;
    st->buf = hay_malloc(&set->alloc, 2 * set->max_len);
    if (!st->buf)
        s = HAY_ERR_NOMEM;
    if (s == HAY_OK && on_batch) {
        s = hay_batcher_init(&st->batch, &set->alloc, &st->batch_m, on_batch, ctx);
        on_match = hay_batch_match;
        ctx = &st->batch;
    }
    if (s == HAY_OK && set->mode != HAY_MATCH_ALL) {
        s = hay_leftmost_create(set, on_match, ctx, &st->leftmost);
        on_match = hay_leftmost_match;
        ctx = st->leftmost;
    }
    if (s < 0) {
        hay_stream_free(st);
        return s;
    }
    st->emit = hay_emit_to(on_match, ctx, &st->cb, &st->sink);
    *out = st;
    return HAY_OK;
}

hay_status hay_stream_open(const hay_patterns *set, hay_match_fn on_match,
                           void *ctx, hay_stream **out)
{
    return stream_open(set, on_match, NULL, ctx, out);
}

hay_status hay_stream_open_batch(const hay_patterns *set, hay_batch_fn on_batch,
                                 void *ctx, hay_stream **out)
{
    return stream_open(set, NULL, on_batch, ctx, out);
}

/* A batched stream hands over what it holds at the end of every call. */
static int stream_flush(hay_stream *st)
{
    return st->batch.fn ? hay_batch_flush(&st->batch) : 0;
}

hay_status hay_stream_write(hay_stream *st, const void *data, size_t len)
{
    RETURN_ERROR_IF(!st || (!data && len), HAY_ERR_INVALID);
    RETURN_ERROR_IF(st->closed, HAY_ERR_STATE);
    if (st->stopped)
        return HAY_STOPPED;
    if (len == 0)
        return HAY_OK;
    const hay_patterns *set = st->set;
    const uint8_t *d = data;
    size_t back = set->max_len - 1;

    /* Matches ending in the first `head` new bytes may start in the tail:
     * search them in tail + head, keeping only those that end in new data. */
    size_t head = len < back ? len : back;
    memcpy(st->buf + st->tail, d, head);
    if (set->engine->scan(set, set->state, st->buf, st->tail + head, st->tail,
                          st->pos - st->tail, st->emit, st->sink))
        goto stopped;
    /* The rest lies wholly in the new data. */
    if (hay_scan_range_at(set, d, st->pos, head, len, st->emit, st->sink))
        goto stopped;

    /* Keep the last `back` bytes of tail + data. */
    size_t joined = st->tail + head;
    if (len > head) {
        size_t keep = len < back ? len : back;
        memcpy(st->buf, d + len - keep, keep);
        st->tail = keep;
    } else {
        size_t keep = joined < back ? joined : back;
        memmove(st->buf, st->buf + joined - keep, keep);
        st->tail = keep;
    }
    st->pos += len;
    if (stream_flush(st))
        goto stopped;
    return HAY_OK;
stopped:
    st->stopped = true;
    return HAY_STOPPED;
}

hay_status hay_stream_close(hay_stream *st)
{
    if (!st)
        return HAY_OK;
    RETURN_ERROR_IF(st->closed, HAY_ERR_STATE);
    st->closed = true;
    if (st->stopped)
        return HAY_OK;
    if ((st->leftmost && hay_leftmost_flush(st->leftmost)) || stream_flush(st))
        return HAY_STOPPED;
    return HAY_OK;
}

void hay_stream_free(hay_stream *st)
{
    if (!st)
        return;
    hay_leftmost_free(st->leftmost);
    hay_allocator a = st->set->alloc;
    hay_free(&a, st->batch_m);
    hay_free(&a, st->buf);
    hay_free(&a, st);
}
