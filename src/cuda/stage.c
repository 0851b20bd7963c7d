/*
 * stage.c - copying host input into the pinned staging buffers: on OpenMP
 * threads for a scan of its own, or on a pool of sleeping threads for a
 * split's GPU side (driver.h).
 */
#include "driver.h"

#include <pthread.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

void hay_cuda_stage_copy(uint8_t *dst, const uint8_t *src, uint64_t n,
                         unsigned threads)
{
    const uint64_t block = hay_cuda_tuning_default.stage_block;
    long nb = (long)((n + block - 1) / block);
#ifdef _OPENMP
    int t = (int)(nb < (long)threads ? nb : (long)threads);
    if (t > (int)hay_cpu_count())
        t = (int)hay_cpu_count();
#pragma omp parallel for num_threads(t > 0 ? t : 1) schedule(static) if (nb > 1)
#endif
    for (long b = 0; b < nb; b++) {
        uint64_t o = (uint64_t)b * block;
        memcpy(dst + o, src + o, n - o < block ? n - o : block);
    }
}

/* The same for a split's GPU side, on a pool of plain threads made once
 * per scan that sleep between pieces: an OpenMP team of its own would spin
 * on the cores the split's CPU threads are searching with, and threads
 * made for each piece cost the driving thread a fork and a join per
 * piece (the GPU side of a split ran at 31 GB/s against 44 alone with the
 * same 12 copy threads, docs/PERF.md). */
typedef struct stage_part {
    uint8_t *dst;
    const uint8_t *src;
    uint64_t n;
} stage_part;

enum { POOL_MAX = 64 };

struct hay_copy_pool {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned n;                    /* helper threads started */
    pthread_t th[POOL_MAX];
    stage_part part[POOL_MAX + 1]; /* part 0 is the caller's */
    unsigned parts;                /* of the current job */
    uint64_t gen;                  /* job number */
    unsigned pending;              /* helpers busy with the current job */
    bool quit;
};

typedef struct pool_arg {
    hay_copy_pool *p;
    unsigned i;
} pool_arg;

static void *pool_main(void *arg)
{
    hay_copy_pool *p = ((pool_arg *)arg)->p;
    unsigned i = ((pool_arg *)arg)->i;
    free(arg);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->go, &p->lock);
        if (p->quit)
            break;
        seen = p->gen;
        stage_part part = p->part[i + 1];
        bool mine = i + 1 < p->parts;
        pthread_mutex_unlock(&p->lock);
        if (mine)
            memcpy(part.dst, part.src, part.n);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

hay_copy_pool *hay_copy_pool_start(unsigned threads)
{
    if (threads < 2)
        return NULL;
    hay_copy_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    unsigned want = threads - 1 < POOL_MAX ? threads - 1 : POOL_MAX;
    while (p->n < want) {
        pool_arg *a = malloc(sizeof *a);
        if (!a)
            break;
        a->p = p;
        a->i = p->n;
        if (pthread_create(&p->th[p->n], NULL, pool_main, a) != 0) {
            free(a);
            break;
        }
        p->n++;
    }
    return p;
}

void hay_copy_pool_stop(hay_copy_pool *p)
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
    free(p);
}

void hay_copy_pool_copy(hay_copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n)
{
    const uint64_t block = hay_cuda_tuning_default.stage_block;
    uint64_t t = p ? p->n + 1 : 1;
    if (t > n / block)
        t = n / block ? n / block : 1;
    if (t < 2) {
        memcpy(dst, src, n);
        return;
    }
    uint64_t share = (n + t - 1) / t;
    pthread_mutex_lock(&p->lock);
    for (uint64_t k = 0; k < t; k++) {
        uint64_t o = k * share < n ? k * share : n;
        p->part[k].dst = dst + o;
        p->part[k].src = src + o;
        p->part[k].n = n - o < share ? n - o : share;
    }
    p->parts = (unsigned)t;
    p->pending = p->n;   /* every helper wakes; those past parts copy nothing */
    p->gen++;
    pthread_cond_broadcast(&p->go);
    stage_part mine = p->part[0];
    pthread_mutex_unlock(&p->lock);
    memcpy(mine.dst, mine.src, mine.n);
    pthread_mutex_lock(&p->lock);
    while (p->pending)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
