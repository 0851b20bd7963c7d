/*
 * hostreg.c - registering a host input with the CUDA driver ahead of the
 * pipeline's copies: see hostreg.h.
 */
#include "hostreg.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

bool hay_hostreg_eligible(const void *p, uint64_t n)
{
    if (!p || n == 0)
        return false;
    uintptr_t pg = page_size();
    uintptr_t cur = (uintptr_t)p & ~(pg - 1);
    uintptr_t end = ((uintptr_t)p + n + pg - 1) & ~(pg - 1);
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[512];
    bool ok = true;
    while (ok && cur < end && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
            continue;
        if (hi <= cur)
            continue;
        if (lo > cur) {   /* a hole */
            ok = false;
            break;
        }
        ok = perms[0] == 'r' && perms[3] == 's';
        cur = hi;
    }
    fclose(f);
    return ok && cur >= end;
}

#ifdef HAY_HAVE_CUDA
#include <cuda_runtime_api.h>

enum { BLOCK_PENDING, BLOCK_BUSY, BLOCK_REGISTERED, BLOCK_FAILED, BLOCK_RELEASED };

#define MAX_REG_THREADS 8

struct hay_hostreg {
    int dev;
    const uint8_t *data;
    uint64_t len;
    uintptr_t base, top;     /* page-aligned bounds of the input */
    uint64_t block;
    size_t n;                /* blocks */
    bool descending;
    unsigned ahead, nthreads;
    unsigned char *state;    /* per block, BLOCK_* */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t th[MAX_REG_THREADS];
    size_t claimed;          /* order positions taken to register: [0, claimed) */
    size_t want;             /* the furthest order position asked for */
    size_t freed;            /* order positions taken to unregister: [0, freed) */
    uint64_t mark;
    bool marked, quit;
    hay_hostreg_stats st;
};

bool hay_hostreg_supported(int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrHostRegisterSupported, dev) != cudaSuccess ||
        !v) {
        cudaGetLastError();
        return false;
    }
    v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrHostRegisterReadOnlySupported, dev) !=
        cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return v != 0;
}

/* Block k (by address) at order position j; the same map takes a block
 * back to its position. */
static size_t block_at(const hay_hostreg *r, size_t j)
{
    return r->descending ? r->n - 1 - j : j;
}

static uintptr_t block_lo(const hay_hostreg *r, size_t k)
{
    return r->base + (uintptr_t)k * r->block;
}

static uintptr_t block_hi(const hay_hostreg *r, size_t k)
{
    uintptr_t hi = r->base + (uintptr_t)(k + 1) * r->block;
    return hi < r->top ? hi : r->top;
}

/* The block holding offset x of the input. */
static size_t block_of(const hay_hostreg *r, uint64_t x)
{
    return (size_t)(((uintptr_t)r->data + x - r->base) / r->block);
}

/* Whether the pipeline is finished with block k (lock held). */
static bool block_done(const hay_hostreg *r, size_t k)
{
    if (r->quit)
        return true;   /* no copy is in flight any more */
    if (!r->marked)
        return false;
    uintptr_t m = (uintptr_t)r->data + r->mark;
    return r->descending ? block_lo(r, k) >= m : block_hi(r, k) <= m;
}

/* Each thread takes, under the lock, the next block to register (at most
 * `ahead` past the furthest asked for) or else the next one to unregister
 * (in order, once tried and finished with), and does it unlocked. */
static void *reg_main(void *arg)
{
    hay_hostreg *r = arg;
    cudaSetDevice(r->dev);
    pthread_mutex_lock(&r->lock);
    for (;;) {
        if (!r->quit && r->claimed < r->n && r->claimed <= r->want + r->ahead) {
            size_t k = block_at(r, r->claimed++);
            r->state[k] = BLOCK_BUSY;
            pthread_mutex_unlock(&r->lock);
            double t0 = hay_now();
            cudaError_t e = cudaHostRegister((void *)block_lo(r, k),
                                             block_hi(r, k) - block_lo(r, k),
                                             cudaHostRegisterReadOnly);
            double t = hay_now() - t0;
            if (e != cudaSuccess)
                cudaGetLastError();
            pthread_mutex_lock(&r->lock);
            r->st.register_seconds += t;
            r->st.blocks++;
            if (e != cudaSuccess)
                r->st.failed++;
            r->state[k] = e == cudaSuccess ? BLOCK_REGISTERED : BLOCK_FAILED;
            pthread_cond_broadcast(&r->cv);
            continue;
        }
        if (r->freed < r->claimed) {
            size_t k = block_at(r, r->freed);
            if (r->state[k] != BLOCK_BUSY && block_done(r, k)) {
                r->freed++;
                if (r->state[k] == BLOCK_REGISTERED) {
                    r->state[k] = BLOCK_RELEASED;
                    pthread_mutex_unlock(&r->lock);
                    double t0 = hay_now();
                    if (cudaHostUnregister((void *)block_lo(r, k)) != cudaSuccess)
                        cudaGetLastError();
                    double t = hay_now() - t0;
                    pthread_mutex_lock(&r->lock);
                    r->st.unregister_seconds += t;
                }
                continue;
            }
        }
        /* Quitting: done once every block taken is released (a block
         * still being registered is released by its thread's next turn). */
        if (r->quit && (r->freed == r->claimed || r->state[block_at(r, r->freed)] == BLOCK_BUSY))
            break;
        pthread_cond_wait(&r->cv, &r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void hostreg_free(hay_hostreg *r)
{
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->lock);
    free(r->state);
    free(r);
}

hay_status hay_hostreg_start(int dev, const uint8_t *data, uint64_t len,
                             uint64_t block, unsigned ahead, unsigned threads,
                             bool descending, hay_hostreg **out)
{
    *out = NULL;
    RETURN_ERROR_IF(!data || len == 0, HAY_ERR_INVALID);
    uintptr_t pg = page_size();
    hay_hostreg *r = calloc(1, sizeof *r);
    RETURN_ERROR_IF(!r, HAY_ERR_NOMEM);
    r->dev = dev;
    r->data = data;
    r->len = len;
    r->base = (uintptr_t)data & ~(pg - 1);
    r->top = ((uintptr_t)data + len + pg - 1) & ~(pg - 1);
    r->block = block < pg ? pg : (block + pg - 1) / pg * pg;
    r->n = (size_t)((r->top - r->base + r->block - 1) / r->block);
    r->descending = descending;
    r->nthreads = threads < 1 ? 1 : threads > MAX_REG_THREADS ? MAX_REG_THREADS : threads;
    r->ahead = ahead > r->nthreads ? ahead : r->nthreads;
    r->state = calloc(r->n, 1);
    bool locks = false;
    if (r->state && pthread_mutex_init(&r->lock, NULL) == 0) {
        if (pthread_cond_init(&r->cv, NULL) == 0)
            locks = true;
        else
            pthread_mutex_destroy(&r->lock);
    }
    if (!locks) {
        free(r->state);
        free(r);
        return HAY_ERR_NOMEM;
    }
    unsigned started = 0;
    while (started < r->nthreads && pthread_create(&r->th[started], NULL, reg_main, r) == 0)
        started++;
    if (started == 0) {
        hostreg_free(r);
        return HAY_ERR_NOMEM;
    }
    r->nthreads = started;
    *out = r;
    return HAY_OK;
}

bool hay_hostreg_wait(hay_hostreg *r, uint64_t a, uint64_t b)
{
    if (b <= a)
        return true;
    size_t k0 = block_of(r, a), k1 = block_of(r, b - 1);
    size_t p1 = r->descending ? block_at(r, k0) : block_at(r, k1);   /* the later */
    double t0 = hay_now();
    pthread_mutex_lock(&r->lock);
    if (p1 > r->want) {
        r->want = p1;
        pthread_cond_broadcast(&r->cv);
    }
    bool ok = true;
    for (size_t k = k0; k <= k1; k++) {
        while (r->state[k] == BLOCK_PENDING || r->state[k] == BLOCK_BUSY)
            pthread_cond_wait(&r->cv, &r->lock);
        ok = ok && r->state[k] == BLOCK_REGISTERED;
    }
    r->st.wait_seconds += hay_now() - t0;
    pthread_mutex_unlock(&r->lock);
    return ok;
}

uint64_t hay_hostreg_block_end(const hay_hostreg *r, uint64_t x)
{
    uint64_t e = block_hi(r, block_of(r, x)) - (uintptr_t)r->data;
    return e < r->len ? e : r->len;
}

void hay_hostreg_done(hay_hostreg *r, uint64_t mark)
{
    pthread_mutex_lock(&r->lock);
    if (!r->marked || (r->descending ? mark < r->mark : mark > r->mark)) {
        r->mark = mark;
        r->marked = true;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->lock);
}

void hay_hostreg_stop(hay_hostreg *r, hay_hostreg_stats *st)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    r->quit = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->lock);
    for (unsigned i = 0; i < r->nthreads; i++)
        pthread_join(r->th[i], NULL);
    if (st)
        *st = r->st;
    hostreg_free(r);
}

#endif /* HAY_HAVE_CUDA */
