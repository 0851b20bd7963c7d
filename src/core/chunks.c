/*
 * chunks.c - the CPU chunk driver: threads, chunks and the ownership rule
 * over set->engine (the CPU backend's scan and counts, src/cpu/backend.c).
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
#include "scratch.h"

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

static int emit_cb(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    hay_cb_sink *c = sink;
    return c->fn(id, start, end, c->ctx);
}

static int emit_batch(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    return hay_batch_put(sink, id, start, end);
}

/* The emit function and sink that reach fn(ctx): straight into the batch
 * when fn is a batcher's, else through cb. */
hay_emit_fn hay_emit_to(hay_match_fn fn, void *ctx, hay_cb_sink *cb, void **sink)
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
int hay_scan_range_at(const hay_patterns *set, const uint8_t *data,
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
    hay_scan_range_at(set, data, 0, after, e, emit_count, &c);
    return c;
}

static int scan_range(const hay_patterns *set, const uint8_t *data,
                      uint64_t after, uint64_t e, hay_emit_fn emit, void *sink)
{
    return hay_scan_range_at(set, data, 0, after, e, emit, sink);
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

/* A parallel chunk of n bytes is done (*done: the bytes done so far, from
 * `from` on); the calling thread reports progress. */
static void chunk_done(const hay_scan_opts *o, uint64_t from, uint64_t len,
                       uint64_t n, uint64_t *done)
{
#ifdef _OPENMP
    uint64_t d;
#pragma omp atomic capture
    d = *done += n;
    if (omp_get_thread_num() == 0)
        report_progress(o, from + d, len);
#else
    (void)o; (void)from; (void)len; (void)n; (void)done;
#endif
}

/* Chunk k (from `from` on) of a parallel count. */
static uint64_t count_chunk(const hay_patterns *set, const uint8_t *data,
                            uint64_t from, uint64_t len, uint64_t piece,
                            uint64_t k, const hay_scan_opts *o, uint64_t *done)
{
    uint64_t s = from + k * piece;
    uint64_t e = len - s > piece ? s + piece : len;
    uint64_t c = count_range(set, data, s, e);
    chunk_done(o, from, len, e - s, done);
    return c;
}

static int emit_mark(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    (void)id; (void)start;
    hay_mark_set(sink, end);
    return 0;
}

/* Chunk k of parallel marks: its bytes' bits, in words of its own. */
static void mark_chunk(const hay_patterns *set, const uint8_t *data, uint64_t len,
                       uint64_t piece, uint64_t k, const hay_scan_opts *o,
                       uint64_t *marks, uint64_t *done)
{
    uint64_t s = k * piece;
    uint64_t e = len - s > piece ? s + piece : len;
    scan_range(set, data, s, e, emit_mark, marks);
    chunk_done(o, 0, len, e - s, done);
}

hay_status hay_chunk_marks(const hay_patterns *set, hay_scratch *scratch,
                           const uint8_t *data, uint64_t len,
                           const hay_scan_opts *o, uint64_t *marks)
{
    (void)scratch;
    unsigned t = thread_count(o, len);
    if (!go_parallel(t, len, o))
        return serial_scan(set, data, len, o, emit_mark, marks);
    uint64_t piece = o->schedule == HAY_SCHEDULE_STATIC ? (len + t - 1) / t
                                                        : chunk_size(set, o);
    if (piece > len)
        piece = len;
    /* A chunk owns the bits of its own bytes; starting every chunk at a
     * multiple of 64 bytes gives each its own words (no atomics). */
    piece = (piece + 63) & ~(uint64_t)63;
    uint64_t nchunks = len / piece + (len % piece != 0), done = 0;
#ifdef _OPENMP
    if (o->schedule == HAY_SCHEDULE_STATIC) {
#pragma omp parallel for num_threads(t) schedule(static, 1)
        for (uint64_t k = 0; k < nchunks; k++)
            mark_chunk(set, data, len, piece, k, o, marks, &done);
    } else {
#pragma omp parallel for num_threads(t) schedule(dynamic, 1)
        for (uint64_t k = 0; k < nchunks; k++)
            mark_chunk(set, data, len, piece, k, o, marks, &done);
    }
#else
    for (uint64_t k = 0; k < nchunks; k++)
        mark_chunk(set, data, len, piece, k, o, marks, &done);
#endif
    report_progress(o, len, len);
    return HAY_OK;
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
    hay_cb_sink cb;
    void *sink;
    hay_emit_fn emit = hay_emit_to(fn, ctx, &cb, &sink);
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
    /* The match buffers: a round of one chunk a thread (static), or the
     * ring of CHUNKS_PER_THREAD_ROUND a thread (dynamic). */
    size_t nbufs = o->schedule == HAY_SCHEDULE_STATIC
                       ? t : (size_t)t * CHUNKS_PER_THREAD_ROUND;
    FORWARD_IF_ERROR(scratch_reserve(scratch, nbufs));
    replayer r = { set, data, len, piece, hay_batcher_of(fn, ctx), fn, ctx, emit, sink };
    if (o->schedule == HAY_SCHEDULE_STATIC)
        return scan_rounds(&r, scratch, t, nbufs, o);
    return scan_ring(&r, scratch, t, nbufs, o);
}
