/*
 * cuda_backend.c - the CUDA backend's host driver, the "auto" backend that
 * moves large inputs to the GPU, and device-resident buffers.
 *
 * The driver owns, per process and device, one lazily created context
 * (thread-safe; its cost is measured and reported once as init_seconds)
 * and a pool of pipelines.  A pipeline has `streams` slots; each slot has
 * a pinned staging buffer, a device text buffer, counters and (made on the
 * first listing scan) a bounded match list with its sort buffers.  A host
 * input is cut into pieces of `chunk` bytes; piece i goes to slot i mod
 * streams: staged (parallel memcpy into pinned memory), copied in, searched
 * and its results copied out on the slot's stream, so copies and kernels
 * of different pieces overlap.  Results are drained in piece order, which
 * keeps matches in order of end.  Every piece is handed to the engine with
 * the longest pattern - 1 bytes before it (cuda_engine.h), so each match
 * is found in exactly one piece.
 *
 * A listing piece whose matches overflow the slot's list is split in two
 * and searched again (the text is still on the device), recursively; a
 * range of one end position that still overflows (more duplicate patterns
 * than slots) is searched on the host with the PFAC tables.  Nothing is
 * lost and device memory stays bounded.  Matches are sorted on the device
 * by (end, id) with CUB before they reach the callback.
 *
 * Every CUDA error becomes a hay_status; allocation failures are
 * HAY_ERR_NOMEM after the pipeline has been retried with halved sizes.
 */
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Default input size from which backend auto uses the GPU, by kind of set
 * (measured on the H200 host, docs/PERF.md "CUDA PFAC"; HAY_AUTO_GPU_MIN
 * or params gpu_min= override both). */
#define AUTO_GPU_MIN_MULTI ((uint64_t)256 << 20)
#define AUTO_GPU_MIN_SINGLE ((uint64_t)1 << 40)   /* the CPU's SIMD engine wins */
/* transfer=register's threads by default (the driver and a split's core
 * count): more did not help, the driver serializes them (docs/PERF.md). */
#define REG_THREADS 1

#include <pthread.h>

#include "cuda_engine.h"
#include "exact.h"
#include "hostreg.h"
#include "split.h"

/* Scan modes (split.h's numbers: the split's worker is a GPU scan). */
enum { MODE_COUNT = HAY_SPLIT_COUNT, MODE_EACH = HAY_SPLIT_EACH, MODE_LIST = HAY_SPLIT_LIST };

#ifdef HAY_HAVE_CUDA
#include <cuda_runtime_api.h>

int hay_cuda_device_count(void);
int hay_cuda_device_name(int dev, char *buf, size_t cap);
int hay_cuda_sort_keys(void *d_temp, size_t *temp_bytes,
                       const unsigned long long *in, unsigned long long *out,
                       size_t n, int end_bit, void *stream);

/* The engines, by --algo name.  The first one that accepts a set is the
 * default ("auto"). */
typedef struct engine_entry {
    const char *name;
    const hay_cuda_engine *engine;
} engine_entry;
static const engine_entry cuda_engine_table[] = {
    { "gpu-fast", &hay_cuda_engine_fast },          /* one pattern */
    { "pfac", &hay_cuda_engine_pfac },              /* any number */
    { "bm-gpu", &hay_cuda_engine_bm },
    { "brute-global", &hay_cuda_engine_brute_global },
    { "brute-reg", &hay_cuda_engine_brute_reg },
    { "brute-first", &hay_cuda_engine_brute_first },
};
#define N_ENGINES (sizeof cuda_engine_table / sizeof cuda_engine_table[0])
/* The same names, for hay_algo_name (keep in step with the table). */
static const char *const cuda_algos[] = { "gpu-fast", "pfac", "bm-gpu", "brute-global",
                                          "brute-reg", "brute-first", NULL };

#define MAX_DEVICES 16
#define MAX_STREAMS 8
#define DEFAULT_STREAMS 3
#define DEFAULT_CHUNK ((uint64_t)32 << 20)   /* docs/PERF.md "page cache" */
#define DEFAULT_RESULT_CAP ((uint64_t)16 << 20)
#define MIN_CHUNK ((uint64_t)1 << 16)
#define MIN_RESULT_CAP ((uint64_t)1 << 10)
#define POOL_KEEP 2
#define STAGE_BLOCK ((size_t)2 << 20)   /* per-thread share of a staging copy */
#define STAGE_THREADS 16
#define SPLIT_STAGE_THREADS 4
/* transfer=register: blocks (of the pipeline's chunk) pinned ahead of the
 * copies. */
#define REG_AHEAD 3

static hay_status cuda_status(cudaError_t e) { return (hay_status)hay_cuda_status(e); }
#define CU(call) FORWARD_IF_ERROR(cuda_status(call))

/* Contexts and the pipeline pool ---------------------------------------- */

typedef struct slot {
    cudaStream_t st;
    cudaEvent_t ev[4];      /* before copy-in, before kernel, after kernel, after copy-out */
    uint8_t *h_stage;       /* pinned, text_cap + pad (pinned pipelines) */
    uint8_t *d_text;        /* text_cap + 2 pad */
    unsigned long long *d_ctr;   /* [0] count, [1] list slots taken */
    unsigned long long *h_ctr;   /* pinned copy of d_ctr */
    uint64_t cap;           /* list slots; 0 until the first listing scan */
    unsigned long long *d_m, *d_sorted, *h_m;
    void *d_tmp;
    size_t tmp_bytes;
    /* the piece in flight */
    bool busy;
    uint64_t lo, gs, ge;    /* device text holds [lo, ge); owned ends (gs, ge] */
    size_t piece;           /* split scans: the piece's number (split.h) */
} slot;

typedef struct pipe {
    struct pipe *next;      /* in the idle pool */
    int dev;
    unsigned nslots;
    uint64_t text_cap;
    bool pinned;
    slot s[MAX_STREAMS];
} pipe;

typedef struct devctx {
    int state;              /* 0 untried, 1 ready, < 0 the failure */
    double init_seconds;
    pipe *idle;
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

static int device_count(void)
{
    pthread_once(&count_once, count_devices);
    return count_n;
}

/* Makes `dev` current for this thread, creating its context on first use;
 * *paid is the start-up time when this call paid it, else 0. */
static hay_status ctx_enter(int dev, double *paid)
{
    if (paid)
        *paid = 0;
    RETURN_ERROR_IF(dev < 0 || dev >= MAX_DEVICES, HAY_ERR_NO_DEVICE);
    int n = device_count();
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

static void slot_free(slot *sl)
{
    if (sl->st)
        cudaStreamDestroy(sl->st);
    for (int k = 0; k < 4; k++)
        if (sl->ev[k])
            cudaEventDestroy(sl->ev[k]);
    cudaFreeHost(sl->h_stage);
    cudaFree(sl->d_text);
    cudaFree(sl->d_ctr);
    cudaFreeHost(sl->h_ctr);
    cudaFree(sl->d_m);
    cudaFree(sl->d_sorted);
    cudaFreeHost(sl->h_m);
    cudaFree(sl->d_tmp);
    memset(sl, 0, sizeof *sl);
}

static void pipe_free(pipe *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->nslots; i++)
        slot_free(&p->s[i]);
    free(p);
    cudaGetLastError();
}

/* The staging buffer of a pinned pipeline is made on first use (issue). */
static hay_status slot_init(slot *sl, uint64_t text_cap)
{
    CU(cudaStreamCreateWithFlags(&sl->st, cudaStreamNonBlocking));
    for (int k = 0; k < 4; k++)
        CU(cudaEventCreate(&sl->ev[k]));
    if (text_cap) {   /* resident scans need no text buffers */
        CU(cudaMalloc((void **)&sl->d_text, text_cap + 2 * HAY_CUDA_PAD));
        CU(cudaMemset(sl->d_text, 0, text_cap + 2 * HAY_CUDA_PAD));
        /* The slot's stream is non-blocking: finish the zeroing before
         * any copy on it can land. */
        CU(cudaDeviceSynchronize());
    }
    CU(cudaMalloc((void **)&sl->d_ctr, 2 * sizeof(unsigned long long)));
    CU(cudaHostAlloc((void **)&sl->h_ctr, 2 * sizeof(unsigned long long),
                     cudaHostAllocDefault));
    return HAY_OK;
}

static hay_status pipe_create(int dev, unsigned nslots, uint64_t text_cap,
                              bool pinned, pipe **out)
{
    *out = NULL;
    pipe *p = calloc(1, sizeof *p);
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

/* A pipeline with at least the asked capacity: from the pool, or new;
 * when memory is short the chunk is halved (down to MIN_CHUNK). */
static hay_status pipe_acquire(int dev, unsigned nslots, uint64_t *chunk,
                               uint64_t back, bool pinned, bool resident,
                               pipe **out)
{
    *out = NULL;
    /* Room for the longest look-back any set can have, so that one
     * pipeline serves every set. */
    (void)back;
    back = HAY_MAX_PATTERN_LEN;
    uint64_t need = resident ? 0 : *chunk + back;
    pthread_mutex_lock(&ctx_lock);
    devctx *d = &devs[dev];
    for (pipe **pp = &d->idle; *pp; pp = &(*pp)->next) {
        pipe *p = *pp;
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
        if (s != HAY_ERR_NOMEM || resident || *chunk / 2 < MIN_CHUNK)
            return s;
        /* Give the pool's memory back before asking for less. */
        pthread_mutex_lock(&ctx_lock);
        pipe *idle = d->idle;
        d->idle = NULL;
        d->nidle = 0;
        pthread_mutex_unlock(&ctx_lock);
        while (idle) {
            pipe *n = idle->next;
            pipe_free(idle);
            idle = n;
        }
        *chunk /= 2;
    }
}

static void pipe_release(pipe *p, bool broken)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->nslots; i++) {
        cudaStreamSynchronize(p->s[i].st);
        p->s[i].busy = false;
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
    pipe *drop = NULL;
    if (d->nidle > POOL_KEEP) {   /* drop the oldest */
        pipe **pp = &d->idle;
        while ((*pp)->next)
            pp = &(*pp)->next;
        drop = *pp;
        *pp = NULL;
        d->nidle--;
    }
    pthread_mutex_unlock(&ctx_lock);
    pipe_free(drop);
}

/* The match list of a slot, made on first use; halved when memory is short. */
static hay_status slot_list(slot *sl, uint64_t want)
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
                                                            sl->d_sorted, cap, 64, sl->st));
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
        if (s != HAY_ERR_NOMEM || cap / 2 < MIN_RESULT_CAP)
            return s;
    }
}

/* Compiled sets ----------------------------------------------------------- */

typedef struct cuda_set {
    int dev;
    const hay_cuda_engine *eng;
    const char *algo;
    void *estate;
    hay_pfac *pfac;          /* host tables: the engine's input, streams, fallback */
    bool pageable;
    bool reg;                /* transfer=register (hostreg.h) */
    unsigned streams;
    unsigned stage_threads;  /* 0: the default */
    unsigned reg_threads;    /* transfer=register */
    uint64_t chunk, result_cap, gpu_min, dense_max;
    bool gpu_min_set;
    double init_seconds, prepare_seconds;
    int reported;            /* init/prepare reported by a scan */
} cuda_set;

static int default_device(void)
{
    const char *e = getenv("HAY_CUDA_DEVICE");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == 0 && v >= 0 && v < MAX_DEVICES)
            return (int)v;
        return -1;
    }
    return 0;
}

/* The driver's keys; the engine checks its own and rejects the rest. */
static hay_status parse_driver_params(const char *params, cuda_set *cs)
{
    const char *p = params, *key, *val;
    size_t klen, vlen;
    while (hay_cuda_param_next(&p, &key, &klen, &val, &vlen)) {
        uint64_t v = 0;
        if (hay_cuda_key_is(key, klen, "transfer")) {
            cs->pageable = cs->reg = false;
            if (hay_cuda_key_is(val, vlen, "pinned"))
                ;
            else if (hay_cuda_key_is(val, vlen, "pageable"))
                cs->pageable = true;
            else if (hay_cuda_key_is(val, vlen, "register"))
                cs->reg = true;
            else
                return HAY_ERR_INVALID;
            continue;
        }
        if (hay_cuda_key_is(key, klen, "split"))
            continue;   /* backend auto's (auto_params) */
        if (!hay_cuda_is_driver_key(key, klen))
            continue;
        RETURN_ERROR_IF(hay_cuda_parse_size(val, vlen, &v) < 0, HAY_ERR_INVALID);
        if (hay_cuda_key_is(key, klen, "device")) {
            RETURN_ERROR_IF(v >= MAX_DEVICES, HAY_ERR_INVALID);
            cs->dev = (int)v;
        } else if (hay_cuda_key_is(key, klen, "streams")) {
            RETURN_ERROR_IF(v < 1 || v > MAX_STREAMS, HAY_ERR_INVALID);
            cs->streams = (unsigned)v;
        } else if (hay_cuda_key_is(key, klen, "chunk")) {
            RETURN_ERROR_IF(v < 1, HAY_ERR_INVALID);
            cs->chunk = v;
        } else if (hay_cuda_key_is(key, klen, "result_cap")) {
            RETURN_ERROR_IF(v < 1 || v > ((uint64_t)1 << 32), HAY_ERR_INVALID);
            cs->result_cap = v;
        } else if (hay_cuda_key_is(key, klen, "gpu_min")) {
            cs->gpu_min = v;
            cs->gpu_min_set = true;
        } else if (hay_cuda_key_is(key, klen, "dense_max")) {
            cs->dense_max = v;
        } else if (hay_cuda_key_is(key, klen, "reg_threads")) {
            RETURN_ERROR_IF(v < 1 || v > 8, HAY_ERR_INVALID);
            cs->reg_threads = (unsigned)v;
        } else if (hay_cuda_key_is(key, klen, "stage_threads")) {
            RETURN_ERROR_IF(v < 1 || v > 256, HAY_ERR_INVALID);
            cs->stage_threads = (unsigned)v;
        }
    }
    return HAY_OK;
}

static void cuda_set_free(const hay_patterns *set, cuda_set *cs)
{
    if (!cs)
        return;
    if (cs->estate) {
        cudaSetDevice(cs->dev);
        cs->eng->destroy(cs->estate);
        cudaGetLastError();
    }
    hay_pfac_free(set, cs->pfac);
    free(cs);
}

/* Builds the GPU state of a set: context, host tables, device tables. */
static hay_status cuda_set_build(hay_patterns *set, const char *algo,
                                 cuda_set **out)
{
    *out = NULL;
    cuda_set *cs = calloc(1, sizeof *cs);
    RETURN_ERROR_IF(!cs, HAY_ERR_NOMEM);
    cs->dev = default_device();
    cs->streams = DEFAULT_STREAMS;
    cs->chunk = DEFAULT_CHUNK;
    cs->result_cap = DEFAULT_RESULT_CAP;
    cs->reg_threads = REG_THREADS;
    hay_status s = parse_driver_params(set->params, cs);
    if (s == HAY_OK && cs->dev < 0)
        s = HAY_ERR_INVALID;   /* HAY_CUDA_DEVICE is not a device index */
    if (s == HAY_OK)
        s = ctx_enter(cs->dev, &cs->init_seconds);
    if (s < 0)
        goto fail;
    if (!cs->dense_max) {
        size_t fr = 0, tot = 0;
        cs->dense_max = (uint64_t)2 << 30;
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess && fr / 4 < cs->dense_max)
            cs->dense_max = fr / 4;
        cudaGetLastError();
    }

    s = HAY_ERR_UNKNOWN_NAME;
    for (size_t i = 0; i < N_ENGINES; i++) {
        const hay_cuda_engine *e = cuda_engine_table[i].engine;
        if (algo && strcmp(algo, cuda_engine_table[i].name) != 0)
            continue;
        if (set->n > 1 && !e->multi) {
            s = HAY_ERR_UNSUPPORTED;
            continue;
        }
        double t0 = hay_now();
        if (e->multi && !cs->pfac) {
            s = hay_pfac_build(set, (size_t)cs->dense_max, &cs->pfac);
            if (s < 0)
                goto fail;
        }
        hay_cuda_patterns hp = {
            set->n, set->bytes, set->off, set->len, set->min_len, set->max_len,
            (set->flags & HAY_CASELESS) != 0, cs->pfac, set->params,
        };
        s = e->build(&hp, &cs->estate);
        cs->prepare_seconds = hay_now() - t0;
        if (s == HAY_OK) {
            cs->eng = e;
            cs->algo = cuda_engine_table[i].name;
            break;
        }
        cs->estate = NULL;
        if (s != HAY_ERR_UNSUPPORTED || algo)
            goto fail;
    }
    if (s < 0)
        goto fail;
    /* Streams and the host fallback walk the PFAC tables. */
    if (!cs->pfac) {
        s = hay_pfac_build(set, 0, &cs->pfac);
        if (s < 0)
            goto fail;
    }
    *out = cs;
    return HAY_OK;
fail:
    cuda_set_free(set, cs);
    return s;
}

/* The host PFAC walk: the CPU pfac engine over the set's PFAC tables. */

static int host_engine_scan(const hay_patterns *set, const void *state,
                            const uint8_t *hay, size_t len, size_t min_end,
                            uint64_t base, hay_emit_fn emit, void *sink)
{
    const cuda_set *cs = state;
    return hay_engine_pfac.scan(set, cs->pfac, hay, len, min_end, base, emit, sink);
}

/* What streams (and hay_patterns_info's algo) see for CUDA sets. */
static const hay_engine host_engine = {
    "pfac", true, NULL, NULL, host_engine_scan, NULL,
};

/* Scans ----------------------------------------------------------------- */


typedef struct scan_req {
    const hay_patterns *set;
    cuda_set *cs;
    const uint8_t *host;     /* host input, or */
    const uint8_t *dev;      /* device-resident input (padded) */
    uint64_t len;
    const hay_scan_opts *o;
    int mode;
    hay_match_fn fn;
    void *ctx;
    uint64_t count;
    unsigned long long *d_pc;    /* MODE_EACH */
    hay_scan_stats st;
    pipe *pp;
    uint64_t chunk, back;
    bool stopped;
    unsigned stage_threads;  /* threads copying into pinned staging */
    hay_split *sp;           /* split scans: pieces come from here */
    hay_hostreg *reg;        /* transfer=register: the input is pinned in place */
    struct copy_pool *pool;  /* a split's staging copy threads */
    uint64_t direct_bytes;   /* bytes copied from the input itself */
    uint64_t staged_bytes;   /* bytes staged (or copied pageable) */
} scan_req;

typedef struct cb_sink {
    hay_match_fn fn;
    void *ctx;
    uint64_t n;
} cb_sink;

static int emit_cb(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    cb_sink *c = sink;
    c->n++;
    return c->fn(id, start, end, c->ctx);
}

static const uint8_t *slot_text(scan_req *r, slot *sl)
{
    return r->dev ? r->dev + sl->lo : sl->d_text;
}

static int end_bits(uint64_t len)
{
    int b = HAY_CUDA_ID_BITS + 1;
    while (b < 64 && (len >> (b - HAY_CUDA_ID_BITS)) != 0)
        b++;
    return b;
}

/* Hands the sorted list of n matches (local to `lo`) to the callback. */
static hay_status deliver(scan_req *r, slot *sl, uint64_t lo, uint64_t n)
{
    double t0 = hay_now();
    int bits = end_bits(sl->ge - lo);
    CU((cudaError_t)hay_cuda_sort_keys(sl->d_tmp, &sl->tmp_bytes, sl->d_m,
                                        sl->d_sorted, n, bits, sl->st));
    CU(cudaMemcpyAsync(sl->h_m, sl->d_sorted, n * sizeof *sl->h_m,
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaStreamSynchronize(sl->st));
    r->st.copy_out_seconds += hay_now() - t0;
    const size_t *plen = r->set->len;
    for (uint64_t k = 0; k < n; k++) {
        unsigned long long m = sl->h_m[k];
        uint64_t end = lo + HAY_CUDA_MATCH_END(m);
        uint32_t id = HAY_CUDA_MATCH_ID(m);
        r->count++;
        if (r->fn(id, end - plen[id], end, r->ctx)) {
            r->stopped = true;
            return HAY_STOPPED;
        }
    }
    return HAY_OK;
}

/* Searches again the ends (x, y] of the slot's piece, synchronously,
 * splitting while the list overflows. */
static hay_status rerun(scan_req *r, slot *sl, uint64_t x, uint64_t y)
{
    uint64_t lo = x >= r->back ? x - r->back : 0;
    if (lo < sl->lo)
        lo = sl->lo;
    const uint8_t *txt = slot_text(r, sl) + (lo - sl->lo);
    CU(cudaMemsetAsync(sl->d_ctr, 0, 2 * sizeof(unsigned long long), sl->st));
    hay_cuda_job job = { txt, y - lo, x - lo, sl->d_ctr, NULL, sl->d_m,
                         sl->d_ctr + 1, sl->cap, sl->st };
    FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    CU(cudaMemcpyAsync(sl->h_ctr, sl->d_ctr, 2 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaStreamSynchronize(sl->st));
    uint64_t n = sl->h_ctr[1];
    if (n <= sl->cap)
        return deliver(r, sl, lo, n);
    if (y - x > 1) {
        uint64_t mid = x + (y - x) / 2;
        hay_status s = rerun(r, sl, x, mid);
        if (s != HAY_OK)
            return s;
        return rerun(r, sl, mid, y);
    }
    /* One end position with more matches than slots: the host walks it. */
    uint8_t *h = malloc(y - lo);
    RETURN_ERROR_IF(!h, HAY_ERR_NOMEM);
    hay_status s = cuda_status(cudaMemcpy(h, txt, y - lo, cudaMemcpyDeviceToHost));
    if (s == HAY_OK) {
        cb_sink cb = { r->fn, r->ctx, 0 };
        if (hay_engine_pfac.scan(r->set, r->cs->pfac, h, y - lo, x - lo, lo, emit_cb,
                                 &cb))
            s = HAY_STOPPED;
        r->count += cb.n;
        if (s == HAY_STOPPED)
            r->stopped = true;
    }
    free(h);
    return s;
}

/* Waits for the slot's piece and takes its results. */
static hay_status drain_slot(scan_req *r, slot *sl)
{
    sl->busy = false;
    CU(cudaStreamSynchronize(sl->st));
    float ms = 0;
    if (!r->dev && cudaEventElapsedTime(&ms, sl->ev[0], sl->ev[1]) == cudaSuccess)
        r->st.copy_in_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev[1], sl->ev[2]) == cudaSuccess)
        r->st.kernel_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev[2], sl->ev[3]) == cudaSuccess)
        r->st.copy_out_seconds += ms / 1e3;
    cudaGetLastError();
    if (r->mode != MODE_LIST) {
        r->count += sl->h_ctr[0];
        return HAY_OK;
    }
    uint64_t n = sl->h_ctr[1];
    if (n <= sl->cap)
        return deliver(r, sl, sl->lo, n);
    uint64_t mid = sl->gs + (sl->ge - sl->gs) / 2;
    hay_status s = rerun(r, sl, sl->gs, mid);
    if (s != HAY_OK)
        return s;
    return rerun(r, sl, mid, sl->ge);
}

static hay_status drain(scan_req *r, slot *sl)
{
    if (!sl->busy)
        return HAY_OK;
    uint64_t before = r->count;
    if (r->sp)
        hay_split_collect_into(r->sp, sl->piece);
    hay_status s = drain_slot(r, sl);
    if (s == HAY_OK && r->sp)
        hay_split_piece_done(r->sp, sl->piece, r->count - before);
    return s;
}

/* Copies src[0, n) into pinned memory on several threads. */
static void stage_copy(uint8_t *dst, const uint8_t *src, uint64_t n,
                       unsigned threads)
{
    long nb = (long)((n + STAGE_BLOCK - 1) / STAGE_BLOCK);
#ifdef _OPENMP
    int t = (int)(nb < (long)threads ? nb : (long)threads);
    if (t > (int)hay_cpu_count())
        t = (int)hay_cpu_count();
#pragma omp parallel for num_threads(t > 0 ? t : 1) schedule(static) if (nb > 1)
#endif
    for (long b = 0; b < nb; b++) {
        uint64_t o = (uint64_t)b * STAGE_BLOCK;
        memcpy(dst + o, src + o, n - o < STAGE_BLOCK ? n - o : STAGE_BLOCK);
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

typedef struct copy_pool {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned n;                    /* helper threads started */
    pthread_t th[POOL_MAX];
    stage_part part[POOL_MAX + 1]; /* part 0 is the caller's */
    unsigned parts;                /* of the current job */
    uint64_t gen;                  /* job number */
    unsigned pending;              /* helpers busy with the current job */
    bool quit;
} copy_pool;

typedef struct pool_arg {
    copy_pool *p;
    unsigned i;
} pool_arg;

static void *pool_main(void *arg)
{
    copy_pool *p = ((pool_arg *)arg)->p;
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

/* A pool of threads - 1 helpers (the caller copies too); NULL when fewer
 * than two threads are wanted or nothing could be made (the caller then
 * copies alone). */
static copy_pool *pool_start(unsigned threads)
{
    if (threads < 2)
        return NULL;
    copy_pool *p = calloc(1, sizeof *p);
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

static void pool_stop(copy_pool *p)
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

/* Copies n bytes with the pool's helpers and the calling thread. */
static void pool_copy(copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n)
{
    uint64_t t = p ? p->n + 1 : 1;
    if (t > n / STAGE_BLOCK)
        t = n / STAGE_BLOCK ? n / STAGE_BLOCK : 1;
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

/* Puts the piece with owned ends (gs, ge] on slot sl. */
static hay_status issue(scan_req *r, slot *sl, uint64_t gs, uint64_t ge)
{
    uint64_t lo = gs >= r->back ? gs - r->back : 0;
    uint64_t n = ge - lo;
    sl->lo = lo;
    sl->gs = gs;
    sl->ge = ge;
    CU(cudaEventRecord(sl->ev[0], sl->st));
    if (r->dev) {
        /* resident: nothing to copy */
    } else if (r->reg && hay_hostreg_wait(r->reg, lo, ge)) {
        /* Straight from the input: one copy per registered block. */
        for (uint64_t x = lo; x < ge;) {
            uint64_t y = hay_hostreg_block_end(r->reg, x);
            if (y > ge)
                y = ge;
            CU(cudaMemcpyAsync(sl->d_text + (x - lo), r->host + x, y - x,
                               cudaMemcpyHostToDevice, sl->st));
            x = y;
        }
        r->direct_bytes += n;
    } else if (r->pp->pinned) {
        if (!sl->h_stage)
            CU(cudaHostAlloc((void **)&sl->h_stage, r->pp->text_cap + HAY_CUDA_PAD,
                             cudaHostAllocDefault));
        if (r->sp)
            pool_copy(r->pool, sl->h_stage, r->host + lo, n);
        else
            stage_copy(sl->h_stage, r->host + lo, n, r->stage_threads);
        CU(cudaMemcpyAsync(sl->d_text, sl->h_stage, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    } else {
        CU(cudaMemcpyAsync(sl->d_text, r->host + lo, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    }
    CU(cudaEventRecord(sl->ev[1], sl->st));
    CU(cudaMemsetAsync(sl->d_ctr, 0, 2 * sizeof(unsigned long long), sl->st));
    hay_cuda_job job = { slot_text(r, sl), n, gs - lo, sl->d_ctr, r->d_pc,
                         r->mode == MODE_LIST ? sl->d_m : NULL, sl->d_ctr + 1,
                         r->mode == MODE_LIST ? sl->cap : 0, sl->st };
    FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    CU(cudaEventRecord(sl->ev[2], sl->st));
    CU(cudaMemcpyAsync(sl->h_ctr, sl->d_ctr, 2 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaEventRecord(sl->ev[3], sl->st));
    sl->busy = true;
    return HAY_OK;
}

/* The slot's piece is copied and drained: a split's GPU side (pieces
 * claimed from the back) reads nothing at or above its gs again, an
 * in-order scan nothing below its ge - back. */
static void reg_done(scan_req *r, const slot *sl)
{
    if (r->reg)
        hay_hostreg_done(r->reg, r->sp ? sl->gs : sl->ge > r->back ? sl->ge - r->back : 0);
}

/* The pipeline over the whole input. */
static hay_status run_pieces(scan_req *r)
{
    const hay_scan_opts *o = r->o;
    pipe *pp = r->pp;
    unsigned ns = pp->nslots;
    uint64_t done = 0, i = 0, next = 0;
    hay_status s = HAY_OK;
    for (; s == HAY_OK; i++) {
        slot *sl = &pp->s[i % ns];
        if (sl->busy) {
            uint64_t e = sl->ge;
            s = drain(r, sl);
            if (s != HAY_OK)
                break;
            reg_done(r, sl);
            done = e;
            if (o->progress)
                o->progress(done, r->len, o->progress_ctx);
        }
        /* The next piece: in order, or (split) from the back of what the
         * CPU has not taken, claimed only now that a slot is free. */
        uint64_t gs, ge;
        if (r->sp) {
            if (!hay_split_claim_back(r->sp, r->chunk, &sl->piece, &gs, &ge))
                break;
        } else {
            if (next >= r->len)
                break;
            gs = next;
            ge = r->len - gs > r->chunk ? gs + r->chunk : r->len;
            next = ge;
        }
        s = issue(r, sl, gs, ge);
    }
    /* The pieces still in flight, oldest first. */
    for (unsigned k = 0; k < ns; k++) {
        slot *sl = &pp->s[(i + k) % ns];
        if (!sl->busy)
            continue;
        if (s != HAY_OK) {
            cudaStreamSynchronize(sl->st);
            sl->busy = false;
            continue;
        }
        uint64_t e = sl->ge;
        s = drain(r, sl);
        if (s == HAY_OK && o->progress)
            o->progress(e, r->len, o->progress_ctx);
    }
    cudaGetLastError();
    return s;
}

static void report_prepare(cuda_set *cs, hay_scan_stats *st)
{
    if (__atomic_exchange_n(&cs->reported, 1, __ATOMIC_ACQ_REL) == 0) {
        st->init_seconds = cs->init_seconds;
        st->prepare_seconds = cs->prepare_seconds;
    }
}

/* Runs one scan of a host or resident input on the GPU state cs; with sp,
 * the GPU side of a split scan (pieces from sp, matches into sp).  pin:
 * copy the host input where it lies (the caller found it in a shared
 * mapping, hostreg.h), else stage it. */
static hay_status gpu_scan_sp(const hay_patterns *set, cuda_set *cs,
                              const uint8_t *host, const uint8_t *dev,
                              uint64_t len, const hay_scan_opts *o, int mode,
                              hay_match_fn fn, void *ctx, uint64_t *count,
                              uint64_t *counts, const char *note, double t0,
                              bool pin, hay_split *sp, unsigned stage_threads)
{
    scan_req r;
    memset(&r, 0, sizeof r);
    r.set = set;
    r.cs = cs;
    r.host = host;
    r.dev = dev;
    r.len = len;
    r.o = o;
    r.mode = mode;
    r.fn = fn;
    r.ctx = ctx;
    r.back = set->max_len - 1;
    r.sp = sp;
    /* A split's CPU threads are searching: the GPU side copies with few,
     * unless the caller says how many (split=heavy). */
    r.stage_threads = cs->stage_threads ? cs->stage_threads
                      : stage_threads        ? stage_threads
                      : sp                   ? SPLIT_STAGE_THREADS
                                             : STAGE_THREADS;
    if (sp && mode == MODE_LIST) {
        r.fn = hay_split_collect;
        r.ctx = sp;
    }
    r.st.backend = HAY_BACKEND_CUDA;
    r.st.algo = cs->algo;
    r.st.energy_joules = -1;   /* no energy counter read on this backend */
    r.st.init_joules = r.st.prepare_joules = r.st.copy_in_joules = -1;
    r.st.kernel_joules = r.st.copy_out_joules = -1;
    r.st.energy_method = "unavailable";
    r.st.note = note ? note : "";
    report_prepare(cs, &r.st);
    FORWARD_IF_ERROR(ctx_enter(cs->dev, NULL));
    /* Resident counts need no pieces (the engine reports only counts). */
    r.chunk = o->chunk_size ? o->chunk_size
              : (dev && mode != MODE_LIST) ? len : cs->chunk;
    hay_status s = pipe_acquire(cs->dev, cs->streams, &r.chunk, r.back,
                                !dev && !cs->pageable, dev != NULL, &r.pp);
    if (s < 0)
        return s;
    if (mode == MODE_LIST) {
        for (unsigned k = 0; k < r.pp->nslots && s == HAY_OK; k++)
            s = slot_list(&r.pp->s[k], cs->result_cap);
    }
    if (s == HAY_OK && mode == MODE_EACH) {
        s = cuda_status(cudaMalloc((void **)&r.d_pc, set->n * sizeof *r.d_pc));
        /* The pipeline's streams are non-blocking: they do not wait for
         * work on the default stream, so the zeroing must be complete
         * before the first kernel is queued. */
        if (s == HAY_OK)
            s = cuda_status(cudaMemset(r.d_pc, 0, set->n * sizeof *r.d_pc));
        if (s == HAY_OK)
            s = cuda_status(cudaDeviceSynchronize());
    }
    /* Pinning in place: block by block on threads of their own. */
    if (pin && s == HAY_OK && hay_hostreg_supported(cs->dev) &&
        hay_hostreg_start(cs->dev, host, len, r.chunk, REG_AHEAD, cs->reg_threads,
                          sp != NULL, &r.reg) != HAY_OK)
        r.reg = NULL;
    if (s == HAY_OK && sp && !r.reg && !dev && !cs->pageable)
        r.pool = pool_start(r.stage_threads);
    if (sp && hay_split_debug(sp))
        fprintf(stderr, "split: gpu pipeline ready after %.1f ms (%u copy threads)\n",
                (hay_now() - t0) * 1e3, r.stage_threads);
    if (s == HAY_OK)
        s = run_pieces(&r);
    pool_stop(r.pool);
    hay_hostreg_stats rst;
    memset(&rst, 0, sizeof rst);
    if (r.reg)
        hay_hostreg_stop(r.reg, &rst);   /* run_pieces left no copy in flight */
    if (pin && r.staged_bytes && !*r.st.note)
        r.st.note = r.reg ? "transfer=register: some blocks could not be registered; "
                            "those pieces were staged"
                          : "transfer=register: the driver cannot pin host memory here; "
                            "staged";
    if (getenv("HAY_CUDA_REG_DEBUG") && r.reg)
        fprintf(stderr, "hostreg: %llu blocks (%llu failed), register %.2f ms, "
                "unregister %.2f ms, waited %.2f ms, direct %llu of %llu bytes\n",
                (unsigned long long)rst.blocks, (unsigned long long)rst.failed,
                rst.register_seconds * 1e3, rst.unregister_seconds * 1e3,
                rst.wait_seconds * 1e3, (unsigned long long)r.direct_bytes,
                (unsigned long long)len);
    if (s == HAY_OK && mode == MODE_EACH) {
        double c0 = hay_now();
        s = cuda_status(cudaMemcpy(counts, r.d_pc, set->n * sizeof *counts,
                                   cudaMemcpyDeviceToHost));
        r.st.copy_out_seconds += hay_now() - c0;
    }
    cudaFree(r.d_pc);
    pipe_release(r.pp, s < 0 && s != HAY_ERR_NOMEM);
    if (count)
        *count = r.count;
    r.st.bytes = len;
    r.st.matches = r.count;
    r.st.total_seconds = hay_now() - t0;
    if (o->stats)
        *o->stats = r.st;
    if (s == HAY_OK && r.stopped)
        s = HAY_STOPPED;
    return s;
}

static hay_status gpu_scan(const hay_patterns *set, cuda_set *cs,
                           const uint8_t *host, const uint8_t *dev,
                           uint64_t len, const hay_scan_opts *o, int mode,
                           hay_match_fn fn, void *ctx, uint64_t *count,
                           uint64_t *counts, const char *note, double t0)
{
    /* transfer=register pins only shared mappings; anything else is
     * staged, and the note says so. */
    bool asked = host && len && cs->reg;
    bool pin = asked && hay_hostreg_eligible(host, len);
    if (asked && !pin && (!note || !*note))
        note = "transfer=register: the input is not in a shared mapping (heap, or a "
               "private file mapping); staged";
    return gpu_scan_sp(set, cs, host, dev, len, o, mode, fn, ctx, count,
                       counts, note, t0, pin, NULL, 0);
}

/* The CUDA backend's ops -------------------------------------------------- */

static hay_status cuda_available(void)
{
    return device_count() > 0 ? HAY_OK : HAY_ERR_NO_DEVICE;
}
static int cuda_device_count(void) { return device_count(); }
static hay_status cuda_describe(int index, char *buf, size_t cap)
{
    return hay_cuda_device_name(index, buf, cap) == 0 ? HAY_OK : HAY_ERR_DEVICE;
}

static hay_status cuda_compile(hay_patterns *set, const char *algo)
{
    cuda_set *cs;
    FORWARD_IF_ERROR(cuda_set_build(set, algo, &cs));
    set->state = cs;
    set->engine = &host_engine;   /* streams walk the PFAC tables on the host */
    set->algo_name = cs->algo;    /* what hay_patterns_info reports */
    set->state_memory = cs->pfac->memory + cs->eng->memory(cs->estate);
    set->reason = algo ? "algorithm chosen by the caller"
                  : !strcmp(cs->algo, "gpu-fast")
                      ? "CUDA, one pattern: 16-byte loads, first/last-byte filter (gpu-fast)"
                      : "CUDA: PFAC over all start positions";
    return HAY_OK;
}

static void cuda_destroy(hay_patterns *set)
{
    cuda_set_free(set, set->state);
    set->state = NULL;
}

static hay_status cuda_scan(const hay_patterns *set, hay_scratch *scratch,
                            const uint8_t *data, uint64_t len,
                            const hay_scan_opts *opts, hay_match_fn fn, void *ctx)
{
    (void)scratch;
    return gpu_scan(set, set->state, data, NULL, len, opts, MODE_LIST, fn, ctx,
                    NULL, NULL, NULL, hay_now());
}

static hay_status cuda_count(const hay_patterns *set, hay_scratch *scratch,
                             const uint8_t *data, uint64_t len,
                             const hay_scan_opts *opts, uint64_t *count)
{
    (void)scratch;
    return gpu_scan(set, set->state, data, NULL, len, opts, MODE_COUNT, NULL,
                    NULL, count, NULL, NULL, hay_now());
}

static hay_status cuda_count_each(const hay_patterns *set, hay_scratch *scratch,
                                  const uint8_t *data, uint64_t len,
                                  const hay_scan_opts *opts, uint64_t *counts)
{
    (void)scratch;
    return gpu_scan(set, set->state, data, NULL, len, opts, MODE_EACH, NULL,
                    NULL, NULL, counts, NULL, hay_now());
}

#else /* !HAY_HAVE_CUDA */

static const char *const cuda_algos[] = { NULL };
static hay_status cuda_available(void) { return HAY_ERR_NO_BACKEND; }
static int cuda_device_count(void) { return 0; }
static hay_status cuda_describe(int index, char *buf, size_t cap)
{
    (void)index; (void)buf; (void)cap;
    return HAY_ERR_NO_BACKEND;
}
static hay_status cuda_compile(hay_patterns *set, const char *algo)
{
    (void)set; (void)algo;
    return HAY_ERR_NO_BACKEND;
}
#define cuda_destroy NULL
#define cuda_scan NULL
#define cuda_count NULL
#define cuda_count_each NULL

#endif /* HAY_HAVE_CUDA */

const hay_backend_ops hay_cuda_backend = {
    HAY_BACKEND_CUDA, "cuda", cuda_available, cuda_device_count, cuda_describe,
    cuda_algos,
    cuda_compile, cuda_destroy, cuda_scan, cuda_count, cuda_count_each,
};

/* The auto backend ------------------------------------------------------- */

/*
 * Compiles the CPU engine.  A scan of at least gpu_min bytes (by kind of
 * set, AUTO_GPU_MIN_*; env HAY_AUTO_GPU_MIN or params gpu_min= override)
 * makes, once, the GPU state in set->aux and runs there; with the default
 * threshold, a pattern set goes to the GPU only when the CPU's rate on it,
 * measured once on a probe, says the GPU would finish sooner
 * (auto_cpu_sooner).  When no GPU is
 * usable the CPU runs and the scan's stats note says why.  params
 * split=on runs every input on the CPU threads and the GPU together
 * (split.h: the CPU from the front, the GPU from the back) when a GPU is
 * usable; split=auto (the default) does so in the count modes when the
 * probe sends the set to the GPU and the CPU threads would add enough
 * (split_pays), with the GPU side staging on most cores (as split=heavy);
 * split=off never splits; split=emulate puts a host
 * thread in the GPU's place (tests).  docs/PERF.md "The split that adds
 * up" has the measurements.
 */
enum { SPLIT_AUTO, SPLIT_ON, SPLIT_OFF, SPLIT_EMULATE, SPLIT_HEAVY };

/* The CPU side's pieces (params split_piece= overrides).  Each piece is
 * searched by all the CPU side's threads, so small ones cost: on the H200
 * host 4 MiB pieces (the old default for several patterns, sized from the
 * measured rate) ran the CPU side 3-4x slower than 32 MiB ones
 * (snort-community 0.7 against 2.1 GB/s, eight literals 3.4 against 12.8;
 * docs/PERF.md).  The meeting waits for at most one piece. */
#define SPLIT_PIECE ((uint64_t)32 << 20)
/* Cores a split leaves to the GPU side (its driving thread and 4 copy
 * threads): the CPU side's OpenMP threads, sharing cores with them, were
 * measured over 20x slower than on cores of their own. */
#define SPLIT_GPU_CORES 5
/* With transfer=register: the driving thread (and reg_threads more). */
#define SPLIT_GPU_CORES_REG 1
#define SPLIT_LIST_BUDGET ((uint64_t)256 << 20)
#define SPLIT_EMULATE_PIECE ((uint64_t)64 << 20)

typedef struct auto_gpu {
    int state;               /* 0 untried, 1 ready, < 0 failed */
    const char *why;         /* static text when failed */
    int split;               /* SPLIT_* */
    double cpu_rate;         /* bytes/s of the CPU engine on a probe, 0 untried */
    bool reg;                /* the GPU side copies in place (transfer=register,
                              * or no transfer= given) */
    unsigned reg_threads;
    unsigned keep;           /* split_keep=: CPU threads that stay (0: default) */
    uint64_t split_piece, split_buffer, emulate_piece;
#ifdef HAY_HAVE_CUDA
    cuda_set *cs;
#endif
} auto_gpu;

#ifdef HAY_HAVE_CUDA
static pthread_mutex_t auto_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

/* Backend auto's own keys (the CPU engine skips them, the CUDA driver
 * ignores split). */
static hay_status auto_params(const char *params, auto_gpu *g)
{
    g->split = SPLIT_AUTO;
    g->split_piece = 0;   /* SPLIT_PIECE */
    g->split_buffer = SPLIT_LIST_BUDGET;
    g->reg_threads = REG_THREADS;
    g->reg = true;   /* unless transfer= says otherwise */
    g->emulate_piece = SPLIT_EMULATE_PIECE;
    const char *p = params, *key, *val;
    size_t klen, vlen;
    while (hay_cuda_param_next(&p, &key, &klen, &val, &vlen)) {
        uint64_t v = 0;
        if (hay_cuda_key_is(key, klen, "split")) {
            if (hay_cuda_key_is(val, vlen, "auto"))
                g->split = SPLIT_AUTO;
            else if (hay_cuda_key_is(val, vlen, "on"))
                g->split = SPLIT_ON;
            else if (hay_cuda_key_is(val, vlen, "off"))
                g->split = SPLIT_OFF;
            else if (hay_cuda_key_is(val, vlen, "emulate"))
                g->split = SPLIT_EMULATE;
            else if (hay_cuda_key_is(val, vlen, "heavy"))
                g->split = SPLIT_HEAVY;
            else
                return HAY_ERR_INVALID;
            continue;
        }
        if (hay_cuda_key_is(key, klen, "transfer")) {
            g->reg = hay_cuda_key_is(val, vlen, "register");   /* given: as said */
            continue;   /* checked by the CUDA driver */
        }
        if (hay_cuda_key_is(key, klen, "reg_threads")) {
            if (hay_cuda_parse_size(val, vlen, &v) == 0 && v >= 1 && v <= 8)
                g->reg_threads = (unsigned)v;
            continue;   /* refused by the CUDA driver when bad */
        }
        if (hay_cuda_key_is(key, klen, "split_keep")) {
            RETURN_ERROR_IF(hay_cuda_parse_size(val, vlen, &v) < 0 || v < 1 || v > 4096,
                            HAY_ERR_INVALID);
            g->keep = (unsigned)v;
            continue;
        }
        bool piece = hay_cuda_key_is(key, klen, "split_piece");
        bool buffer = hay_cuda_key_is(key, klen, "split_buffer");
        bool chunk = hay_cuda_key_is(key, klen, "chunk");
        if (!piece && !buffer && !chunk)
            continue;
        RETURN_ERROR_IF(hay_cuda_parse_size(val, vlen, &v) < 0, HAY_ERR_INVALID);
        RETURN_ERROR_IF((piece || chunk) && v < 1, HAY_ERR_INVALID);
        if (piece)
            g->split_piece = v;
        else if (buffer)
            g->split_buffer = v;
        else
            g->emulate_piece = v;
    }
    return HAY_OK;
}

/* The CPU threads the heavy split keeps searching beside the GPU side
 * (split_keep=, default cores/5: 3 of 16). */
static unsigned split_keep(const auto_gpu *g, unsigned cores)
{
    return g->keep ? g->keep : cores >= 8 ? cores / 5 : 1;
}

#ifdef HAY_HAVE_CUDA
/* The input size from which auto may use the GPU; *given: set by env or
 * params (then used as is, with no measured choice). */
static uint64_t auto_threshold(const hay_patterns *set, bool *given)
{
    *given = true;
    const char *e = getenv("HAY_AUTO_GPU_MIN");
    uint64_t v;
    if (e && hay_cuda_parse_size(e, strlen(e), &v) == 0)
        return v;
    const char *p = set->params, *key, *val;
    size_t klen, vlen;
    while (hay_cuda_param_next(&p, &key, &klen, &val, &vlen))
        if (hay_cuda_key_is(key, klen, "gpu_min") &&
            hay_cuda_parse_size(val, vlen, &v) == 0)
            return v;
    *given = false;
    return set->n > 1 ? AUTO_GPU_MIN_MULTI : AUTO_GPU_MIN_SINGLE;
}

/* Whether the CPU would finish a pattern set's input sooner than the GPU
 * with its fixed cost.  Fitted to whole commands on the H200 host (1 and 4
 * GiB; docs/PERF.md "auto by measured rate"): a first GPU scan in a
 * process costs about 0.4 s (context, tables, pipeline, teardown), then
 * runs at 25-60 GB/s; the CPU runs eight literals at 12 GB/s, Snort's
 * 4,550 at 2.8, ET Open's 30,528 at 2.0.  The CPU's rate is measured once
 * per set, on its first AUTO_PROBE bytes. */
#define AUTO_PROBE ((uint64_t)32 << 20)
#define AUTO_GPU_COLD_SECONDS 0.4
#define AUTO_GPU_WARM_SECONDS 0.02
#define AUTO_GPU_RATE 40e9

/* Whether the heavy split is worth it for a set whose CPU rate the probe
 * measured: the kept threads' share of that rate must come to
 * SPLIT_MIN_SHARE of the GPU's.  Below it they add next to nothing, and
 * cost the GPU side cores and memory bandwidth of its staging copies:
 * et-open (0.3 GB/s on 3 threads) ran the GPU side at 12-15 GB/s in the
 * split against 21 alone (H200 host, docs/PERF.md "The split that adds
 * up"). */
#define SPLIT_MIN_SHARE 0.04
static bool split_pays(const hay_patterns *set, const hay_scan_opts *o)
{
    const auto_gpu *g = set->aux;
    unsigned cores = hay_cpu_count(), threads = o->threads ? o->threads : cores;
    pthread_mutex_lock(&auto_lock);
    double rate = g->cpu_rate;
    pthread_mutex_unlock(&auto_lock);
    if (rate <= 0)
        return true;   /* not measured (one pattern): split */
    unsigned keep = split_keep(g, cores);
    if (keep > threads)
        keep = threads;
    return rate * keep / threads >= SPLIT_MIN_SHARE * AUTO_GPU_RATE;
}

static bool auto_cpu_sooner(const hay_patterns *set, hay_scratch *scratch,
                            const uint8_t *data, uint64_t len,
                            const hay_scan_opts *o, uint64_t *probed,
                            uint64_t *probe_count)
{
    auto_gpu *g = set->aux;
    pthread_mutex_lock(&auto_lock);
    double rate = g->cpu_rate;
    bool warm = g->state == 1;
    pthread_mutex_unlock(&auto_lock);
    if (rate <= 0) {
        hay_scan_opts po = *o;
        po.progress = NULL;
        po.stats = NULL;
        uint64_t n = 0, probe = len < AUTO_PROBE ? len : AUTO_PROBE;
        double t0 = hay_now();
        if (hay_cpu_backend.count(set, scratch, data, probe, &po, &n) != HAY_OK)
            return false;
        double t = hay_now() - t0;
        *probed = probe;   /* the matches ending in its first probe bytes */
        *probe_count = n;
        rate = (double)probe / (t > 1e-6 ? t : 1e-6);
        pthread_mutex_lock(&auto_lock);
        g->cpu_rate = rate;
        pthread_mutex_unlock(&auto_lock);
    }
    double fixed = warm ? AUTO_GPU_WARM_SECONDS : AUTO_GPU_COLD_SECONDS;
    return (double)len / rate <= fixed + (double)len / AUTO_GPU_RATE;
}

#endif

static hay_status auto_available(void) { return HAY_OK; }
static int auto_device_count(void) { return 1; }
static hay_status auto_describe(int index, char *buf, size_t cap)
{
    return hay_cpu_backend.describe(index, buf, cap);
}

static hay_status auto_compile(hay_patterns *set, const char *algo)
{
    auto_gpu g;
    memset(&g, 0, sizeof g);
    FORWARD_IF_ERROR(auto_params(set->params, &g));
    FORWARD_IF_ERROR(hay_cpu_backend.compile(set, algo));
    set->aux = malloc(sizeof g);
    if (!set->aux) {
        hay_cpu_backend.destroy(set);
        return HAY_ERR_NOMEM;
    }
    memcpy(set->aux, &g, sizeof g);
    return HAY_OK;
}

static void auto_destroy(hay_patterns *set)
{
    hay_cpu_backend.destroy(set);
    auto_gpu *g = set->aux;
    if (g) {
#ifdef HAY_HAVE_CUDA
        cuda_set_free(set, g->cs);
#endif
        free(g);
    }
    set->aux = NULL;
}

#ifdef HAY_HAVE_CUDA
/* The GPU state of an auto set, made on first need; NULL (with *why) when
 * no GPU can take it. */
static cuda_set *auto_gpu_get(const hay_patterns *set, const char **why)
{
    auto_gpu *g = set->aux;
    pthread_mutex_lock(&auto_lock);
    if (g->state == 0) {
        hay_status s = cuda_available();
        cuda_set *cs = NULL;
        if (s == HAY_OK)
            s = cuda_set_build((hay_patterns *)set, NULL, &cs);
        g->cs = cs;
        g->state = s == HAY_OK ? 1 : s;
        g->why = s == HAY_ERR_NO_DEVICE ? "no usable GPU (cuda: no device); CPU"
                 : s == HAY_ERR_NOMEM ? "GPU out of memory for the tables; CPU"
                 : s == HAY_ERR_UNSUPPORTED ? "no CUDA engine for this set; CPU"
                 : "the CUDA backend failed to start; CPU";
    }
    cuda_set *cs = g->state == 1 ? g->cs : NULL;
    *why = g->why;
    pthread_mutex_unlock(&auto_lock);
    return cs;
}
#endif

enum { RUN_CPU, RUN_GPU, RUN_SPLIT };

/* Where an auto scan of len bytes runs, with a note; *gpu is the GPU
 * state for RUN_GPU (a split's worker makes it itself, so that its
 * start-up overlaps the CPU's searching). */
static int auto_pick(const hay_patterns *set, hay_scratch *scratch,
                     const uint8_t *data, uint64_t len, const hay_scan_opts *o,
                     int mode, const char **note, void **gpu, uint64_t *probed,
                     uint64_t *probe_count)
{
    const auto_gpu *g = set->aux;
    *gpu = NULL;
    *probed = *probe_count = 0;
    if (g->split == SPLIT_EMULATE) {
        *note = "split between CPU threads and a host thread (split=emulate)";
        return RUN_SPLIT;
    }
#ifdef HAY_HAVE_CUDA
    if (g->split == SPLIT_ON) {
        *note = "split between CPU threads and the GPU (split=on)";
        return RUN_SPLIT;
    }
    if (g->split == SPLIT_HEAVY) {
        *note = "split, the GPU staging on most cores and CPU threads on the rest "
                "(split=heavy)";
        return RUN_SPLIT;
    }
    bool given;
    if (len < auto_threshold(set, &given)) {
        *note = "input below the GPU threshold; CPU";
        return RUN_CPU;
    }
    if (!given && set->n > 1 &&
        auto_cpu_sooner(set, scratch, data, len, o, probed, probe_count)) {
        *note = "the CPU's measured rate on this set beats the GPU's start-up and "
                "rate; CPU";
        return RUN_CPU;
    }
    /* The GPU wins by the measured rates: in the count modes it shares the
     * input with the cores its copies leave free, the heavy split, and the
     * CPU searches while the GPU starts up (docs/PERF.md "The split that
     * adds up").  split=off, gpu_min= given, and the list: the GPU alone.
     * (split=on, the GPU side on few cores, lost to the better side alone:
     * "Backend auto: CPU and GPU on one input".) */
    const char *gpu_note = "input at or above the GPU threshold; CUDA";
    if (!given && g->split == SPLIT_AUTO && mode != MODE_LIST) {
        pthread_mutex_lock(&auto_lock);
        int state = g->state;
        const char *why = g->why;
        pthread_mutex_unlock(&auto_lock);
        /* Not asked here whether there is a GPU: the first CUDA call
         * (0.1 s on the H200 host) is the worker's, while the CPU
         * searches; with none the CPU searches it all. */
        if (state < 0) {
            *note = why;
            return RUN_CPU;
        }
        if (split_pays(set, o)) {
            *note = "the GPU's rate beats the CPU's: split, the GPU staging on most cores "
                    "and CPU threads on the rest";
            return RUN_SPLIT;
        }
        gpu_note = "the GPU's rate beats the CPU's, and the CPU threads a split leaves "
                   "would add under 4%; CUDA";
    }
    *gpu = auto_gpu_get(set, note);
    if (!*gpu)
        return RUN_CPU;
    *note = gpu_note;
    return RUN_GPU;
#else
    (void)scratch; (void)data; (void)len; (void)o; (void)mode;
    (void)probed; (void)probe_count;
    *note = "no CUDA backend in this build; CPU";
    return RUN_CPU;
#endif
}

static void cpu_stats(const hay_patterns *set, const hay_scan_opts *o,
                      double t0, uint64_t len, uint64_t matches,
                      const char *note)
{
    if (!o->stats)
        return;
    memset(o->stats, 0, sizeof *o->stats);
    o->stats->backend = HAY_BACKEND_CPU;
    o->stats->algo = set->engine ? set->engine->name : "?";
    o->stats->total_seconds = hay_now() - t0;
    o->stats->bytes = len;
    o->stats->matches = matches;
    o->stats->energy_joules = -1;
    o->stats->init_joules = o->stats->prepare_joules = o->stats->copy_in_joules = -1;
    o->stats->kernel_joules = o->stats->copy_out_joules = -1;
    o->stats->energy_method = "unavailable";
    o->stats->note = note;
}

/* The GPU side of a split scan (split.h's worker). */
typedef struct split_gpu {
    const hay_patterns *set;
    const uint8_t *host;
    uint64_t len;
    hay_scan_opts o;
    hay_scan_stats st;
    bool pin;                /* copy in place (auto_split found it eligible) */
    unsigned stage_threads;  /* its copy threads (0: the split's default) */
    bool ran;                /* the GPU state was there */
    const char *why;
} split_gpu;

#ifdef HAY_HAVE_CUDA
static hay_status split_gpu_worker(hay_split *sp, void *wctx)
{
    split_gpu *w = wctx;
    double g0 = hay_now();
    cuda_set *cs = auto_gpu_get(w->set, &w->why);
    if (hay_split_debug(sp))
        fprintf(stderr, "split: gpu state ready after %.1f ms\n", (hay_now() - g0) * 1e3);
    RETURN_ERROR_IF(!cs, HAY_ERR_NO_DEVICE);
    w->ran = true;
    /* GPU pieces are the driver's chunk= (the caller's chunk_size sizes
     * the CPU's); progress comes from the calling thread only. */
    hay_scan_opts o = w->o;
    o.progress = NULL;
    o.chunk_size = 0;
    o.stats = &w->st;
    int mode = hay_split_mode(sp);
    return gpu_scan_sp(w->set, cs, w->host, NULL, w->len, &o, mode, NULL, NULL,
                       NULL, mode == MODE_EACH ? hay_split_counts(sp) : NULL, "",
                       hay_now(), w->pin, sp, w->stage_threads);
}
#endif

static hay_status auto_split(const hay_patterns *set, hay_scratch *scratch,
                             const uint8_t *data, uint64_t len,
                             const hay_scan_opts *o, int mode, hay_match_fn fn,
                             void *ctx, uint64_t *count, uint64_t *counts,
                             const char *note, double t0, uint64_t probed,
                             uint64_t probe_count)
{
    auto_gpu *g = set->aux;
    split_gpu w;
    memset(&w, 0, sizeof w);
    w.set = set;
    w.host = data;
    w.len = len;
    w.o = *o;
    uint64_t piece = g->split_piece ? g->split_piece : SPLIT_PIECE;
    hay_scan_opts co = *o;
    unsigned keep = g->keep;
    if (g->split == SPLIT_HEAVY || g->split == SPLIT_AUTO) {
        /* The GPU side stages with most of the cores, as alone, and the
         * cores it does not need search from the front, also while the
         * GPU starts up; the other threads search only if it fails (no
         * GPU).  H200 host, 16 cores: 12 copy threads and 3 CPU threads
         * (docs/PERF.md "The split that adds up"). */
        unsigned cores = hay_cpu_count();
        keep = split_keep(g, cores);
        w.stage_threads = cores > keep + 1 ? cores - keep - 1 : 1;
        unsigned all = cores > 1 ? cores - 1 : 1;
        if (co.threads == 0 || co.threads > all)
            co.threads = all;
        if (keep > co.threads)
            keep = co.threads;
    } else if (g->split != SPLIT_EMULATE) {
        unsigned cores = hay_cpu_count();
        /* The GPU side pins a shared mapping in place (unless transfer=
         * says otherwise: measured faster, docs/PERF.md), else stages it
         * with copy threads. */
        w.pin = g->reg && hay_hostreg_eligible(data, len);
        unsigned gpu_cores = w.pin ? SPLIT_GPU_CORES_REG + g->reg_threads : SPLIT_GPU_CORES;
        unsigned cap = cores > gpu_cores + 1 ? cores - gpu_cores : 1;
        if (co.threads == 0 || co.threads > cap)
            co.threads = cap;
    }
    o = &co;
    hay_split_cfg cfg = { piece, g->split_buffer, hay_split_host_worker,
                          &g->emulate_piece, keep, probed, probe_count };
#ifdef HAY_HAVE_CUDA
    if (g->split != SPLIT_EMULATE) {
        cfg.worker = split_gpu_worker;
        cfg.wctx = &w;
    }
#endif
    hay_split_result res;
    hay_status s = hay_split_scan(set, scratch, data, len, o, mode, fn, ctx, count,
                                  counts, &cfg, &res);
    if (!o->stats)
        return s;
    bool emulated = g->split == SPLIT_EMULATE;
    if (!emulated && !w.ran && w.why)
        note = w.why;   /* no usable GPU */
    else if (res.worker_status < 0)
        note = "split: the GPU failed; the CPU searched the pieces it had not finished";
    else if (res.redone_bytes)
        note = "split between CPU threads and the GPU; the CPU searched again the "
               "pieces whose matches were over the list budget (split_buffer)";
    else if (!emulated && res.worker_bytes == 0)
        note = "split: the CPU finished before the GPU took a piece";
    cpu_stats(set, o, t0, len, res.matches, note);
    hay_scan_stats *st = o->stats;
    if (w.ran && res.worker_bytes) {
        st->backend = HAY_BACKEND_CUDA;
        st->algo = w.st.algo;
        st->init_seconds = w.st.init_seconds;
        st->prepare_seconds = w.st.prepare_seconds;
        st->copy_in_seconds = w.st.copy_in_seconds;
        st->kernel_seconds = w.st.kernel_seconds;
        st->copy_out_seconds = w.st.copy_out_seconds;
    }
    st->split_cpu_bytes = res.cpu_bytes;
    st->split_gpu_bytes = res.worker_bytes;
    st->split_cpu_seconds = res.cpu_seconds;
    st->split_gpu_seconds = res.worker_seconds;
    return s;
}

typedef struct count_fwd {
    hay_match_fn fn;
    void *ctx;
    uint64_t n;
} count_fwd;

static int count_fwd_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    count_fwd *c = ctx;
    c->n++;
    return c->fn(id, start, end, c->ctx);
}

/* One auto scan in mode MODE_*: to fn, into *count, or into counts. */
static hay_status auto_run(const hay_patterns *set, hay_scratch *scratch,
                           const uint8_t *data, uint64_t len,
                           const hay_scan_opts *o, int mode, hay_match_fn fn,
                           void *ctx, uint64_t *count, uint64_t *counts)
{
    const char *note;
    void *gpu;
    double t0 = hay_now();
    uint64_t probed, probe_count;
    int where = auto_pick(set, scratch, data, len, o, mode, &note, &gpu, &probed,
                          &probe_count);
    if (where == RUN_SPLIT)
        return auto_split(set, scratch, data, len, o, mode, fn, ctx, count, counts,
                          note, t0, mode == MODE_COUNT ? probed : 0, probe_count);
#ifdef HAY_HAVE_CUDA
    if (where == RUN_GPU)
        return gpu_scan(set, gpu, data, NULL, len, o, mode, fn, ctx, count, counts,
                        note, t0);
#endif
    hay_status s;
    uint64_t n = 0;
    if (mode == MODE_LIST) {
        count_fwd c = { fn, ctx, 0 };
        s = hay_cpu_backend.scan(set, scratch, data, len, o, count_fwd_cb, &c);
        n = c.n;
    } else if (mode == MODE_COUNT && probed && probed <= len && !o->progress) {
        /* The probe of the CPU's rate counted the matches ending in its
         * first probed bytes: the rest is searched from longest - 1 bytes
         * before it, less the matches ending there. */
        uint64_t back = set->max_len - 1, lo = probed > back ? probed - back : 0;
        uint64_t rest = 0, under = 0;
        s = hay_cpu_backend.count(set, scratch, data + lo, len - lo, o, &rest);
        if (s == HAY_OK && probed > lo)
            s = hay_cpu_backend.count(set, scratch, data + lo, probed - lo, o, &under);
        *count = probe_count + rest - under;
        n = *count;
    } else if (mode == MODE_COUNT) {
        s = hay_cpu_backend.count(set, scratch, data, len, o, count);
        n = *count;
    } else {
        s = hay_cpu_backend.scan(set, scratch, data, len, o, hay_count_each_cb, counts);
        for (size_t i = 0; i < set->n; i++)
            n += counts[i];
    }
    cpu_stats(set, o, t0, len, n, note);
    return s;
}

static hay_status auto_scan(const hay_patterns *set, hay_scratch *scratch,
                            const uint8_t *data, uint64_t len,
                            const hay_scan_opts *o, hay_match_fn fn, void *ctx)
{
    return auto_run(set, scratch, data, len, o, MODE_LIST, fn, ctx, NULL, NULL);
}

static hay_status auto_count(const hay_patterns *set, hay_scratch *scratch,
                             const uint8_t *data, uint64_t len,
                             const hay_scan_opts *o, uint64_t *count)
{
    return auto_run(set, scratch, data, len, o, MODE_COUNT, NULL, NULL, count, NULL);
}

static hay_status auto_count_each(const hay_patterns *set, hay_scratch *scratch,
                                  const uint8_t *data, uint64_t len,
                                  const hay_scan_opts *o, uint64_t *counts)
{
    return auto_run(set, scratch, data, len, o, MODE_EACH, NULL, NULL, NULL, counts);
}

static const char *const auto_algos[] = { NULL };

const hay_backend_ops hay_auto_backend = {
    HAY_BACKEND_CPU, "cpu", auto_available, auto_device_count, auto_describe,
    auto_algos,
    auto_compile, auto_destroy, auto_scan, auto_count, auto_count_each,
};

/* Device-resident buffers ------------------------------------------------- */

struct hay_buffer {
    hay_backend backend;
    int dev;
    const uint8_t *host;     /* CPU buffers */
    uint8_t *d_base;         /* CUDA buffers: padded allocation */
    const uint8_t *d_data;
    uint64_t len;
};

hay_backend hay_buffer_backend(const hay_buffer *buf)
{
    return buf ? buf->backend : HAY_BACKEND_AUTO;
}

hay_status hay_buffer_create(hay_backend backend, const void *data,
                             uint64_t len, hay_buffer **out)
{
    RETURN_ERROR_IF(!out, HAY_ERR_INVALID);
    *out = NULL;
    RETURN_ERROR_IF(!data && len, HAY_ERR_INVALID);
    RETURN_ERROR_IF(backend != HAY_BACKEND_AUTO && backend != HAY_BACKEND_CPU &&
                    backend != HAY_BACKEND_CUDA, HAY_ERR_UNSUPPORTED);
    hay_buffer *b = calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, HAY_ERR_NOMEM);
    b->len = len;
    b->backend = HAY_BACKEND_CPU;
    b->host = data;
#ifdef HAY_HAVE_CUDA
    if (backend == HAY_BACKEND_AUTO && cuda_available() == HAY_OK)
        backend = HAY_BACKEND_CUDA;
    if (backend == HAY_BACKEND_CUDA) {
        b->backend = HAY_BACKEND_CUDA;
        b->host = NULL;
        b->dev = default_device();
        hay_status s = cuda_available();
        if (s == HAY_OK)
            s = b->dev < 0 ? HAY_ERR_INVALID : ctx_enter(b->dev, NULL);
        if (s == HAY_OK)
            s = cuda_status(cudaMalloc((void **)&b->d_base, len + 2 * HAY_CUDA_PAD));
        if (s == HAY_OK)
            s = cuda_status(cudaMemset(b->d_base, 0, len + 2 * HAY_CUDA_PAD));
        if (s == HAY_OK && len) {
            b->d_data = b->d_base + HAY_CUDA_PAD;
            s = cuda_status(cudaMemcpy(b->d_base + HAY_CUDA_PAD, data, len,
                                       cudaMemcpyHostToDevice));
        }
        b->d_data = b->d_base + HAY_CUDA_PAD;
        if (s < 0) {
            cudaFree(b->d_base);
            free(b);
            return s;
        }
    }
#else
    if (backend == HAY_BACKEND_CUDA) {
        free(b);
        return HAY_ERR_NO_BACKEND;
    }
#endif
    *out = b;
    return HAY_OK;
}

void hay_buffer_free(hay_buffer *b)
{
    if (!b)
        return;
#ifdef HAY_HAVE_CUDA
    if (b->d_base) {
        cudaSetDevice(b->dev);
        cudaFree(b->d_base);
        cudaGetLastError();
    }
#endif
    free(b);
}

/* The GPU state that scans a CUDA buffer with `set`, or an error. */
static hay_status buffer_gpu(const hay_patterns *set, const hay_buffer *b,
                             void **cs)
{
    *cs = NULL;
#ifdef HAY_HAVE_CUDA
    if (set->backend == &hay_cuda_backend) {
        *cs = set->state;
    } else if (set->backend == &hay_auto_backend) {
        const char *why;
        *cs = auto_gpu_get(set, &why);
        RETURN_ERROR_IF(!*cs, HAY_ERR_NO_DEVICE);
    }
    RETURN_ERROR_IF(!*cs, HAY_ERR_UNSUPPORTED);
    RETURN_ERROR_IF(((cuda_set *)*cs)->dev != b->dev, HAY_ERR_INVALID);
    return HAY_OK;
#else
    (void)set; (void)b;
    return HAY_ERR_UNSUPPORTED;
#endif
}

#ifdef HAY_HAVE_CUDA
static int count_fwd_one(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}
#endif

static hay_status buffer_scan_mode(const hay_patterns *set, hay_scratch *scratch,
                                   const hay_buffer *b, const hay_scan_opts *opts,
                                   int mode, hay_match_fn fn, void *ctx,
                                   uint64_t *count, uint64_t *counts)
{
    RETURN_ERROR_IF(!set || !scratch || !b, HAY_ERR_INVALID);
    if (b->backend == HAY_BACKEND_CPU) {
        if (mode == 2)
            return hay_scan(set, scratch, b->host, b->len, opts, fn, ctx);
        if (mode == 0)
            return hay_scan_count(set, scratch, b->host, b->len, opts, count);
        return hay_scan_count_each(set, scratch, b->host, b->len, opts, counts);
    }
    void *cs;
    FORWARD_IF_ERROR(buffer_gpu(set, b, &cs));
    hay_scan_opts defaults;
    if (!opts) {
        hay_scan_opts_init(&defaults);
        opts = &defaults;
    }
    if (counts)
        memset(counts, 0, set->n * sizeof *counts);
    if (count)
        *count = 0;
    if (b->len == 0)
        return HAY_OK;
#ifdef HAY_HAVE_CUDA
    if (set->mode != HAY_MATCH_ALL) {
        /* The leftmost modes select from the list of all occurrences,
         * as hay_scan does for host inputs. */
        hay_match_fn to = mode == 2 ? fn : mode == 1 ? hay_count_each_cb : count_fwd_one;
        void *tctx = mode == 2 ? ctx : mode == 1 ? (void *)counts : (void *)count;
        hay_leftmost *f;
        FORWARD_IF_ERROR(hay_leftmost_create(set, to, tctx, &f));
        hay_status s = gpu_scan(set, cs, NULL, b->d_data, b->len, opts, MODE_LIST,
                                hay_leftmost_match, f, NULL, NULL,
                                "device-resident buffer; CUDA", hay_now());
        if (s == HAY_OK && hay_leftmost_flush(f))
            s = HAY_STOPPED;
        hay_leftmost_free(f);
        return s;
    }
    return gpu_scan(set, cs, NULL, b->d_data, b->len, opts,
                    mode == 2 ? MODE_LIST : mode == 1 ? MODE_EACH : MODE_COUNT,
                    fn, ctx, count, counts, "device-resident buffer; CUDA",
                    hay_now());
#else
    (void)cs; (void)fn; (void)ctx;
    return HAY_ERR_UNSUPPORTED;
#endif
}

hay_status hay_scan_buffer(const hay_patterns *set, hay_scratch *scratch,
                           const hay_buffer *buf, const hay_scan_opts *opts,
                           hay_match_fn on_match, void *ctx)
{
    RETURN_ERROR_IF(!on_match, HAY_ERR_INVALID);
    return buffer_scan_mode(set, scratch, buf, opts, 2, on_match, ctx, NULL, NULL);
}

hay_status hay_scan_count_buffer(const hay_patterns *set, hay_scratch *scratch,
                                 const hay_buffer *buf,
                                 const hay_scan_opts *opts, uint64_t *count)
{
    RETURN_ERROR_IF(!count, HAY_ERR_INVALID);
    *count = 0;
    return buffer_scan_mode(set, scratch, buf, opts, 0, NULL, NULL, count, NULL);
}

hay_status hay_scan_count_each_buffer(const hay_patterns *set,
                                      hay_scratch *scratch,
                                      const hay_buffer *buf,
                                      const hay_scan_opts *opts,
                                      uint64_t *counts)
{
    RETURN_ERROR_IF(!counts, HAY_ERR_INVALID);
    return buffer_scan_mode(set, scratch, buf, opts, 1, NULL, NULL, NULL, counts);
}
