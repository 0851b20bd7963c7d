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
 */
#include "list.h"

#include "../core/pool.h"
#include "cuda_engine.h"

#include <stdlib.h>

enum {
    HELPERS_MAX = 1,          /* helper threads per pool (measured, above) */
    WINDOW = 32768,           /* keys per helper and round */
    SERIAL_BELOW = 2 * WINDOW /* shorter lists: the calling thread converts */
};

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
    free(p->buf[0]);
    free(p->buf[1]);
    free(p);
}

unsigned hay_list_pool_threads(const hay_list_pool *p)
{
    return p ? hay_pool_size(p->threads) : 0;
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

int hay_list_deliver(hay_list_sink *k, const unsigned long long *keys, uint64_t n,
                     uint64_t lo)
{
    hay_batcher *bt = hay_batcher_of(k->fn, k->ctx);
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
