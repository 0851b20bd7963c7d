/*
 * scan.c - the public scan calls, scratch, and the CPU chunk driver.
 *
 * Ownership rule: a chunk [s, e) of the haystack owns the matches whose last
 * byte lies in it, i.e. whose end is in (s, e].  To find them the engine is
 * handed data from s - (longest - 1) on, with min_end telling it to drop
 * matches that end before s.  Every match is thereby found exactly once, and
 * reporting chunks in order gives matches in order of end.
 *
 * With several threads and a callback, threads fill one match buffer per
 * chunk and the calling thread replays the buffers in chunk order, the
 * callback's work overlapping the filling of the chunks after it: the
 * buffers form a ring (chunk k in buffer k % R), a thread takes the next
 * chunk only once its buffer was replayed, and the calling thread fills
 * chunks too when the next one to replay is not ready (the dynamic
 * schedule; the static one goes in rounds: fill R chunks, then replay
 * them).  A buffer is capped; a chunk that overflows it keeps what it has
 * (all matches up to some end E) and the rest of that chunk is rescanned
 * serially with the callback attached, so memory stays bounded however
 * dense the matches are.
 *
 * A batched scan (hay_scan_batch) runs the same way with a hay_batcher as
 * the callback (batch.c); the replay and the serial scan put into its array
 * directly.
 */
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define DEFAULT_CHUNK ((size_t)1 << 20)
/* Below this, starting threads costs more than it saves; above it, each
 * thread gets at least MIN_PER_THREAD bytes. */
#define MIN_PARALLEL ((uint64_t)4 << 20)
#define MIN_PER_THREAD ((uint64_t)1 << 20)
#define CHUNKS_PER_THREAD_ROUND 4
#define CHUNK_MATCH_CAP ((size_t)1 << 16)
#define PROGRESS_STEP ((uint64_t)64 << 20)

typedef struct match_rec {
    uint64_t end;
    uint32_t id;
} match_rec;

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

static hay_status scratch_reserve(hay_scratch *s, size_t nbufs)
{
    if (s->nbufs >= nbufs)
        return HAY_OK;
    chunk_buf *b = hay_realloc(&s->alloc, s->bufs, s->nbufs * sizeof *b,
                               nbufs * sizeof *b);
    RETURN_ERROR_IF(!b, HAY_ERR_NOMEM);
    memset(b + s->nbufs, 0, (nbufs - s->nbufs) * sizeof *b);
    s->bufs = b;
    s->nbufs = nbufs;
    return HAY_OK;
}

/* Sinks ------------------------------------------------------------------ */

typedef struct cb_sink {
    hay_match_fn fn;
    void *ctx;
} cb_sink;

static int emit_cb(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    cb_sink *c = sink;
    return c->fn(id, start, end, c->ctx);
}

static int emit_batch(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    return hay_batch_put(sink, id, start, end);
}

/* The emit function and sink that reach fn(ctx): straight into the batch
 * when fn is a batcher's, else through cb. */
static hay_emit_fn emit_to(hay_match_fn fn, void *ctx, cb_sink *cb, void **sink)
{
    hay_batcher *bt = hay_batcher_of(fn, ctx);
    cb->fn = fn;
    cb->ctx = ctx;
    *sink = bt ? (void *)bt : (void *)cb;
    return bt ? emit_batch : emit_cb;
}

static int emit_count(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)sink;
    return 0;
}

typedef struct buf_sink {
    chunk_buf *b;
    const hay_allocator *alloc;
} buf_sink;

static int emit_buf(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    (void)start;
    buf_sink *bs = sink;
    chunk_buf *b = bs->b;
    if (b->n == b->cap) {
        if (b->cap < CHUNK_MATCH_CAP) {
            size_t cap = b->cap ? b->cap * 2 : 256;
            match_rec *m = hay_realloc(bs->alloc, b->m, b->cap * sizeof *m,
                                       cap * sizeof *m);
            if (m) {
                b->m = m;
                b->cap = cap;
            }
        }
        if (b->n == b->cap) {
            /* Keep only matches ending strictly before this one: others
             * with the same end may follow and must stay together. */
            while (b->n > 0 && b->m[b->n - 1].end == end)
                b->n--;
            b->complete_end = end - 1;
            b->overflow = true;
            return 1;
        }
    }
    b->m[b->n].end = end;
    b->m[b->n].id = id;
    b->n++;
    return 0;
}

/* Chunks ----------------------------------------------------------------- */

/* Where a search for matches ending after `after` must start: the longest
 * pattern - 1 bytes earlier. */
static uint64_t lookback(const hay_patterns *set, uint64_t after)
{
    uint64_t back = set->max_len - 1;
    return after >= back ? after - back : 0;
}

/* Runs the engine over data[.., e), reporting matches ending in (after, e];
 * reported offsets are relative to data plus `base`. */
static int scan_range_at(const hay_patterns *set, const uint8_t *data,
                         uint64_t base, uint64_t after, uint64_t e,
                         hay_emit_fn emit, void *sink)
{
    if (e <= after)
        return 0;
    uint64_t lo = lookback(set, after);
    return set->engine->scan(set, set->state, data + lo, (size_t)(e - lo),
                             (size_t)(after - lo), base + lo, emit, sink);
}

/* Counts the matches ending in (after, e], with the engine's own counter
 * when it has one. */
static uint64_t count_range(const hay_patterns *set, const uint8_t *data,
                            uint64_t after, uint64_t e)
{
    if (e <= after)
        return 0;
    if (set->engine->count) {
        uint64_t lo = lookback(set, after);
        return set->engine->count(set, set->state, data + lo, (size_t)(e - lo),
                                  (size_t)(after - lo));
    }
    uint64_t c = 0;
    scan_range_at(set, data, 0, after, e, emit_count, &c);
    return c;
}

static int scan_range(const hay_patterns *set, const uint8_t *data,
                      uint64_t after, uint64_t e, hay_emit_fn emit, void *sink)
{
    return scan_range_at(set, data, 0, after, e, emit, sink);
}

static unsigned thread_count(const hay_scan_opts *o, uint64_t len)
{
    unsigned t = hay_thread_cap(o->threads);
    if (!o->chunk_size && t > 1 && len / MIN_PER_THREAD < t)
        t = (unsigned)(len / MIN_PER_THREAD > 1 ? len / MIN_PER_THREAD : 1);
#ifndef _OPENMP
    t = 1;
#endif
    return t ? t : 1;
}

/* Any chunk size is correct (each chunk looks back longest - 1 bytes); the
 * default is large enough that the look-back costs nothing. */
static size_t chunk_size(const hay_patterns *set, const hay_scan_opts *o)
{
    if (o->chunk_size)
        return o->chunk_size;
    size_t floor = set->max_len * 16;
    return DEFAULT_CHUNK < floor ? floor : DEFAULT_CHUNK;
}

/* Small inputs stay on one thread unless the caller set a chunk size
 * (which tests do to put chunk boundaries where they want them). */
static bool go_parallel(unsigned t, uint64_t len, const hay_scan_opts *o)
{
    return t > 1 && (o->chunk_size || len >= MIN_PARALLEL);
}

static void report_progress(const hay_scan_opts *o, uint64_t done,
                            uint64_t total)
{
    if (o->progress)
        o->progress(done, total, o->progress_ctx);
}

/* The caller's pass over the part [s, e) (hay_scan_opts.on_part). */
static void pass_part(const hay_scan_opts *o, const uint8_t *data, uint64_t s, uint64_t e)
{
    if (o->on_part)
        o->on_part(data, s, e, o->part_ctx);
}

/* Serial: one chunk, cut in pieces only to report progress, or into
 * chunks for the caller's pass over each. */
static hay_status serial_scan(const hay_patterns *set, const uint8_t *data,
                              uint64_t len, const hay_scan_opts *o,
                              hay_emit_fn emit, void *sink)
{
    uint64_t step = o->progress ? PROGRESS_STEP : len;
    if (o->on_part && step > chunk_size(set, o))
        step = chunk_size(set, o);
    if (step < set->max_len)
        step = set->max_len;
    for (uint64_t s = 0; s < len; s += step) {
        uint64_t e = len - s > step ? s + step : len;
        pass_part(o, data, s, e);
        if (scan_range(set, data, s, e, emit, sink))
            return HAY_STOPPED;
        report_progress(o, e, len);
    }
    return HAY_OK;
}

/* Chunk k (from `from` on) of a parallel count; the calling thread
 * reports progress. */
static uint64_t count_chunk(const hay_patterns *set, const uint8_t *data,
                            uint64_t from, uint64_t len, uint64_t piece,
                            uint64_t k, const hay_scan_opts *o, uint64_t *done)
{
    uint64_t s = from + k * piece;
    uint64_t e = len - s > piece ? s + piece : len;
    uint64_t c = count_range(set, data, s, e);
#ifdef _OPENMP
    uint64_t d;
#pragma omp atomic capture
    d = *done += e - s;
    if (omp_get_thread_num() == 0)
        report_progress(o, from + d, len);
#endif
    return c;
}

/* Chunk k of a parallel scan, into match buffer b, then the caller's
 * pass over it. */
static void fill_chunk(const hay_patterns *set, hay_scratch *scratch,
                       const uint8_t *data, uint64_t len, uint64_t piece,
                       uint64_t k, chunk_buf *b, const hay_scan_opts *o)
{
    uint64_t s = k * piece;
    uint64_t e = len - s > piece ? s + piece : len;
    buf_sink bs = { b, &scratch->alloc };
    scan_range(set, data, s, e, emit_buf, &bs);
    pass_part(o, data, s, e);
}

hay_status hay_chunk_count(const hay_patterns *set, hay_scratch *scratch,
                           const uint8_t *data, uint64_t len, uint64_t after,
                           const hay_scan_opts *o, uint64_t *count)
{
    (void)scratch;
    *count = 0;
    if (after >= len)
        return HAY_OK;
    uint64_t range = len - after;
    unsigned t = thread_count(o, range);
    if (!go_parallel(t, range, o)) {
        uint64_t step = o->progress ? PROGRESS_STEP : range;
        for (uint64_t s = after; s < len; s += step) {
            uint64_t e = len - s > step ? s + step : len;
            *count += count_range(set, data, s, e);
            report_progress(o, e, len);
        }
        return HAY_OK;
    }
    uint64_t piece = o->schedule == HAY_SCHEDULE_STATIC
                         ? (range + t - 1) / t
                         : chunk_size(set, o);
    if (piece == 0)
        piece = 1;
    if (piece > range)
        piece = range;   /* also keeps the arithmetic below from overflowing */
    uint64_t nchunks = range / piece + (range % piece != 0);
    uint64_t total = 0, done = 0;
    /* OpenMP takes the schedule kind only as a literal, hence two loops
     * around one body. */
#ifdef _OPENMP
    if (o->schedule == HAY_SCHEDULE_STATIC) {
#pragma omp parallel for num_threads(t) schedule(static, 1) reduction(+ : total)
        for (uint64_t k = 0; k < nchunks; k++)
            total += count_chunk(set, data, after, len, piece, k, o, &done);
    } else {
#pragma omp parallel for num_threads(t) schedule(dynamic, 1) reduction(+ : total)
        for (uint64_t k = 0; k < nchunks; k++)
            total += count_chunk(set, data, after, len, piece, k, o, &done);
    }
#endif
    report_progress(o, len, len);
    *count = total;
    return HAY_OK;
}

/* A chunk's buffer into a batch's array, with no call per match; false
 * when the caller's callback stopped. */
static bool replay_batch(const hay_patterns *set, const chunk_buf *b, hay_batcher *bt)
{
    for (size_t k = 0; k < b->n;) {
        size_t room;
        hay_match *d = hay_batch_room(bt, &room);
        if (!d)
            return false;
        size_t take = b->n - k < room ? b->n - k : room;
        for (size_t j = 0; j < take; j++) {
            const match_rec *r = &b->m[k + j];
            d[j] = (hay_match){ r->id, 0, r->end - set->len[r->id], r->end };
        }
        k += take;
        if (hay_batch_commit(bt, take))
            return false;
    }
    return true;
}

/* What replays the chunks' buffers, in order, on the calling thread. */
typedef struct replayer {
    const hay_patterns *set;
    const uint8_t *data;
    uint64_t len, piece;
    hay_batcher *bt;         /* a batched scan's, else NULL */
    hay_match_fn fn;
    void *ctx;
    hay_emit_fn emit;        /* an overflowed chunk's rescan */
    void *sink;
} replayer;

/* Chunk k's matches from buffer b to the callback, then the rest of the
 * chunk if the buffer overflowed; false when the callback stopped. */
static bool replay_chunk(const replayer *r, const chunk_buf *b, uint64_t k)
{
    if (r->bt && !replay_batch(r->set, b, r->bt))
        return false;
    for (size_t j = 0; j < b->n && !r->bt; j++) {
        uint32_t id = b->m[j].id;
        uint64_t end = b->m[j].end;
        if (r->fn(id, end - r->set->len[id], end, r->ctx))
            return false;
    }
    if (b->overflow) {
        uint64_t s = k * r->piece;
        uint64_t e = r->len - s > r->piece ? s + r->piece : r->len;
        if (scan_range(r->set, r->data, b->complete_end, e, r->emit, r->sink))
            return false;
    }
    return true;
}

static void clear_buf(chunk_buf *b)
{
    b->n = 0;
    b->overflow = false;
}

/* The static schedule: rounds of R chunks, filled by the threads, then
 * replayed. */
static hay_status scan_rounds(const replayer *r, hay_scratch *scratch, unsigned t,
                              size_t per_round, const hay_scan_opts *o)
{
    uint64_t len = r->len, piece = r->piece;
    uint64_t nchunks = len / piece + (len % piece != 0);
    for (uint64_t first = 0; first < nchunks; first += per_round) {
        uint64_t last = first + per_round < nchunks ? first + per_round : nchunks;
        long nr = (long)(last - first);
        for (long i = 0; i < nr; i++)
            clear_buf(&scratch->bufs[i]);
#ifdef _OPENMP
#pragma omp parallel for num_threads(t) schedule(static, 1)
        for (long i = 0; i < nr; i++)
            fill_chunk(r->set, scratch, r->data, len, piece, first + (uint64_t)i,
                       &scratch->bufs[i], o);
#else
        (void)t;
#endif
        for (long i = 0; i < nr; i++)
            if (!replay_chunk(r, &scratch->bufs[i], first + (uint64_t)i))
                return HAY_STOPPED;
        uint64_t done_bytes = last * piece < len ? last * piece : len;
        report_progress(o, done_bytes, len);
    }
    return HAY_OK;
}

/* The ring's shared state (see the top of the file). */
typedef struct ring {
    atomic_uint_fast64_t next;       /* the next chunk to take */
    atomic_uint_fast64_t replayed;   /* chunks [0, replayed) replayed */
    atomic_bool stop;                /* the callback stopped the scan */
    uint64_t nchunks;
    size_t nbufs;
    /* A thread with nothing to do sleeps here after a while (a callback
     * that blocks, on a pipe its reader does not empty, costs no core). */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    atomic_uint sleepers;
} ring;

/* Takes the next chunk to fill, if its buffer is free: true with *k set. */
static bool ring_take(ring *g, uint64_t *k)
{
    uint_fast64_t n = atomic_load_explicit(&g->next, memory_order_relaxed);
    while (n < g->nchunks &&
           n < atomic_load_explicit(&g->replayed, memory_order_acquire) + g->nbufs) {
        if (atomic_compare_exchange_weak_explicit(&g->next, &n, n + 1,
                                                  memory_order_acquire,
                                                  memory_order_relaxed)) {
            *k = n;
            return true;
        }
    }
    return false;
}

/* Waiting on another thread: a short spin, then the core given up a few
 * times (a walk may have other files to search on it), then sleeps of at
 * most a millisecond, cut short when a chunk is filled or replayed. */
static void ring_wait(ring *g, unsigned *spins)
{
    ++*spins;
    if (*spins < 64)
        return;
    if (*spins < 64 + 32) {
        sched_yield();
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&g->lock);
    atomic_fetch_add(&g->sleepers, 1);
    pthread_cond_timedwait(&g->changed, &g->lock, &until);
    atomic_fetch_sub(&g->sleepers, 1);
    pthread_mutex_unlock(&g->lock);
}

/* A chunk was filled or replayed, or the scan stopped: sleepers wake. */
static void ring_changed(ring *g)
{
    if (!atomic_load_explicit(&g->sleepers, memory_order_relaxed))
        return;
    pthread_mutex_lock(&g->lock);
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

static void ring_fill(const replayer *r, hay_scratch *scratch, ring *g, uint64_t k,
                      const hay_scan_opts *o)
{
    chunk_buf *b = &scratch->bufs[k % g->nbufs];
    clear_buf(b);
    fill_chunk(r->set, scratch, r->data, r->len, r->piece, k, b, o);
    atomic_store_explicit(&b->filled, k + 1, memory_order_release);
    ring_changed(g);
}

/* The calling thread: replays chunk after chunk as they are filled, and
 * fills one itself when the next is not ready. */
static hay_status ring_replay(const replayer *r, hay_scratch *scratch, ring *g,
                              const hay_scan_opts *o)
{
    uint64_t step = o->progress ? PROGRESS_STEP : UINT64_MAX, reported = 0;
    unsigned spins = 0;
    for (uint64_t k = 0; k < g->nchunks;) {
        chunk_buf *b = &scratch->bufs[k % g->nbufs];
        uint64_t fk;
        if (atomic_load_explicit(&b->filled, memory_order_acquire) == k + 1) {
            if (!replay_chunk(r, b, k)) {
                atomic_store(&g->stop, true);
                ring_changed(g);
                return HAY_STOPPED;
            }
            atomic_store_explicit(&g->replayed, ++k, memory_order_release);
            ring_changed(g);
            uint64_t done = k * r->piece < r->len ? k * r->piece : r->len;
            if (done - reported >= step || done == r->len) {
                report_progress(o, done, r->len);
                reported = done;
            }
            spins = 0;
        } else if (ring_take(g, &fk)) {
            ring_fill(r, scratch, g, fk, o);
        } else {
            ring_wait(g, &spins);
        }
    }
    return HAY_OK;
}

/* The other threads: fill chunks until none is left or the scan stopped. */
static void ring_work(const replayer *r, hay_scratch *scratch, ring *g,
                      const hay_scan_opts *o)
{
    unsigned spins = 0;
    while (!atomic_load_explicit(&g->stop, memory_order_relaxed)) {
        uint64_t k;
        if (ring_take(g, &k)) {
            ring_fill(r, scratch, g, k, o);
            spins = 0;
        } else if (atomic_load_explicit(&g->next, memory_order_relaxed) >= g->nchunks) {
            return;
        } else {
            ring_wait(g, &spins);
        }
    }
}

static hay_status scan_ring(const replayer *r, hay_scratch *scratch, unsigned t,
                            size_t nbufs, const hay_scan_opts *o)
{
    ring g = { .nchunks = r->len / r->piece + (r->len % r->piece != 0), .nbufs = nbufs };
    atomic_init(&g.next, 0);
    atomic_init(&g.replayed, 0);
    atomic_init(&g.stop, false);
    atomic_init(&g.sleepers, 0);
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.changed, NULL);
    for (size_t i = 0; i < nbufs; i++)
        atomic_store_explicit(&scratch->bufs[i].filled, 0, memory_order_relaxed);
    hay_status st = HAY_OK;
#ifdef _OPENMP
#pragma omp parallel num_threads(t)
    {
        if (omp_get_thread_num() == 0)
            st = ring_replay(r, scratch, &g, o);
        else
            ring_work(r, scratch, &g, o);
    }
#else
    (void)t;
    st = ring_replay(r, scratch, &g, o);
#endif
    pthread_cond_destroy(&g.changed);
    pthread_mutex_destroy(&g.lock);
    return st;
}

hay_status hay_chunk_scan(const hay_patterns *set, hay_scratch *scratch,
                          const uint8_t *data, uint64_t len,
                          const hay_scan_opts *o, hay_match_fn fn, void *ctx)
{
    cb_sink cb;
    void *sink;
    hay_emit_fn emit = emit_to(fn, ctx, &cb, &sink);
    unsigned t = thread_count(o, len);
    if (!go_parallel(t, len, o))
        return serial_scan(set, data, len, o, emit, sink);

    uint64_t piece = chunk_size(set, o);
    if (piece > len)
        piece = len;   /* also keeps the arithmetic below from overflowing */
    if (o->schedule == HAY_SCHEDULE_STATIC && len / t < piece * CHUNKS_PER_THREAD_ROUND)
        piece = (len + t - 1) / t;
    else if (o->schedule == HAY_SCHEDULE_STATIC)
        piece *= CHUNKS_PER_THREAD_ROUND;   /* one larger share per thread */
    if (piece == 0)
        piece = 1;
    size_t per_round = o->schedule == HAY_SCHEDULE_STATIC
                           ? t : (size_t)t * CHUNKS_PER_THREAD_ROUND;
    FORWARD_IF_ERROR(scratch_reserve(scratch, per_round));
    replayer r = { set, data, len, piece, hay_batcher_of(fn, ctx), fn, ctx, emit, sink };
    if (o->schedule == HAY_SCHEDULE_STATIC)
        return scan_rounds(&r, scratch, t, per_round, o);
    return scan_ring(&r, scratch, t, per_round, o);
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

/* One ask of the set's backend: every occurrence. */
static hay_status run_backend(const hay_patterns *set, hay_scratch *scratch,
                              const hay_run *r)
{
    const hay_backend_ops *b = set->backend;
    if (b->run)
        return b->run(set, scratch, r);
    RETURN_ERROR_IF(r->buffer, HAY_ERR_UNSUPPORTED);
    const hay_scan_opts *o = r->opts;
    switch (r->ask) {
    case HAY_ASK_COUNT:
        return b->count(set, scratch, r->host, r->len, o, r->count);
    case HAY_ASK_EACH:
        if (b->count_each)
            return b->count_each(set, scratch, r->host, r->len, o, r->counts);
        return b->scan(set, scratch, r->host, r->len, o, hay_count_each_cb, r->counts);
    case HAY_ASK_LIST:
        break;
    }
    return b->scan(set, scratch, r->host, r->len, o, r->fn, r->ctx);
}

static hay_status run_ask(const hay_patterns *set, hay_scratch *scratch,
                          const hay_run *r)
{
    if (set->mode == HAY_MATCH_ALL)
        return run_backend(set, scratch, r);
    /* The leftmost modes select from the list of every occurrence, on
     * every backend and for every ask. */
    hay_match_fn to = r->ask == HAY_ASK_LIST ? r->fn
                      : r->ask == HAY_ASK_EACH ? hay_count_each_cb : count_cb;
    void *ctx = r->ask == HAY_ASK_LIST ? r->ctx
                : r->ask == HAY_ASK_EACH ? (void *)r->counts : (void *)r->count;
    hay_leftmost *f;
    FORWARD_IF_ERROR(hay_leftmost_create(set, to, ctx, &f));
    hay_run lr = *r;
    lr.ask = HAY_ASK_LIST;
    lr.fn = hay_leftmost_match;
    lr.ctx = f;
    lr.count = NULL;
    lr.counts = NULL;
    hay_status s = run_backend(set, scratch, &lr);
    if (s == HAY_OK && hay_leftmost_flush(f))
        s = HAY_STOPPED;
    hay_leftmost_free(f);
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
    r->t0 = hay_now();
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

/* Streams ------------------------------------------------------------------ */

struct hay_stream {
    const hay_patterns *set;
    cb_sink cb;
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
    st->emit = emit_to(on_match, ctx, &st->cb, &st->sink);
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
    if (scan_range_at(set, d, st->pos, head, len, st->emit, st->sink))
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
