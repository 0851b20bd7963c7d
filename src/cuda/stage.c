/*
 * stage.c - copying host input into the pinned staging buffers: on OpenMP
 * threads for a count of its own, or on a pool of sleeping threads for a
 * split's GPU side and for a list (driver.h).
 */
#include "driver.h"

#include "../core/pool.h"

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
 * per scan that sleep between pieces (core/pool.h): an OpenMP team of its
 * own would spin on the cores the split's CPU threads are searching with,
 * and threads made for each piece cost the driving thread a fork and a
 * join per piece (the GPU side of a split ran at 31 GB/s against 44 alone
 * with the same 12 copy threads, docs/PERF.md).  A list's staging copies
 * run there too, beside the calling thread's delivery (pipeline.c). */
typedef struct stage_part {
    uint8_t *dst;
    const uint8_t *src;
    uint64_t n;
} stage_part;

enum { PARTS_MAX = 65 };

struct hay_copy_pool {
    hay_pool *threads;
    stage_part part[PARTS_MAX];   /* part i + 1 is helper i's, part 0 the caller's */
    unsigned parts;               /* of the current copy */
};

static void copy_part(void *job, unsigned i)
{
    hay_copy_pool *p = job;
    if (i + 1 < p->parts)
        memcpy(p->part[i + 1].dst, p->part[i + 1].src, p->part[i + 1].n);
}

hay_copy_pool *hay_copy_pool_start(unsigned threads)
{
    if (threads < 2)
        return NULL;
    hay_copy_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = hay_pool_start(threads - 1 < PARTS_MAX - 1 ? threads - 1 : PARTS_MAX - 1);
    return p;
}

void hay_copy_pool_stop(hay_copy_pool *p)
{
    if (!p)
        return;
    hay_pool_stop(p->threads);
    free(p);
}

/* Cuts [src, src + n) into t parts for the helpers and, with caller, the
 * calling thread (part 0, returned; else part 0 is empty) and starts the
 * helpers on theirs. */
static stage_part post_parts(hay_copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n,
                             uint64_t t, bool caller)
{
    uint64_t share = (n + t - 1) / t;
    p->part[0] = (stage_part){ dst, src, 0 };
    for (uint64_t k = 0; k < t; k++) {
        uint64_t o = k * share < n ? k * share : n;
        p->part[k + !caller] = (stage_part){ dst + o, src + o, n - o < share ? n - o : share };
    }
    p->parts = (unsigned)(t + !caller);
    hay_pool_post(p->threads, copy_part, p);
    return p->part[0];
}

void hay_copy_pool_wait(hay_copy_pool *p)
{
    if (p->threads)
        hay_pool_wait(p->threads);
}

void hay_copy_pool_begin(hay_copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n)
{
    if (!p->threads) {
        memcpy(dst, src, n);
        return;
    }
    post_parts(p, dst, src, n, hay_pool_size(p->threads), false);
}

void hay_copy_pool_copy(hay_copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n)
{
    const uint64_t block = hay_cuda_tuning_default.stage_block;
    uint64_t t = p ? hay_pool_size(p->threads) + 1 : 1;
    if (t > n / block)
        t = n / block ? n / block : 1;
    if (t < 2) {
        memcpy(dst, src, n);
        return;
    }
    stage_part mine = post_parts(p, dst, src, n, t, true);
    memcpy(mine.dst, mine.src, mine.n);
    hay_copy_pool_wait(p);
}
