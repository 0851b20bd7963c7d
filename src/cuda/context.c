/*
 * context.c - the CUDA driver's contexts (one per device and process, made
 * on first use under a lock, its start-up cost measured once) and its
 * pool of pipelines (driver.h).
 */
#include "driver.h"

#include <pthread.h>
#include <stdlib.h>

int hay_cuda_device_count(void);

typedef struct devctx {
    int state;              /* 0 untried, 1 ready, < 0 the failure */
    double init_seconds;
    cuda_pipe *idle;
    unsigned nidle;
} devctx;

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static devctx devs[MAX_DEVICES];

/* The device count, asked once per process.  That first CUDA call
 * (cuInit: 0.1 s on the H200 host) is part of the start-up the poster
 * measured, so the first context's init time includes it, wherever it was
 * paid (backend cuda pays it in available(), before compiling). */
static pthread_once_t count_once = PTHREAD_ONCE_INIT;
static int count_n;
static double count_seconds;
static bool count_reported;   /* under ctx_lock */

static void count_devices(void)
{
    double t0 = hay_now();
    count_n = hay_cuda_device_count();
    count_seconds = hay_now() - t0;
}

int hay_cuda_devices(void)
{
    pthread_once(&count_once, count_devices);
    return count_n;
}

hay_status hay_cuda_ctx_enter(int dev, double *paid)
{
    if (paid)
        *paid = 0;
    RETURN_ERROR_IF(dev < 0 || dev >= MAX_DEVICES, HAY_ERR_NO_DEVICE);
    int n = hay_cuda_devices();
    pthread_mutex_lock(&ctx_lock);
    devctx *d = &devs[dev];
    if (d->state == 0) {
        double t0 = hay_now();
        hay_status s = dev < n ? cuda_status(cudaSetDevice(dev)) : HAY_ERR_NO_DEVICE;
        if (s == HAY_OK)
            s = cuda_status(cudaFree(NULL));   /* creates the primary context */
        d->state = s == HAY_OK ? 1 : s;
        d->init_seconds = hay_now() - t0;
        if (!count_reported) {
            d->init_seconds += count_seconds;
            count_reported = true;
        }
        if (paid && s == HAY_OK)
            *paid = d->init_seconds;
    }
    hay_status s = d->state == 1 ? HAY_OK : (hay_status)d->state;
    pthread_mutex_unlock(&ctx_lock);
    if (s == HAY_OK)
        s = cuda_status(cudaSetDevice(dev));
    return s;
}

static void slot_free(cuda_slot *sl)
{
    if (sl->st)
        cudaStreamDestroy(sl->st);
    if (sl->ost)
        cudaStreamDestroy(sl->ost);
    for (int k = 0; k < 4; k++)
        if (sl->ev[k])
            cudaEventDestroy(sl->ev[k]);
    for (int k = 0; k < 3; k++)
        if (sl->ev_out[k])
            cudaEventDestroy(sl->ev_out[k]);
    cudaFreeHost(sl->h_stage);
    cudaFree(sl->d_text);
    cudaFree(sl->d_ctr);
    cudaFreeHost(sl->h_ctr);
    cudaFree(sl->d_m);
    cudaFree(sl->d_sorted);
    cudaFreeHost(sl->h_m);
    cudaFreeHost(sl->h_peek);
    cudaFree(sl->d_tmp);
    cudaFree(sl->d_parts);
    cudaFreeHost(sl->h_parts);
    cudaFree(sl->d_mk);
    cudaFreeHost(sl->h_mk);
    cudaFree(sl->d_cut);
    cudaFreeHost(sl->h_cut);
    cudaFree(sl->d_rec);
    cudaFree(sl->d_scratch);
    memset(sl, 0, sizeof *sl);
}

hay_status hay_cuda_slot_marks(cuda_slot *sl, uint64_t words)
{
    if (sl->mk_words >= words)
        return HAY_OK;
    cudaFree(sl->d_mk);
    cudaFreeHost(sl->h_mk);
    sl->d_mk = NULL;
    sl->h_mk = NULL;
    sl->mk_words = 0;
    CU(cudaMalloc((void **)&sl->d_mk, words * sizeof *sl->d_mk));
    CU(cudaHostAlloc((void **)&sl->h_mk, words * sizeof *sl->h_mk, cudaHostAllocDefault));
    sl->mk_words = words;
    return HAY_OK;
}

hay_status hay_cuda_slot_scratch(cuda_slot *sl, size_t bytes)
{
    if (sl->scratch_bytes >= bytes)
        return HAY_OK;
    /* The slot's last list may still run on its streams. */
    CU(cudaStreamSynchronize(sl->st));
    CU(cudaStreamSynchronize(sl->ost));
    cudaFree(sl->d_scratch);
    sl->d_scratch = NULL;
    sl->scratch_bytes = 0;
    CU(cudaMalloc(&sl->d_scratch, bytes));
    sl->scratch_bytes = bytes;
    return HAY_OK;
}

static void pipe_free(cuda_pipe *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->nslots; i++)
        slot_free(&p->s[i]);
    free(p);
    cudaGetLastError();
}

/* The staging buffer of a pinned pipeline is made on first use (issue). */
static hay_status slot_init(cuda_slot *sl, uint64_t text_cap)
{
    CU(cudaStreamCreateWithFlags(&sl->st, cudaStreamNonBlocking));
    CU(cudaStreamCreateWithFlags(&sl->ost, cudaStreamNonBlocking));
    for (int k = 0; k < 4; k++)
        CU(cudaEventCreate(&sl->ev[k]));
    for (int k = 0; k < 3; k++)
        CU(cudaEventCreate(&sl->ev_out[k]));
    if (text_cap) {   /* resident scans need no text buffers */
        CU(cudaMalloc((void **)&sl->d_text, text_cap + 2 * HAY_CUDA_PAD));
        CU(cudaMemset(sl->d_text, 0, text_cap + 2 * HAY_CUDA_PAD));
        /* The slot's stream is non-blocking: finish the zeroing before
         * any copy on it can land. */
        CU(cudaDeviceSynchronize());
    }
    CU(cudaMalloc((void **)&sl->d_ctr, 3 * sizeof(unsigned long long)));
    CU(cudaHostAlloc((void **)&sl->h_ctr, 3 * sizeof(unsigned long long),
                     cudaHostAllocDefault));
    return HAY_OK;
}

static hay_status pipe_create(int dev, unsigned nslots, uint64_t text_cap,
                              bool pinned, cuda_pipe **out)
{
    *out = NULL;
    cuda_pipe *p = calloc(1, sizeof *p);
    RETURN_ERROR_IF(!p, HAY_ERR_NOMEM);
    p->dev = dev;
    p->nslots = nslots;
    p->text_cap = text_cap;
    p->pinned = pinned;
    for (unsigned i = 0; i < nslots; i++) {
        hay_status s = slot_init(&p->s[i], text_cap);
        if (s < 0) {
            pipe_free(p);
            return s;
        }
    }
    *out = p;
    return HAY_OK;
}

hay_status hay_cuda_pipe_acquire(int dev, unsigned nslots, uint64_t *chunk,
                                 bool pinned, bool resident, cuda_pipe **out)
{
    *out = NULL;
    /* Room for the longest look-back any set can have, so that one
     * pipeline serves every set. */
    uint64_t back = HAY_MAX_PATTERN_LEN;
    uint64_t need = resident ? 0 : *chunk + back;
    pthread_mutex_lock(&ctx_lock);
    devctx *d = &devs[dev];
    for (cuda_pipe **pp = &d->idle; *pp; pp = &(*pp)->next) {
        cuda_pipe *p = *pp;
        if (p->nslots >= nslots && p->text_cap >= need &&
            (p->pinned || !pinned)) {
            *pp = p->next;
            d->nidle--;
            pthread_mutex_unlock(&ctx_lock);
            p->next = NULL;
            *out = p;
            return HAY_OK;
        }
    }
    pthread_mutex_unlock(&ctx_lock);
    for (;;) {
        hay_status s = pipe_create(dev, nslots, resident ? 0 : *chunk + back,
                                   pinned, out);
        if (s != HAY_ERR_NOMEM || resident || *chunk / 2 < hay_cuda_tuning_default.min_chunk)
            return s;
        /* Give the pool's memory back before asking for less. */
        pthread_mutex_lock(&ctx_lock);
        cuda_pipe *idle = d->idle;
        d->idle = NULL;
        d->nidle = 0;
        pthread_mutex_unlock(&ctx_lock);
        while (idle) {
            cuda_pipe *n = idle->next;
            pipe_free(idle);
            idle = n;
        }
        *chunk /= 2;
    }
}

void hay_cuda_pipe_release(cuda_pipe *p, bool broken)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->nslots; i++) {
        cudaStreamSynchronize(p->s[i].st);
        cudaStreamSynchronize(p->s[i].ost);
        p->s[i].busy = p->s[i].out = false;
    }
    cudaGetLastError();
    if (broken) {
        pipe_free(p);
        return;
    }
    pthread_mutex_lock(&ctx_lock);
    devctx *d = &devs[p->dev];
    p->next = d->idle;
    d->idle = p;
    d->nidle++;
    cuda_pipe *drop = NULL;
    if (d->nidle > hay_cuda_tuning_default.pool_keep) {   /* drop the oldest */
        cuda_pipe **pp = &d->idle;
        while ((*pp)->next)
            pp = &(*pp)->next;
        drop = *pp;
        *pp = NULL;
        d->nidle--;
    }
    pthread_mutex_unlock(&ctx_lock);
    pipe_free(drop);
}

hay_status hay_cuda_slot_list(cuda_slot *sl, uint64_t want)
{
    if (sl->cap)
        return HAY_OK;
    for (uint64_t cap = want;; cap /= 2) {
        size_t b = cap * sizeof(unsigned long long);
        hay_status s = cuda_status(cudaMalloc((void **)&sl->d_m, b));
        if (s == HAY_OK)
            s = cuda_status(cudaMalloc((void **)&sl->d_sorted, b));
        if (s == HAY_OK)
            s = cuda_status(cudaHostAlloc((void **)&sl->h_m, b, cudaHostAllocDefault));
        size_t tb = 0;
        if (s == HAY_OK)
            s = cuda_status((cudaError_t)hay_cuda_sort_keys(NULL, &tb, sl->d_m,
                                                            sl->d_sorted, cap, 64, 0, 0, NULL,
                                                            sl->st));
        if (s == HAY_OK)
            s = cuda_status(cudaMalloc(&sl->d_tmp, tb ? tb : 1));
        if (s == HAY_OK) {
            sl->cap = cap;
            sl->tmp_bytes = tb;
            return HAY_OK;
        }
        cudaFree(sl->d_m);
        cudaFree(sl->d_sorted);
        cudaFreeHost(sl->h_m);
        cudaFree(sl->d_tmp);
        sl->d_m = sl->d_sorted = sl->h_m = NULL;
        sl->d_tmp = NULL;
        if (s != HAY_ERR_NOMEM || cap / 2 < hay_cuda_tuning_default.min_result_cap)
            return s;
    }
}
