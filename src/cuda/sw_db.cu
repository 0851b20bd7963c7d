// sw_db.cu - the database search on the GPU (src/align/db_device.h): the
// targets resident on the device, length-sorted; queries scored in
// batches by the kernels of sw_db_kernels.cu (16 bits, two targets a lane,
// and 32 bits for what may have saturated); each query's best hits chosen
// on the device by a segmented radix sort of (score, target) keys, and
// only top_k per query copied back.  A hay_swdb_gpu serves one call at a
// time (its device buffers are reused from call to call).  The database
// must fit in device memory (HAY_ERR_TOO_LARGE otherwise): the caller,
// src/align/db_search.c, searches a larger one in parts.
//
// Parameters: bits, rows, scratch, batch, db_max and device, declared with
// their meanings in cuda_params.c.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "../../include/haystack.h"
#include "../align/db_device.h"
#include "cuda_engine.h"
#include "cuda_params.h"
#include "sw_db.cuh"

// The CUDA backend's driver start and contexts (driver.h, context.c): one
// per device and process, whoever asks first.
extern "C" int hay_cuda_devices(void);
extern "C" hay_status hay_cuda_ctx_enter(int dev, double *paid);

#define SWDB_CUDA(call)                          \
    do {                                         \
        cudaError_t e_ = (call);                 \
        if (e_ != cudaSuccess) {                 \
            st = hay_cuda_status((int)e_);       \
            goto fail;                           \
        }                                        \
    } while (0)
#define SWDB_CHECK_ST(expr)                      \
    do {                                         \
        st = (expr);                             \
        if (st != HAY_OK)                        \
            goto fail;                           \
    } while (0)
#define SWDB_CHECK(expr)                         \
    do {                                         \
        int r_ = (expr);                         \
        if (r_ != 0) {                           \
            st = hay_cuda_status(r_);            \
            goto fail;                           \
        }                                        \
    } while (0)

// A device buffer that grows on demand (contents not kept).
typedef struct swdb_buf {
    void *d;
    size_t cap;
} swdb_buf;

static cudaError_t swdb_reserve(swdb_buf *b, size_t bytes)
{
    if (bytes <= b->cap && b->d != NULL)
        return cudaSuccess;
    cudaFree(b->d);
    b->d = NULL;
    b->cap = 0;
    cudaError_t e = cudaMalloc(&b->d, bytes > 16 ? bytes : 16);
    if (e == cudaSuccess)
        b->cap = bytes;
    return e;
}

struct hay_swdb_gpu {
    int device, sms;
    size_t ntargets;
    uint64_t residues;
    int alpha, go, ge;
    int32_t *mat;                 // alpha x alpha, host copy
    int maxs;                     // largest matrix entry (>= 0)
    int use16;                    // the 16-bit kernel may run
    int maxlen;                   // longest target
    int32_t *h_len;               // sorted lengths
    uint32_t *h_perm;             // sorted index -> caller's index
    uint8_t *d_codes;             // one allocation: codes, then off, len, perm
    uint64_t *d_off;
    int32_t *d_len;
    uint32_t *d_perm;             // sorted index -> the hits' id
    size_t scratch_budget, batch_budget;
    size_t db_max;                // 0 or the largest database held (db_max=)
    cudaStream_t stream;
    cudaEvent_t ev[4];
    swdb_buf scores, rlist, keys0, keys1, cub, temp, small, prof8, prof32;
    int32_t *h_rcount;
    size_t h_rcount_cap;
    int max_launches;             // task counters in g->small
    int rows;                     // rows a thread for long queries: 0 (choose), 16, 32
};

// The monotonic clock of the timelines (hay_align_phase).
static double swdb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// ---- small kernels ---------------------------------------------------

// Every score -1 (may have saturated 16 bits) goes to its row's list.
static __global__ void swdb_collect(const int32_t *scores, size_t nt, int rows, int32_t *rlist,
                                    int32_t *rcount)
{
    size_t n = nt * (size_t)rows;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (scores[i] < 0) {
            size_t r = i / nt;
            int k = atomicAdd(&rcount[r], 1);
            rlist[r * nt + (size_t)k] = (int32_t)(i - r * nt);
        }
}

// Sort keys: score above, complement of the caller's index below, so a
// descending sort gives score desc, index asc; scores under lo give 0.
static __global__ void swdb_make_keys(const int32_t *scores, const uint32_t *perm, size_t nt,
                                      int rows, int32_t lo, unsigned long long *keys)
{
    size_t n = nt * (size_t)rows;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int32_t s = scores[i];
        uint32_t orig = perm[i % nt];
        keys[i] = s >= lo ? ((unsigned long long)(uint32_t)s << 32) | (unsigned long long)(~orig)
                          : 0ull;
    }
}

// The first k keys of every row.
static __global__ void swdb_gather(const unsigned long long *keys, size_t nt, int rows, size_t k,
                                   unsigned long long *out)
{
    size_t n = k * (size_t)rows;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = keys[(i / k) * nt + i % k];
}

// ---- create / free ---------------------------------------------------

// The keys are declared in cuda_params.c (hay_cuda_swdb_param_table).
static int swdb_parse(hay_swdb_gpu *g, const char *params, int *force32, int *device)
{
    hay_cuda_swdb_params v;
    const hay_param_table *const table = &hay_cuda_swdb_param_table;
    void *const values = &v;
    int st = hay_params_parse(params, &table, 1, &values, false, NULL);
    if (st < 0)
        return st;
    *force32 = v.bits == HAY_SWDB_BITS_32;
    g->rows = (int)v.rows;
    g->scratch_budget = (size_t)v.scratch;
    g->batch_budget = (size_t)v.batch;
    g->db_max = (size_t)v.db_max;
    if (*device < 0 && hay_params_given(table, &v, "device"))
        *device = (int)v.device;
    return HAY_OK;
}

// Sort keys of the length order: longest first, then the caller's order.
static int swdb_cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

extern "C" void hay_cuda_swdb_free(hay_swdb_gpu *g)
{
    if (g == NULL)
        return;
    if (g->device < 0) {   // no device memory or stream yet
        free(g->mat);
        free(g->h_len);
        free(g->h_perm);
        free(g);
        return;
    }
    cudaSetDevice(g->device);
    cudaFree(g->d_codes);   // the offsets, lengths and permutation too
    swdb_buf *bufs[] = {&g->scores, &g->rlist, &g->keys0, &g->keys1, &g->cub,
                        &g->temp,   &g->small, &g->prof8, &g->prof32};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cudaFree(bufs[i]->d);
    for (int i = 0; i < 4; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    cudaGetLastError();
    free(g->mat);
    free(g->h_len);
    free(g->h_perm);
    free(g->h_rcount);
    free(g);
}

// The device copy of the database is one allocation, filled by one copy:
// the codes, then the offsets, lengths and permutation, each 8-aligned.
static size_t swdb_up8(size_t n) { return (n + 7) & ~(size_t)7; }

extern "C" int hay_cuda_swdb_create_traced(const hay_swdb_targets *db, const uint32_t *ids,
                                           const hay_swdb_scoring *sc, int device,
                                           const char *params, hay_swdb_timeline *tl,
                                           hay_swdb_gpu **out)
{
    int st = HAY_OK, ndev = 0, force32 = 0, mins = 0;
    hay_swdb_gpu *g = NULL;
    uint8_t *h_all = NULL;
    uint64_t *h_off = NULL;
    uint8_t *h_codes;
    size_t nt, na, at_off, at_len, at_perm, all_bytes;
    uint64_t total = 0;
    double t0 = swdb_now();

    if (out == NULL)
        return HAY_ERR_INVALID;
    *out = NULL;
    if (db == NULL || sc == NULL || sc->matrix == NULL || sc->alpha < 1 || sc->alpha > 32 ||
        sc->gap_open < 0 || sc->gap_extend < 0 || (db->ntargets > 0 && (db->offset == NULL)))
        return HAY_ERR_INVALID;
    if (sc->gap_open > (1 << 24) || sc->gap_extend > (1 << 24))
        return HAY_ERR_TOO_LARGE;
    nt = db->ntargets;
    if (nt >= (1u << 31) - 1)
        return HAY_ERR_TOO_LARGE;
    g = (hay_swdb_gpu *)calloc(1, sizeof *g);
    if (g == NULL)
        return HAY_ERR_NOMEM;
    g->device = -1;   // no context entered yet (hay_cuda_swdb_free)
    if (swdb_parse(g, params, &force32, &device) != HAY_OK) {
        free(g);
        return HAY_ERR_INVALID;
    }
    g->ntargets = nt;
    g->alpha = sc->alpha;
    g->go = sc->gap_open;
    g->ge = sc->gap_extend;
    na = (size_t)sc->alpha * (size_t)sc->alpha;
    g->mat = (int32_t *)malloc(na * sizeof(int32_t));
    g->h_len = (int32_t *)malloc((nt + 1) * sizeof(int32_t));
    g->h_perm = (uint32_t *)malloc((nt + 1) * sizeof(uint32_t));
    h_off = (uint64_t *)malloc((nt + 1) * sizeof(uint64_t));
    if (g->mat == NULL || g->h_len == NULL || g->h_perm == NULL || h_off == NULL) {
        st = HAY_ERR_NOMEM;
        goto fail;
    }
    memcpy(g->mat, sc->matrix, na * sizeof(int32_t));
    for (size_t k = 0; k < na; k++) {
        int32_t v = g->mat[k];
        if (v > (1 << 24) || v < -(1 << 24)) {
            st = HAY_ERR_TOO_LARGE;
            goto fail;
        }
        if (v > g->maxs)
            g->maxs = v;
        if (v < mins)
            mins = v;
    }
    g->use16 = !force32 && g->maxs <= 127 && mins >= -127 && g->go <= 16000 && g->ge <= 16000;

    // Length-sorted order (longest first, then the caller's order), each
    // target padded with code alpha to a multiple of 4 bytes.
    for (size_t k = 0; k < nt; k++) {
        if (db->offset[k + 1] < db->offset[k]) {
            st = HAY_ERR_INVALID;
            goto fail;
        }
        if (db->offset[k + 1] - db->offset[k] >= (1u << 30)) {
            st = HAY_ERR_TOO_LARGE;
            goto fail;
        }
    }
    {
        uint64_t *keys = (uint64_t *)malloc((nt + 1) * sizeof(uint64_t));
        if (keys == NULL) {
            st = HAY_ERR_NOMEM;
            goto fail;
        }
        for (size_t k = 0; k < nt; k++)
            keys[k] = ((uint64_t)((1u << 30) - (db->offset[k + 1] - db->offset[k])) << 32) | k;
        qsort(keys, nt, sizeof(uint64_t), swdb_cmp_u64);
        for (size_t k = 0; k < nt; k++)
            g->h_perm[k] = (uint32_t)keys[k];
        free(keys);
    }
    for (size_t k = 0; k < nt; k++) {
        uint32_t o = g->h_perm[k];
        uint64_t len = db->offset[o + 1] - db->offset[o];
        g->h_len[k] = (int32_t)len;
        h_off[k] = total;
        total += (len + 3) & ~(uint64_t)3;
        g->residues += len;
    }
    h_off[nt] = total;
    g->h_len[nt] = 0;
    g->h_perm[nt] = 0;
    g->maxlen = nt ? g->h_len[0] : 0;
    at_off = swdb_up8((size_t)total + 4);
    at_len = at_off + (nt + 1) * sizeof(uint64_t);
    at_perm = at_len + swdb_up8((nt + 1) * sizeof(int32_t));
    all_bytes = at_perm + (nt + 1) * sizeof(uint32_t);
    h_all = (uint8_t *)malloc(all_bytes);
    if (h_all == NULL) {
        st = HAY_ERR_NOMEM;
        goto fail;
    }
    h_codes = h_all;
    memset(h_codes + total, sc->alpha, at_off - (size_t)total);
    for (size_t k = 0; k < nt; k++) {
        uint32_t o = g->h_perm[k];
        const uint8_t *src = db->codes + db->offset[o];
        size_t len = (size_t)g->h_len[k];
        for (size_t i = 0; i < len; i++)
            if (src[i] >= sc->alpha) {
                st = HAY_ERR_INVALID;
                goto fail;
            }
        memcpy(h_codes + h_off[k], src, len);
        memset(h_codes + h_off[k] + len, sc->alpha, (size_t)(h_off[k + 1] - h_off[k]) - len);
    }
    memcpy(h_all + at_off, h_off, (nt + 1) * sizeof(uint64_t));
    memcpy(h_all + at_len, g->h_len, (nt + 1) * sizeof(int32_t));
    {
        // The ids hits are reported and ranked by.
        uint32_t *d_ids = (uint32_t *)(h_all + at_perm);
        for (size_t k = 0; k <= nt; k++)
            d_ids[k] = ids && k < nt ? ids[g->h_perm[k]] : g->h_perm[k];
    }
    hay_swdb_phase_add(tl, "gpu:db_layout", t0, swdb_now());

    // The driver and the context: once per process, shared with the
    // pattern search and with hay_cuda_swdb_warm_up (context.c).
    t0 = swdb_now();
    ndev = hay_cuda_devices();
    hay_swdb_phase_add(tl, "gpu:driver", t0, swdb_now());
    if (ndev < 1) {
        st = HAY_ERR_NO_DEVICE;
        goto fail;
    }
    if (device >= ndev) {
        st = HAY_ERR_NO_DEVICE;
        goto fail;
    }
    if (device < 0)
        SWDB_CUDA(cudaGetDevice(&device));
    t0 = swdb_now();
    st = hay_cuda_ctx_enter(device, NULL);
    if (st != HAY_OK)
        goto fail;
    hay_swdb_phase_add(tl, "gpu:context", t0, swdb_now());
    g->device = device;
    t0 = swdb_now();
    SWDB_CUDA(cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device));
    SWDB_CUDA(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    for (int i = 0; i < 4; i++)
        SWDB_CUDA(cudaEventCreate(&g->ev[i]));
    {
        size_t fr = 0, tot = 0;
        SWDB_CUDA(cudaMemGetInfo(&fr, &tot));
        // The database stays resident; the caller searches a larger one in
        // parts (db_search.c).
        if (total + (nt + 1) * 16 > fr || (g->db_max && total > g->db_max)) {
            st = HAY_ERR_TOO_LARGE;
            goto fail;
        }
        fr -= (size_t)total;
        if (g->scratch_budget == 0)
            g->scratch_budget = fr / 8 < (1u << 30) ? fr / 8 : (1u << 30);
        if (g->batch_budget == 0)
            g->batch_budget = fr / 4 < (4ull << 30) ? fr / 4 : (4ull << 30);
    }
    hay_swdb_phase_add(tl, "gpu:setup", t0, swdb_now());
    t0 = swdb_now();
    SWDB_CUDA(cudaMalloc((void **)&g->d_codes, all_bytes));
    g->d_off = (uint64_t *)(g->d_codes + at_off);
    g->d_len = (int32_t *)(g->d_codes + at_len);
    g->d_perm = (uint32_t *)(g->d_codes + at_perm);
    hay_swdb_phase_add(tl, "gpu:db_alloc", t0, swdb_now());
    // On the search's stream: a cudaMemcpy from pageable memory may return
    // before its DMA has landed, and the stream is non-blocking (it does not
    // wait for the legacy stream), so a search right after could read the
    // database half copied.  Pageable: pinning this one copy's buffer would
    // cost more than the copy (1.3 MB for the E. coli proteome); the call
    // returns once the buffer is staged, so it can be freed.
    t0 = swdb_now();
    SWDB_CUDA(cudaMemcpyAsync(g->d_codes, h_all, all_bytes, cudaMemcpyHostToDevice, g->stream));
    hay_swdb_phase_add(tl, "gpu:db_upload", t0, swdb_now());
    free(h_all);
    free(h_off);
    *out = g;
    return HAY_OK;
fail:
    free(h_all);
    free(h_off);
    hay_cuda_swdb_free(g);
    return st;
}

extern "C" int hay_cuda_swdb_create(const hay_swdb_targets *db, const hay_swdb_scoring *sc,
                                    int device, const char *params, hay_swdb_gpu **out)
{
    return hay_cuda_swdb_create_traced(db, NULL, sc, device, params, NULL, out);
}

extern "C" int hay_cuda_swdb_device(const hay_swdb_gpu *g) { return g->device; }

extern "C" int hay_cuda_swdb_release(int device, hay_swdb_timeline *tl)
{
    double t0 = swdb_now();
    int st = hay_cuda_status((int)cudaSetDevice(device));
    if (st == HAY_OK)
        st = hay_cuda_status((int)cudaDeviceReset());
    hay_swdb_phase_add(tl, "release:reset", t0, swdb_now());
    return st;
}

// Loads kernel k now (the runtime otherwise loads it at its first launch).
template <typename K> static int swdb_load(K *k)
{
    cudaFuncAttributes fa;
    return (int)cudaFuncGetAttributes(&fa, k);
}

extern "C" int hay_cuda_swdb_warm_up(const char *params, hay_swdb_timeline *tl)
{
    hay_swdb_gpu probe;
    int st = HAY_OK, force32 = 0, device = -1, per_sm = 0;
    double t0 = swdb_now();
    size_t cub_bytes = 0;
    unsigned long long *d_keys = NULL;
    int *d_seg = NULL;
    void *d_tmp = NULL;
    const int n = 2048, segs = 2;
    const int seg_h[3] = {0, n / 2, n};

    memset(&probe, 0, sizeof probe);
    if (swdb_parse(&probe, params, &force32, &device) != HAY_OK)
        return HAY_ERR_INVALID;
    int ndev = hay_cuda_devices();
    hay_swdb_phase_add(tl, "warm:driver", t0, swdb_now());
    if (ndev < 1)
        return HAY_ERR_NO_DEVICE;
    if (device < 0)
        device = 0;
    t0 = swdb_now();
    st = hay_cuda_ctx_enter(device, NULL);
    if (st != HAY_OK)
        return st;
    hay_swdb_phase_add(tl, "warm:context", t0, swdb_now());
    // The score kernels (every shape, both widths) and the small ones.
    t0 = swdb_now();
    for (int gi = 0; gi < SWDB_SHAPES; gi++) {
        SWDB_CHECK(swdb_occupancy(16, swdb_shape_g[gi], swdb_shape_r[gi], &per_sm));
        if (swdb_shape_r[gi] == 16)
            SWDB_CHECK(swdb_occupancy(32, swdb_shape_g[gi], 16, &per_sm));
    }
    SWDB_CHECK(swdb_load(swdb_collect));
    SWDB_CHECK(swdb_load(swdb_make_keys));
    SWDB_CHECK(swdb_load(swdb_gather));
    hay_swdb_phase_add(tl, "warm:kernels_load", t0, swdb_now());
    // The top-k's segmented sort: one small sort, so that every kernel it
    // launches is loaded (and its first-call set-up paid).
    t0 = swdb_now();
    SWDB_CUDA(cub::DeviceSegmentedRadixSort::SortKeysDescending(
        NULL, cub_bytes, (const unsigned long long *)NULL, (unsigned long long *)NULL, n, segs,
        (int *)NULL, (int *)NULL + 1, 0, 64, (cudaStream_t)0));
    SWDB_CUDA(cudaMalloc((void **)&d_keys, 2 * (size_t)n * 8));
    SWDB_CUDA(cudaMalloc((void **)&d_seg, sizeof seg_h));
    SWDB_CUDA(cudaMalloc(&d_tmp, cub_bytes ? cub_bytes : 1));
    SWDB_CUDA(cudaMemset(d_keys, 0, 2 * (size_t)n * 8));
    SWDB_CUDA(cudaMemcpy(d_seg, seg_h, sizeof seg_h, cudaMemcpyHostToDevice));
    SWDB_CUDA(cub::DeviceSegmentedRadixSort::SortKeysDescending(
        d_tmp, cub_bytes, (const unsigned long long *)d_keys, d_keys + n, n, segs, d_seg,
        d_seg + 1, 0, 64, (cudaStream_t)0));
    SWDB_CUDA(cudaDeviceSynchronize());
    hay_swdb_phase_add(tl, "warm:select_load", t0, swdb_now());
fail:
    cudaFree(d_keys);
    cudaFree(d_seg);
    cudaFree(d_tmp);
    if (st != HAY_OK)
        cudaGetLastError();
    return st;
}

// ---- one batch of queries --------------------------------------------

// Per-batch host plan: profile offsets and row groups.
typedef struct swdb_plan {
    int rows;
    int32_t *qmpad;       // per row
    uint64_t *qprof8, *qprof32;
    int32_t *qrow;        // rows ordered by group (8, 4, 2, 1)
    int gstart[SWDB_SHAPES + 1];   // rows of shape x: qrow[gstart[x] .. gstart[x + 1])
    int maxpass[SWDB_SHAPES];      // most passes (of the shape's kernel) of its rows
    size_t prof8_n, prof32_n;
} swdb_plan;

// Block slots of one segment of a launch whose longest target is L, and
// the scratch each slot needs (per_slot; 0 when a query takes one pass).
static void swdb_slots(const hay_swdb_gpu *g, int upb, long resident, int maxpass, int L,
                       long *slots, long *seg_cap, size_t *per_slot)
{
    *slots = resident;
    *seg_cap = 0;
    *per_slot = 0;
    if (maxpass <= 1)
        return;
    *per_slot = (size_t)upb * (size_t)(L > 0 ? L : 1) * sizeof(uint2);
    long fit = (long)(g->scratch_budget / *per_slot);
    if (fit < 1)
        fit = 1;
    if (fit < *slots) {
        *slots = fit;
        *seg_cap = 8 * fit;
    }
}

// The scratch the first segment of a launch of this kernel needs (the
// largest of the launch: targets are sorted longest first, and a list's
// segments all take its longest).
static int swdb_scratch_need(const hay_swdb_gpu *g, int bits, int gs, int rs, int maxpass,
                             size_t *bytes)
{
    int per_sm = 0;
    long slots, cap;
    size_t per_slot;
    int e = swdb_occupancy(bits, gs, rs, &per_sm);
    if (e != 0)
        return e;
    swdb_slots(g, swdb_units_per_block(gs), (long)(per_sm > 0 ? per_sm : 1) * g->sms, maxpass,
               g->maxlen, &slots, &cap, &per_slot);
    *bytes = (size_t)slots * per_slot;
    return 0;
}

// Query r's profile [alpha + 1][mpad] for the 16-bit kernel (p8) or the
// 32-bit one (p32; the other NULL): the padding rows and the padding
// residue score SWDB_PAD*.
static void swdb_profile(const hay_swdb_gpu *g, const uint8_t *q, size_t m, size_t mpad,
                         int8_t *p8, int32_t *p32)
{
    const int A = g->alpha + 1;
    for (int c = 0; c < A; c++)
        for (size_t i = 0; i < mpad; i++) {
            bool pad = i >= m || c == g->alpha;
            int32_t v = pad ? 0 : g->mat[(size_t)q[i] * (size_t)g->alpha + (size_t)c];
            if (p8)
                p8[(size_t)c * mpad + i] = (int8_t)(pad ? SWDB_PAD8 : v);
            else
                p32[(size_t)c * mpad + i] = pad ? SWDB_PAD32 : v;
        }
}

// The 32-bit profiles of the batch, built and copied to g->prof32 (on the
// stream; *h32 the host copy, freed by the caller).
static int swdb_prof32(hay_swdb_gpu *g, const uint8_t *const *queries, const size_t *qlens,
                       const swdb_plan *pl, int32_t **h32)
{
    int st = HAY_OK;
    *h32 = (int32_t *)malloc(pl->prof32_n * sizeof(int32_t) + 16);
    if (*h32 == NULL)
        return HAY_ERR_NOMEM;
    memset(*h32 + pl->prof32_n, 0, 16);
    for (int r = 0; r < pl->rows; r++)
        swdb_profile(g, queries[r], qlens[r], (size_t)pl->qmpad[r], NULL,
                     *h32 + pl->qprof32[r]);
    SWDB_CUDA(swdb_reserve(&g->prof32, pl->prof32_n * sizeof(int32_t) + 16));
    SWDB_CUDA(cudaMemcpyAsync(g->prof32.d, *h32, pl->prof32_n * sizeof(int32_t) + 16,
                              cudaMemcpyHostToDevice, g->stream));
fail:
    return st;
}

// Launches the kernel over all units for the rows qrow[0 .. nq), in
// segments whose scratch fits the budget.  ulist/nunits: 32-bit units.
// *host_s: the host's time inside the launch calls (where the runtime
// loads a kernel at its first launch).
static int swdb_launch_all(hay_swdb_gpu *g, int bits, int gs, int rs, const int32_t *d_qrow, int nq,
                           int maxpass, const int32_t *d_ulist, int nunits, int tmax_list,
                           const int32_t *d_qmpad, const uint64_t *d_qprof, const void *d_prof,
                           int32_t *d_scores, int *d_counter, int *launches, double *host_s)
{
    int st = HAY_OK, per_sm = 0;
    const int upb = swdb_units_per_block(gs);
    const int nblk = (nunits + upb - 1) / upb;
    const double t0 = swdb_now();
    SWDB_CHECK(swdb_occupancy(bits, gs, rs, &per_sm));
    {
        const long resident = (long)(per_sm > 0 ? per_sm : 1) * g->sms;
        int b = 0;
        while (b < nblk) {
            // Longest target of the segment: its first unit's (sorted), or
            // the list's longest.
            int L = d_ulist ? tmax_list
                            : g->h_len[bits == 16 ? (size_t)b * upb * 2 : (size_t)b * upb];
            long slots, cap, seg = nblk - b;
            size_t per_slot;
            swdb_slots(g, upb, resident, maxpass, L, &slots, &cap, &per_slot);
            if (cap && seg > cap)
                seg = cap;
            // Reserved before the first launch (swdb_score_batch): this
            // only grows it when that estimate fell short.
            if (per_slot)
                SWDB_CUDA(swdb_reserve(&g->temp, (size_t)slots * per_slot));
            long ntasks = (long)nq * seg;
            int grid = (int)(slots < ntasks ? slots : ntasks);
            swdb_kargs a;
            memset(&a, 0, sizeof a);
            a.codes = g->d_codes;
            a.off = g->d_off;
            a.len = g->d_len;
            a.ntargets = (int)g->ntargets;
            a.ulist = d_ulist;
            a.nunits = nunits;
            a.blk0 = b;
            a.nblk = (int)seg;
            a.nq = nq;
            a.qrow = d_qrow;
            a.qmpad = d_qmpad;
            a.qprof = d_qprof;
            a.prof = d_prof;
            a.alpha = g->alpha;
            a.go = g->go;
            a.ge = g->ge;
            a.thr = 32767 - g->maxs;
            a.counter = d_counter + *launches;
            a.temp = (uint2 *)g->temp.d;
            a.tmax = L;
            a.scores = d_scores;
            if (*launches >= g->max_launches) {
                // Each launch has its own counter; wait and reuse them.
                SWDB_CUDA(cudaStreamSynchronize(g->stream));
                *launches = 0;
                a.counter = d_counter;
            }
            SWDB_CUDA(cudaMemsetAsync(a.counter, 0, sizeof(int), g->stream));
            SWDB_CHECK(swdb_launch(bits, gs, rs, grid, &a, g->stream));
            (*launches)++;
            b += (int)seg;
        }
    }
fail:
    *host_s += swdb_now() - t0;
    return st;
}

// Scores rows queries (host) into g->scores.d ([row][ntargets], sorted
// order).  Adds to *rescored and to tl's phases.
static int swdb_score_batch(hay_swdb_gpu *g, const uint8_t *const *queries, const size_t *qlens,
                            int rows, uint64_t *rescored, hay_swdb_timeline *tl)
{
    int st = HAY_OK, launches = 0;
    const size_t nt = g->ntargets;
    const int A = g->alpha + 1;
    swdb_plan pl;
    int8_t *h8 = NULL;
    int32_t *h32 = NULL;
    size_t small_bytes;
    char *hsmall = NULL;
    int32_t *d_qmpad, *d_qrow, *d_rcount, *d_counter;
    uint64_t *d_qprof8, *d_qprof32;
    const int max_launches = 64 + 4 * rows;
    double t0 = swdb_now(), launch_s = 0;

    memset(&pl, 0, sizeof pl);
    pl.rows = rows;
    g->max_launches = max_launches;
    // Host staging of the small arrays, in one block: qmpad, qrow,
    // qprof8, qprof32 (then on the device: rcount and counters).
    small_bytes = (size_t)rows * (4 + 4 + 8 + 8);
    hsmall = (char *)malloc(small_bytes);
    if (hsmall == NULL)
        return HAY_ERR_NOMEM;
    pl.qprof8 = (uint64_t *)hsmall;
    pl.qprof32 = pl.qprof8 + rows;
    pl.qmpad = (int32_t *)(pl.qprof32 + rows);
    pl.qrow = pl.qmpad + rows;
    const int wide = swdb_wide_pays(g->h_len, nt, qlens, rows, g->sms);
    for (int r = 0; r < rows; r++) {
        int x = swdb_shape(qlens[r], g->use16 ? g->rows : 16, wide);
        size_t T = (size_t)swdb_shape_g[x] * (size_t)swdb_shape_r[x];
        size_t mpad = (qlens[r] + T - 1) / T * T;
        pl.qmpad[r] = (int32_t)mpad;
        pl.qprof8[r] = pl.prof8_n;
        pl.qprof32[r] = pl.prof32_n;
        pl.prof8_n += (size_t)A * mpad;     // mpad is a multiple of 16
        pl.prof32_n += (size_t)A * mpad;
        // Passes of the 32-bit kernel (16 rows a thread), which also
        // rescores this shape's rows: as many or more.
        int np = (int)(mpad / ((size_t)swdb_shape_g[x] * 16));
        if (np > pl.maxpass[x])
            pl.maxpass[x] = np;
        pl.gstart[x + 1]++;
    }
    for (int i = 0; i < SWDB_SHAPES; i++)
        pl.gstart[i + 1] += pl.gstart[i];
    {
        int fill[SWDB_SHAPES];
        for (int i = 0; i < SWDB_SHAPES; i++)
            fill[i] = pl.gstart[i];
        for (int r = 0; r < rows; r++)
            pl.qrow[fill[swdb_shape(qlens[r], g->use16 ? g->rows : 16, wide)]++] = r;
    }
    // Profiles: the 16-bit kernel's where the scoring fits 16 bits (the
    // 32-bit ones only when a score needs rescoring, below), else the
    // 32-bit ones.
    if (g->use16) {
        h8 = (int8_t *)malloc(pl.prof8_n + 16);
        if (h8 == NULL) {
            st = HAY_ERR_NOMEM;
            goto fail;
        }
        memset(h8 + pl.prof8_n, 0, 16);
        for (int r = 0; r < rows; r++)
            swdb_profile(g, queries[r], qlens[r], (size_t)pl.qmpad[r], h8 + pl.qprof8[r], NULL);
    }
    hay_swdb_phase_add(tl, "gpu:profiles", t0, swdb_now());
    t0 = swdb_now();
    // Every buffer of the batch before its first launch: a cudaFree (of a
    // buffer that grows) waits for the device, a cudaMalloc between two
    // launches delays the second.  The scratch for multi-pass queries
    // (the 32-bit rescoring's too) is sized for the longest target.
    if (nt > 0) {
        size_t need = 0, b;
        for (int gi = 0; gi < SWDB_SHAPES; gi++) {
            if (pl.gstart[gi + 1] == pl.gstart[gi] || pl.maxpass[gi] <= 1)
                continue;
            SWDB_CHECK(swdb_scratch_need(g, g->use16 ? 16 : 32, swdb_shape_g[gi],
                                         g->use16 ? swdb_shape_r[gi] : 16, pl.maxpass[gi], &b));
            need = b > need ? b : need;
            if (g->use16) {
                SWDB_CHECK(swdb_scratch_need(g, 32, swdb_shape_g[gi], 16, pl.maxpass[gi], &b));
                need = b > need ? b : need;
            }
        }
        if (need)
            SWDB_CUDA(swdb_reserve(&g->temp, need));
        if (g->use16)
            SWDB_CUDA(swdb_reserve(&g->rlist, (size_t)rows * nt * sizeof(int32_t)));
    }
    if (g->use16) {
        SWDB_CUDA(swdb_reserve(&g->prof8, pl.prof8_n + 16));
        SWDB_CUDA(cudaMemcpyAsync(g->prof8.d, h8, pl.prof8_n + 16, cudaMemcpyHostToDevice,
                                  g->stream));
    } else {
        SWDB_CHECK_ST(swdb_prof32(g, queries, qlens, &pl, &h32));
    }
    SWDB_CUDA(swdb_reserve(&g->small, small_bytes + (size_t)(rows + max_launches) * 4 + 64));
    SWDB_CUDA(cudaMemcpyAsync(g->small.d, hsmall, small_bytes, cudaMemcpyHostToDevice, g->stream));
    d_qprof8 = (uint64_t *)g->small.d;
    d_qprof32 = d_qprof8 + rows;
    d_qmpad = (int32_t *)(d_qprof32 + rows);
    d_qrow = d_qmpad + rows;
    d_rcount = d_qrow + rows;
    d_counter = d_rcount + rows;
    SWDB_CUDA(cudaMemsetAsync(d_rcount, 0, (size_t)rows * 4, g->stream));
    SWDB_CUDA(cudaEventRecord(g->ev[0], g->stream));   // kernels start here
    hay_swdb_phase_add(tl, "gpu:batch_buffers_upload", t0, swdb_now());
    t0 = swdb_now();

    // Every row against every target: 16 bits where the scoring fits.
    for (int gi = 0; gi < SWDB_SHAPES; gi++) {
        int nq = pl.gstart[gi + 1] - pl.gstart[gi];
        if (nq == 0 || nt == 0)
            continue;
        int gs = swdb_shape_g[gi];
        if (g->use16)
            st = swdb_launch_all(g, 16, gs, swdb_shape_r[gi], d_qrow + pl.gstart[gi], nq, pl.maxpass[gi], NULL,
                                 (int)((nt + 1) / 2), 0, d_qmpad, d_qprof8, g->prof8.d,
                                 (int32_t *)g->scores.d, d_counter, &launches, &launch_s);
        else
            st = swdb_launch_all(g, 32, gs, 16, d_qrow + pl.gstart[gi], nq, pl.maxpass[gi], NULL,
                                 (int)nt, 0, d_qmpad, d_qprof32, g->prof32.d,
                                 (int32_t *)g->scores.d, d_counter, &launches, &launch_s);
        if (st != HAY_OK)
            goto fail;
    }
    hay_swdb_phase_add(tl, "gpu:launch", t0, t0 + launch_s);
    // What may have saturated, again in 32 bits.
    if (g->use16 && nt > 0) {
        swdb_collect<<<g->sms * 8, 256, 0, g->stream>>>((const int32_t *)g->scores.d, nt, rows,
                                                        (int32_t *)g->rlist.d, d_rcount);
        SWDB_CUDA(cudaGetLastError());
        if (g->h_rcount_cap < (size_t)rows) {
            free(g->h_rcount);
            g->h_rcount = (int32_t *)malloc((size_t)rows * sizeof(int32_t));
            g->h_rcount_cap = g->h_rcount ? (size_t)rows : 0;
            if (g->h_rcount == NULL) {
                st = HAY_ERR_NOMEM;
                goto fail;
            }
        }
        SWDB_CUDA(cudaMemcpyAsync(g->h_rcount, d_rcount, (size_t)rows * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, g->stream));
        t0 = swdb_now();
        SWDB_CUDA(cudaStreamSynchronize(g->stream));
        hay_swdb_phase_add(tl, "gpu:wait_16bit", t0, swdb_now());
        t0 = swdb_now();
        launch_s = 0;
        bool any = false;
        for (int r = 0; r < rows; r++)
            any = any || g->h_rcount[r] > 0;
        if (any) {
            SWDB_CHECK_ST(swdb_prof32(g, queries, qlens, &pl, &h32));
            hay_swdb_phase_add(tl, "gpu:profiles_32bit", t0, swdb_now());
            t0 = swdb_now();
        }
        for (int gi = 0; gi < SWDB_SHAPES; gi++)
            for (int x = pl.gstart[gi]; x < pl.gstart[gi + 1]; x++) {
                int r = pl.qrow[x];
                int cnt = g->h_rcount[r];
                if (cnt == 0)
                    continue;
                *rescored += (uint64_t)cnt;
                st = swdb_launch_all(g, 32, swdb_shape_g[gi], 16, d_qrow + x, 1, pl.maxpass[gi],
                                     (int32_t *)g->rlist.d + (size_t)r * nt, cnt, g->maxlen,
                                     d_qmpad, d_qprof32, g->prof32.d, (int32_t *)g->scores.d,
                                     d_counter, &launches, &launch_s);
                if (st != HAY_OK)
                    goto fail;
            }
        if (launch_s > 0)
            hay_swdb_phase_add(tl, "gpu:launch_32bit", t0, t0 + launch_s);
    }
fail:
    free(h8);
    free(h32);
    free(hsmall);
    return st;
}

// ---- search ------------------------------------------------------------

// Rows of one batch: the score and key buffers fit the batch budget, and
// one segmented sort holds fewer than 2^31 keys.
static size_t swdb_batch_rows(const hay_swdb_gpu *g, size_t nq)
{
    size_t per_row = g->ntargets * (4 + 4 + 16) + 64;
    size_t rows = g->batch_budget / per_row;
    size_t cap = g->ntargets ? ((size_t)1 << 31) / (g->ntargets + 1) : nq;
    if (rows > cap)
        rows = cap;
    if (rows < 1)
        rows = 1;
    return rows < nq ? rows : nq;
}

static int swdb_check_queries(const hay_swdb_gpu *g, const uint8_t *const *queries,
                              const size_t *qlens, size_t nq)
{
    if (nq > 0 && (queries == NULL || qlens == NULL))
        return HAY_ERR_INVALID;
    for (size_t j = 0; j < nq; j++) {
        if (qlens[j] > 0 && queries[j] == NULL)
            return HAY_ERR_INVALID;
        if (qlens[j] >= (1u << 24))
            return HAY_ERR_TOO_LARGE;
        for (size_t i = 0; i < qlens[j]; i++)
            if (queries[j][i] >= g->alpha)
                return HAY_ERR_INVALID;
    }
    return HAY_OK;
}

// Shared by search (top_k > 0: hits) and scores (top_k == 0: every score).
static int swdb_run(hay_swdb_gpu *g, const uint8_t *const *queries, const size_t *qlens,
                    size_t nq, size_t top_k, int32_t min_score, hay_swdb_hit *hits, size_t *nhits,
                    int32_t *all, hay_swdb_stats *stp)
{
    int st = HAY_OK;
    hay_swdb_stats s;
    const size_t nt = g->ntargets;
    unsigned long long *h_keys = NULL;
    int32_t *h_scores = NULL;
    int *h_segoff = NULL;
    double t0 = swdb_now(), t1;
    hay_swdb_timeline *tl = &s.tl;

    memset(&s, 0, sizeof s);
    st = swdb_check_queries(g, queries, qlens, nq);
    if (st != HAY_OK)
        return st;
    SWDB_CUDA(cudaSetDevice(g->device));
    hay_swdb_phase_add(tl, "gpu:check_queries", t0, swdb_now());
    for (size_t j = 0; j < nq; j++)
        s.cells += (uint64_t)qlens[j] * g->residues;
    if (nt == 0 || nq == 0) {
        if (nhits)
            memset(nhits, 0, nq * sizeof *nhits);
        goto done;
    }
    {
        const size_t brows = swdb_batch_rows(g, nq);
        const size_t k = top_k < nt ? top_k : nt;
        const int32_t lo = min_score > 1 ? min_score : 1;
        t1 = swdb_now();
        SWDB_CUDA(swdb_reserve(&g->scores, brows * nt * sizeof(int32_t)));
        if (top_k > 0) {
            SWDB_CUDA(swdb_reserve(&g->keys0, brows * nt * 8));
            SWDB_CUDA(swdb_reserve(&g->keys1, brows * nt * 8));
            h_keys = (unsigned long long *)malloc(brows * k * 8);
            h_segoff = (int *)malloc((brows + 1) * sizeof(int));
            if (h_keys == NULL || h_segoff == NULL) {
                st = HAY_ERR_NOMEM;
                goto fail;
            }
        } else {
            h_scores = (int32_t *)malloc(brows * nt * sizeof(int32_t));
            if (h_scores == NULL) {
                st = HAY_ERR_NOMEM;
                goto fail;
            }
        }
        hay_swdb_phase_add(tl, "gpu:search_buffers", t1, swdb_now());
        for (size_t j0 = 0; j0 < nq; j0 += brows) {
            const int rows = (int)(nq - j0 < brows ? nq - j0 : brows);
            float ms = 0;
            double tk = 0, ts = 0, tc = 0;
            st = swdb_score_batch(g, queries + j0, qlens + j0, rows, &s.rescored, tl);
            if (st != HAY_OK)
                goto fail;
            SWDB_CUDA(cudaEventRecord(g->ev[1], g->stream));
            t1 = swdb_now();
            if (top_k > 0) {
                size_t cub_bytes = 0;
                int *d_segoff;
                unsigned long long *d_out;
                for (int r = 0; r <= rows; r++)
                    h_segoff[r] = (int)((size_t)r * nt);
                swdb_make_keys<<<g->sms * 8, 256, 0, g->stream>>>(
                    (const int32_t *)g->scores.d, g->d_perm, nt, rows, lo,
                    (unsigned long long *)g->keys0.d);
                SWDB_CUDA(cudaGetLastError());
                // Many short rows: one segmented sort (a block per row);
                // long rows: a device-wide sort each.
                const bool seg = nt < 65536;
                if (seg)
                    SWDB_CUDA(cub::DeviceSegmentedRadixSort::SortKeysDescending(
                        NULL, cub_bytes, (const unsigned long long *)g->keys0.d,
                        (unsigned long long *)g->keys1.d, (int)(rows * nt), rows, (int *)NULL,
                        (int *)NULL + 1, 0, 64, g->stream));
                else
                    SWDB_CUDA(cub::DeviceRadixSort::SortKeysDescending(
                        NULL, cub_bytes, (const unsigned long long *)g->keys0.d,
                        (unsigned long long *)g->keys1.d, (int)nt, 0, 64, g->stream));
                SWDB_CUDA(swdb_reserve(&g->cub, cub_bytes + (size_t)(rows + 1) * sizeof(int) + 256));
                d_segoff = (int *)((char *)g->cub.d + ((cub_bytes + 255) & ~(size_t)255));
                if (seg) {
                    SWDB_CUDA(cudaMemcpyAsync(d_segoff, h_segoff, (size_t)(rows + 1) * sizeof(int),
                                              cudaMemcpyHostToDevice, g->stream));
                    SWDB_CUDA(cub::DeviceSegmentedRadixSort::SortKeysDescending(
                        g->cub.d, cub_bytes, (const unsigned long long *)g->keys0.d,
                        (unsigned long long *)g->keys1.d, (int)(rows * nt), rows, d_segoff,
                        d_segoff + 1, 0, 64, g->stream));
                } else {
                    for (int r = 0; r < rows; r++)
                        SWDB_CUDA(cub::DeviceRadixSort::SortKeysDescending(
                            g->cub.d, cub_bytes, (const unsigned long long *)g->keys0.d + (size_t)r * nt,
                            (unsigned long long *)g->keys1.d + (size_t)r * nt, (int)nt, 0, 64,
                            g->stream));
                }
                // The first k keys of each row, packed, into keys0.
                d_out = (unsigned long long *)g->keys0.d;
                swdb_gather<<<g->sms * 4, 256, 0, g->stream>>>(
                    (const unsigned long long *)g->keys1.d, nt, rows, k, d_out);
                SWDB_CUDA(cudaGetLastError());
                SWDB_CUDA(cudaEventRecord(g->ev[2], g->stream));
                SWDB_CUDA(cudaMemcpyAsync(h_keys, d_out, (size_t)rows * k * 8,
                                          cudaMemcpyDeviceToHost, g->stream));
                SWDB_CUDA(cudaEventRecord(g->ev[3], g->stream));
                hay_swdb_phase_add(tl, "gpu:select_launch", t1, swdb_now());
                t1 = swdb_now();
                SWDB_CUDA(cudaStreamSynchronize(g->stream));
                hay_swdb_phase_add(tl, "gpu:wait_select", t1, swdb_now());
                t1 = swdb_now();
                for (int r = 0; r < rows; r++) {
                    size_t j = j0 + (size_t)r, n = 0;
                    hay_swdb_hit *h = hits + j * top_k;
                    for (size_t i = 0; i < k; i++) {
                        unsigned long long key = h_keys[(size_t)r * k + i];
                        if (key == 0)
                            break;
                        h[n].score = (int32_t)(key >> 32);
                        h[n].target = ~(uint32_t)key;
                        n++;
                    }
                    nhits[j] = n;
                }
                hay_swdb_phase_add(tl, "gpu:hits", t1, swdb_now());
                SWDB_CUDA(cudaEventElapsedTime(&ms, g->ev[1], g->ev[2]));
                s.seconds_select += 1e-3 * ms;
                ts = 1e-3 * ms;
            } else {
                SWDB_CUDA(cudaEventRecord(g->ev[2], g->stream));
                SWDB_CUDA(cudaMemcpyAsync(h_scores, g->scores.d, (size_t)rows * nt * 4,
                                          cudaMemcpyDeviceToHost, g->stream));
                SWDB_CUDA(cudaEventRecord(g->ev[3], g->stream));
                SWDB_CUDA(cudaStreamSynchronize(g->stream));
                hay_swdb_phase_add(tl, "gpu:wait_scores", t1, swdb_now());
                for (int r = 0; r < rows; r++)
                    for (size_t x = 0; x < nt; x++)
                        all[(j0 + (size_t)r) * nt + g->h_perm[x]] = h_scores[(size_t)r * nt + x];
            }
            SWDB_CUDA(cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]));
            s.seconds_kernels += 1e-3 * ms;
            tk = 1e-3 * ms;
            SWDB_CUDA(cudaEventElapsedTime(&ms, g->ev[2], g->ev[3]));
            s.seconds_copy += 1e-3 * ms;
            tc = 1e-3 * ms;
            // The device's own times, laid back to back before the copy's
            // end (the last sync above).
            t1 = swdb_now();
            hay_swdb_phase_add(tl, "device:copy_back", t1 - tc, t1);
            hay_swdb_phase_add(tl, "device:select", t1 - tc - ts, t1 - tc);
            hay_swdb_phase_add(tl, "device:kernels", t1 - tc - ts - tk, t1 - tc - ts);
        }
    }
done:
    s.seconds_total = swdb_now() - t0;
    if (stp)
        *stp = s;
fail:
    free(h_keys);
    free(h_scores);
    free(h_segoff);
    if (st != HAY_OK)
        cudaGetLastError();
    return st;
}

extern "C" int hay_cuda_swdb_search(hay_swdb_gpu *g, const uint8_t *const *queries,
                                    const size_t *qlens, size_t nq, size_t top_k,
                                    int32_t min_score, hay_swdb_hit *hits, size_t *nhits,
                                    hay_swdb_stats *st)
{
    if (g == NULL || top_k < 1 || (nq > 0 && (hits == NULL || nhits == NULL)))
        return HAY_ERR_INVALID;
    return swdb_run(g, queries, qlens, nq, top_k, min_score, hits, nhits, NULL, st);
}

extern "C" int hay_cuda_swdb_scores(hay_swdb_gpu *g, const uint8_t *const *queries,
                                    const size_t *qlens, size_t nq, int32_t *scores,
                                    hay_swdb_stats *st)
{
    if (g == NULL || (nq > 0 && g->ntargets > 0 && scores == NULL))
        return HAY_ERR_INVALID;
    return swdb_run(g, queries, qlens, nq, 0, 0, NULL, NULL, scores, st);
}
