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

#include "cuda_engine.h"

#include <pthread.h>
#include <stdlib.h>

enum {
    HELPERS_MAX = 1,          /* helper threads per pool (measured, above) */
    WINDOW = 32768,           /* keys per helper and round */
    SERIAL_BELOW = 2 * WINDOW /* shorter lists: the calling thread converts */
};

typedef struct round_job {
    const unsigned long long *keys;
    uint64_t n, lo;
    const size_t *plen;
    hay_match *out;
} round_job;

typedef struct helper_arg {
    struct hay_list_pool *p;
    unsigned i;
} helper_arg;

struct hay_list_pool {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned n;                   /* helpers started */
    pthread_t th[HELPERS_MAX];
    helper_arg arg[HELPERS_MAX];
    hay_match *buf[2];            /* n * WINDOW records each */
    round_job job;
    uint64_t gen;                 /* rounds posted */
    unsigned pending;             /* helpers still on the current round */
    bool quit;
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

static void *helper_main(void *arg)
{
    hay_list_pool *p = ((helper_arg *)arg)->p;
    uint64_t at = (uint64_t)((helper_arg *)arg)->i * WINDOW, seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->go, &p->lock);
        if (p->quit)
            break;
        seen = p->gen;
        round_job j = p->job;
        pthread_mutex_unlock(&p->lock);
        if (at < j.n)
            convert(j.keys + at, j.n - at < WINDOW ? j.n - at : WINDOW, j.lo, j.plen,
                    j.out + at);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

hay_list_pool *hay_list_pool_start(unsigned threads)
{
    if (threads < 2)
        return NULL;
    hay_list_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    unsigned want = threads - 1 < HELPERS_MAX ? threads - 1 : HELPERS_MAX;
    for (int b = 0; b < 2; b++)
        p->buf[b] = malloc((size_t)want * WINDOW * sizeof(hay_match));
    if (!p->buf[0] || !p->buf[1]) {
        free(p->buf[0]);
        free(p->buf[1]);
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    while (p->n < want) {
        p->arg[p->n] = (helper_arg){ p, p->n };
        if (pthread_create(&p->th[p->n], NULL, helper_main, &p->arg[p->n]) != 0)
            break;
        p->n++;
    }
    if (p->n == 0) {
        hay_list_pool_stop(p);
        return NULL;
    }
    return p;
}

void hay_list_pool_stop(hay_list_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->lock);
    free(p->buf[0]);
    free(p->buf[1]);
    free(p);
}

unsigned hay_list_pool_threads(const hay_list_pool *p)
{
    return p ? p->n : 0;
}

static void post(hay_list_pool *p, const round_job *j)
{
    pthread_mutex_lock(&p->lock);
    p->job = *j;
    p->pending = p->n;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
}

static void await(hay_list_pool *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->pending)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
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
    const uint64_t round = (uint64_t)p->n * WINDOW;
    round_job j = { keys, n < round ? n : round, lo, k->plen, p->buf[0] };
    post(p, &j);
    int which = 0;
    for (uint64_t at = 0; at < n; at += round) {
        await(p);
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
            await(p);   /* the helpers read keys and write buf until done */
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
