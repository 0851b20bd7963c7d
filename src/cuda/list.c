/*
 * list.c - a piece's sorted match keys into the caller's matches (list.h).
 *
 * The pool: helper threads that sleep between rounds.  A round is one
 * window of WINDOW keys per helper, converted into one of two round
 * buffers; while the calling thread hands the slices of round k to the
 * caller's batch callback, the helpers convert round k + 1 into the other
 * buffer.  So the calling thread does no work per match, and the records
 * it hands over were written moments before (the two buffers, 2 x helpers
 * x WINDOW x 24 bytes, stay in the caches).  Memory is bounded whatever
 * the number of matches.
 *
 * One helper (HELPERS_MAX): on the H100 machine's 16-vCPU host, snort's
 * 286M matches with the benchmark's checksum callback took 0.72 s with one
 * helper, 0.83 s on the calling thread alone, 0.85 s with three helpers
 * and 0.94 s with seven (docs/notes/2026-11-27-gpu-list.md): the caller's
 * callback, which reads every record, is the limit, and more converting
 * threads only compete with it for the memory system.
 *
 * hay_scan_list (fill_deliver) has no callback to wait for: a piece's keys
 * go straight to their index in the caller's arrays, cut into parts for the
 * calling thread and threads - 1 helpers.  The conversion is bound by the
 * host's memory (28 bytes a match: the key read, the id, start and end
 * written); on the H100 machine's host 16 threads moved 69-71 GB/s with
 * plain stores and 51-55 GB/s with non-temporal ones, so plain stores it
 * is (docs/notes/2026-11-26-list-arrays.md).
 */
#include "list.h"

#include "../core/fill.h"
#include "../core/pool.h"
#include "cuda_engine.h"

#include <stdlib.h>

enum {
    HELPERS_MAX = 1,          /* helper threads per pool (measured, above) */
    WINDOW = 32768,           /* keys per helper and round */
    SERIAL_BELOW = 2 * WINDOW,/* shorter lists: the calling thread converts */
    FILL_PART_MIN = 16384     /* hay_scan_list: keys per thread, at least */
};

/* hay_scan_list (src/core/fill.h): keys[0, n) into the caller's arrays
 * (ids, starts, ends: pointers to the first entry the job writes), in
 * parts: part i of `parts` by helper i, the last by the calling thread when
 * there are more parts than helpers. */
typedef struct fill_job {
    const unsigned long long *keys;
    uint64_t n, base;
    const size_t *plen;
    uint32_t *ids;
    uint64_t *starts, *ends;
    unsigned parts;
} fill_job;

/* One round: keys[0, n) into out, helper i taking window i. */
typedef struct round_job {
    const unsigned long long *keys;
    uint64_t n, lo;
    const size_t *plen;
    hay_match *out;
} round_job;

struct hay_list_pool {
    hay_pool *threads;
    hay_match *buf[2];            /* helpers * WINDOW records each */
    round_job job;                /* the round the helpers work on */
    hay_pool *fill;               /* hay_scan_list: threads - 1 helpers */
    fill_job fjob;
};

static void convert(const unsigned long long *keys, uint64_t n, uint64_t lo,
                    const size_t *plen, hay_match *out)
{
    for (uint64_t i = 0; i < n; i++) {
        unsigned long long m = keys[i];
        uint64_t end = lo + HAY_CUDA_MATCH_END(m);
        uint32_t id = HAY_CUDA_MATCH_ID(m);
        out[i] = (hay_match){ id, 0, end - plen[id], end };
    }
}

static void convert_window(void *job, unsigned i)
{
    const round_job *j = job;
    uint64_t at = (uint64_t)i * WINDOW;
    if (at < j->n)
        convert(j->keys + at, j->n - at < WINDOW ? j->n - at : WINDOW, j->lo, j->plen,
                j->out + at);
}

hay_list_pool *hay_list_pool_start(unsigned threads)
{
    if (threads < 2)
        return NULL;
    hay_list_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = hay_pool_start(threads - 1 < HELPERS_MAX ? threads - 1 : HELPERS_MAX);
    size_t n = hay_pool_size(p->threads);
    for (int b = 0; b < 2 && n; b++)
        p->buf[b] = malloc(n * WINDOW * sizeof(hay_match));
    if (!p->buf[0] || !p->buf[1]) {
        hay_list_pool_stop(p);
        return NULL;
    }
    return p;
}

void hay_list_pool_stop(hay_list_pool *p)
{
    if (!p)
        return;
    hay_pool_stop(p->threads);
    hay_pool_stop(p->fill);
    free(p->buf[0]);
    free(p->buf[1]);
    free(p);
}

unsigned hay_list_pool_threads(const hay_list_pool *p)
{
    return p ? hay_pool_size(p->threads) + hay_pool_size(p->fill) : 0;
}

static void post(hay_list_pool *p, const round_job *j)
{
    p->job = *j;
    hay_pool_post(p->threads, convert_window, &p->job);
}

/* The calling thread writes the records into the batch itself. */
static int batch_serial(hay_list_sink *k, hay_batcher *bt, const unsigned long long *keys,
                        uint64_t n, uint64_t lo)
{
    for (uint64_t at = 0; at < n;) {
        size_t room;
        hay_match *d = hay_batch_room(bt, &room);
        if (!d)
            return 1;
        size_t take = n - at < room ? (size_t)(n - at) : room;
        convert(keys + at, take, lo, k->plen, d);
        at += take;
        k->count += take;
        if (hay_batch_commit(bt, take))
            return 1;
    }
    return 0;
}

/* Rounds converted by the pool, handed over in slices. */
static int batch_pool(hay_list_sink *k, hay_batcher *bt, const unsigned long long *keys,
                      uint64_t n, uint64_t lo)
{
    hay_list_pool *p = k->pool;
    const uint64_t round = (uint64_t)hay_pool_size(p->threads) * WINDOW;
    round_job j = { keys, n < round ? n : round, lo, k->plen, p->buf[0] };
    post(p, &j);
    int which = 0;
    for (uint64_t at = 0; at < n; at += round) {
        hay_pool_wait(p->threads);
        uint64_t m = n - at < round ? n - at : round;
        if (at + round < n) {
            uint64_t next = at + round;
            j = (round_job){ keys + next, n - next < round ? n - next : round, lo, k->plen,
                             p->buf[which ^ 1] };
            post(p, &j);
        }
        uint64_t before = hay_batch_puts(bt);
        int stop = hay_batch_give(bt, p->buf[which], (size_t)m);
        k->count += hay_batch_puts(bt) - before;
        if (stop) {
            hay_pool_wait(p->threads);   /* the helpers read keys and write buf until done */
            return 1;
        }
        which ^= 1;
    }
    return 0;
}

/* ---- hay_scan_list: straight into the caller's arrays ---------------------- */

static void fill_range(const fill_job *j, uint64_t a, uint64_t b)
{
    const unsigned long long *keys = j->keys;
    const size_t *plen = j->plen;
    uint64_t base = j->base;
    uint32_t *ids = j->ids;
    uint64_t *starts = j->starts, *ends = j->ends;
    if (starts && ends) {
        for (uint64_t i = a; i < b; i++) {
            unsigned long long m = keys[i];
            uint64_t end = base + HAY_CUDA_MATCH_END(m);
            uint32_t id = HAY_CUDA_MATCH_ID(m);
            ids[i] = id;
            starts[i] = end - plen[id];
            ends[i] = end;
        }
        return;
    }
    for (uint64_t i = a; i < b; i++) {
        unsigned long long m = keys[i];
        uint64_t end = base + HAY_CUDA_MATCH_END(m);
        uint32_t id = HAY_CUDA_MATCH_ID(m);
        ids[i] = id;
        if (starts)
            starts[i] = end - plen[id];
        if (ends)
            ends[i] = end;
    }
}

/* Part i of the job's parts (cut at multiples of 64 keys: no two threads
 * write one cache line of ids). */
static void fill_part(void *job, unsigned i)
{
    const fill_job *j = job;
    uint64_t per = (j->n / j->parts + 63) & ~(uint64_t)63;
    uint64_t a = (uint64_t)i * per, b = a + per;
    if (b > j->n || i + 1 == j->parts)
        b = j->n;
    if (a < b)
        fill_range(j, a, b);
}

/* The first of keys[0, n) with key >= x (keys sorted). */
static uint64_t lower_bound(const unsigned long long *keys, uint64_t n, unsigned long long x)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first key whose end (local) is at least e. */
static uint64_t first_end_at(const unsigned long long *keys, uint64_t n, uint64_t e)
{
    return lower_bound(keys, n, (unsigned long long)HAY_CUDA_MATCH(e, 0));
}

/* keys[0, n) converted into the arrays at f->n: by the pool's fill
 * helpers and the calling thread when long, else by the calling thread. */
static void fill_convert(hay_list_sink *k, hay_fill *f, const unsigned long long *keys,
                         uint64_t n, uint64_t base)
{
    hay_match_list *l = f->list;
    fill_job j = { keys, n, base, k->plen, l->ids + f->n, l->starts ? l->starts + f->n : NULL,
                   l->ends ? l->ends + f->n : NULL, 1 };
    if (n >= 2 * FILL_PART_MIN && k->threads > 1) {   /* the helpers, made once */
        if (!k->pool)
            k->pool = calloc(1, sizeof *k->pool);
        if (k->pool && !k->pool->fill)
            k->pool->fill = hay_pool_start(k->threads - 1);
        k->threads = 0;
    }
    hay_pool *p = k->pool ? k->pool->fill : NULL;
    unsigned helpers = hay_pool_size(p);
    if (helpers && n >= 2 * FILL_PART_MIN) {
        uint64_t parts = n / FILL_PART_MIN;
        j.parts = parts < helpers + 1 ? (unsigned)parts : helpers + 1;
        /* Every helper runs the job; those past parts - 1 find nothing. */
        k->pool->fjob = j;
        hay_pool_post(p, fill_part, &k->pool->fjob);
        if (j.parts > helpers)
            fill_part(&k->pool->fjob, j.parts - 1);
        hay_pool_wait(p);
        return;
    }
    fill_range(&j, 0, n);
}

/* Keys into device arrays that the host cannot write (a short list, or
 * a list whose device conversion could not be had, list_dev.h): as
 * records through fill.c, which copies them in through its bounce. */
static int fill_records(hay_list_sink *k, hay_fill *f, hay_batcher *bt,
                        const unsigned long long *keys, uint64_t n, uint64_t lo)
{
    hay_match m[512];
    for (uint64_t at = 0; at < n;) {
        size_t take = n - at < 512 ? (size_t)(n - at) : 512;
        convert(keys + at, take, lo, k->plen, m);
        at += take;
        size_t before = f->n;
        int stop = hay_fill_batch(m, take, f);
        k->count += f->n > before ? f->n - before : 0;
        if (stop) {
            bt->stopped = true;
            return 1;
        }
    }
    return 0;
}

/* A piece's sorted keys into hay_scan_list's arrays: the ends after
 * f->from, as many as fit without splitting an end. */
static int fill_deliver(hay_list_sink *k, hay_fill *f, hay_batcher *bt,
                        const unsigned long long *keys, uint64_t n, uint64_t lo)
{
    if (hay_batch_flush(bt))   /* matches put before (a host run) go first */
        return 1;
    if (f->mem == HAY_MEM_DEVICE)
        return fill_records(k, f, bt, keys, n, lo);
    uint64_t base = lo + f->base;
    if (n && base + HAY_CUDA_MATCH_END(keys[0]) <= f->from) {
        uint64_t skip = first_end_at(keys, n, f->from - base + 1);
        keys += skip;
        n -= skip;
    }
    if (n == 0)
        return 0;
    size_t room = f->list->cap - f->n;
    uint64_t take = n, over = 0;
    if (n > room) {
        over = HAY_CUDA_MATCH_END(keys[room]);
        take = first_end_at(keys, room, over);   /* never split an end */
    }
    if (take) {
        fill_convert(k, f, keys, take, base);
        uint64_t last = HAY_CUDA_MATCH_END(keys[take - 1]);
        hay_fill_commit(f, (size_t)take, (size_t)first_end_at(keys, take, last), base + last);
        k->count += take;
    }
    if (n > room) {
        bt->stopped = true;
        return hay_fill_stop(f, base + over);
    }
    return 0;
}

uint64_t hay_list_room(const hay_list_sink *k)
{
    const hay_fill *f = hay_fill_of(k->fn, k->ctx);
    return f ? f->list->cap - f->n : UINT64_MAX;
}

int hay_list_deliver(hay_list_sink *k, const unsigned long long *keys, uint64_t n,
                     uint64_t lo)
{
    hay_batcher *bt = hay_batcher_of(k->fn, k->ctx);
    hay_fill *f = hay_fill_of(k->fn, k->ctx);
    if (f)
        return fill_deliver(k, f, bt, keys, n, lo);
    if (bt && n >= SERIAL_BELOW && !k->pool && k->threads) {
        k->pool = hay_list_pool_start(k->threads);
        k->threads = 0;   /* one try */
    }
    if (bt)
        return k->pool && n >= SERIAL_BELOW ? batch_pool(k, bt, keys, n, lo)
                                            : batch_serial(k, bt, keys, n, lo);
    const size_t *plen = k->plen;
    for (uint64_t i = 0; i < n; i++) {
        unsigned long long m = keys[i];
        uint64_t end = lo + HAY_CUDA_MATCH_END(m);
        uint32_t id = HAY_CUDA_MATCH_ID(m);
        k->count++;
        if (k->fn(id, end - plen[id], end, k->ctx))
            return 1;
    }
    return 0;
}
