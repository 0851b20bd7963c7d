// sw_db.cu - the database search on the GPU (src/align/db_device.h): the
// targets resident on the device, length-sorted; queries scored in
// batches by the kernels of sw_db_kernels.cu (16 bits, two targets a lane,
// and 32 bits for what may have saturated); each query's best hits chosen
// on the device by a segmented radix sort of (score, target) keys, and
// only top_k per query copied back.  A hay_swdb_gpu serves one call at a
// time (its device buffers are reused from call to call).  The database
// must fit in device memory (HAY_ERR_TOO_LARGE otherwise): the caller,
// src/align/db_search_gpu.c, searches a larger one in parts planned from
// hay_cuda_swdb_part_room.
//
// Parameters: bits, rows, scratch, batch, db_max and device, declared with
// their meanings in cuda_params.c.
//
// This file makes and frees the device copy, starts the device ahead of a
// search (warm-up) and ends it early (release); the batches and the search
// itself are in sw_db_search.cu, what both share in sw_db_host.cuh.

#include <cub/device/device_segmented_radix_sort.cuh>

#include "sw_db_host.cuh"

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

// Whether the targets' lengths never decrease (a database file's order).
static bool swdb_lengths_rise(const uint64_t *off, size_t nt)
{
    for (size_t k = 1; k < nt; k++)
        if (off[k + 1] - off[k] < off[k] - off[k - 1])
            return false;
    return true;
}

// The largest code of a target (a loop the compiler vectorises; the
// layout checks every residue).
static uint8_t swdb_max_code(const uint8_t *p, size_t n)
{
    uint8_t m = 0;
    for (size_t i = 0; i < n; i++)
        m = p[i] > m ? p[i] : m;
    return m;
}

// The device copy of the database is one allocation, filled by one copy:
// the codes, then the offsets, lengths and permutation, each 8-aligned.
static size_t swdb_up8(size_t n) { return (n + 7) & ~(size_t)7; }

// The driver and a context on `device` (< 0: the current device), entered
// once per process and shared with the pattern search (context.c); the
// phases are timed as NAME:driver and NAME:context.  Sets *device to the
// device entered.
static int swdb_enter(int *device, hay_swdb_timeline *tl, const char *driver_phase,
                      const char *context_phase)
{
    double t0 = swdb_now();
    int ndev = hay_cuda_devices();
    hay_swdb_phase_add(tl, driver_phase, t0, swdb_now());
    if (ndev < 1 || *device >= ndev)
        return HAY_ERR_NO_DEVICE;
    if (*device < 0) {
        int st = hay_cuda_status((int)cudaGetDevice(device));
        if (st != HAY_OK)
            return st;
    }
    t0 = swdb_now();
    int st = hay_cuda_ctx_enter(*device, NULL);
    if (st == HAY_OK)
        hay_swdb_phase_add(tl, context_phase, t0, swdb_now());
    return st;
}

extern "C" int hay_cuda_swdb_create_traced(const hay_swdb_targets *db, const uint32_t *ids,
                                           const hay_swdb_scoring *sc, int device,
                                           const char *params, hay_swdb_timeline *tl,
                                           hay_swdb_gpu **out)
{
    int st = HAY_OK, force32 = 0, mins = 0;
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
        total += (db->offset[k + 1] - db->offset[k] + 3) & ~(uint64_t)3;
    }
    // Over db_max: said before the layout is made (a caller planning parts
    // by hay_cuda_swdb_part_room never gets here with too much).
    if (g->db_max && total > g->db_max) {
        st = HAY_ERR_TOO_LARGE;
        goto fail;
    }
    if (swdb_lengths_rise(db->offset, nt)) {
        // A database file's order (lengths not decreasing): its runs of
        // equal length, last run first, each in its own order; no sort.
        size_t k = 0, hi = nt;
        while (hi > 0) {
            size_t lo = hi - 1;
            uint64_t len = db->offset[hi] - db->offset[hi - 1];
            while (lo > 0 && db->offset[lo] - db->offset[lo - 1] == len)
                lo--;
            for (size_t i = lo; i < hi; i++)
                g->h_perm[k++] = (uint32_t)i;
            hi = lo;
        }
    } else {
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
    // Offsets in that order (total, the padded sum, was taken above).
    for (size_t k = 0, at = 0; k < nt; k++) {
        uint32_t o = g->h_perm[k];
        uint64_t len = db->offset[o + 1] - db->offset[o];
        g->h_len[k] = (int32_t)len;
        h_off[k] = at;
        at += (len + 3) & ~(uint64_t)3;
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
        if (swdb_max_code(src, len) >= sc->alpha) {
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

    st = swdb_enter(&device, tl, "gpu:driver", "gpu:context");
    if (st != HAY_OK)
        goto fail;
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

extern "C" int hay_cuda_swdb_part_room(const char *params, uint64_t *bytes, uint64_t *targets)
{
    hay_swdb_gpu probe;
    int force32 = 0, device = -1;
    memset(&probe, 0, sizeof probe);
    *bytes = 0;
    *targets = 0;
    if (swdb_parse(&probe, params, &force32, &device) != HAY_OK)
        return HAY_ERR_INVALID;
    if (probe.db_max) {
        *bytes = probe.db_max;
        return HAY_OK;
    }
    int st = swdb_enter(&device, NULL, NULL, NULL);
    if (st != HAY_OK)
        return st;
    {
        size_t fr = 0, tot = 0;
        SWDB_CUDA(cudaMemGetInfo(&fr, &tot));
        // Two parts are held at once (one searched while the next uploads),
        // each with its search's buffers (up to 3/8 of what was free).
        *bytes = fr / 4 > 0 ? fr / 4 : 1;
    }
fail:
    return st;
}

extern "C" int hay_cuda_swdb_release(int device, hay_swdb_timeline *tl)
{
    double t0 = swdb_now();
    int st = hay_cuda_status((int)cudaSetDevice(device));
    if (st == HAY_OK)
        st = hay_cuda_status((int)cudaDeviceReset());
    hay_swdb_phase_add(tl, "release:reset", t0, swdb_now());
    return st;
}

extern "C" int hay_cuda_swdb_warm_up(const char *params, hay_swdb_timeline *tl)
{
    hay_swdb_gpu probe;
    int st = HAY_OK, force32 = 0, device = -1, per_sm = 0;
    double t0;
    size_t cub_bytes = 0;
    unsigned long long *d_keys = NULL;
    int *d_seg = NULL;
    void *d_tmp = NULL;
    const int n = 2048, segs = 2;
    const int seg_h[3] = {0, n / 2, n};

    memset(&probe, 0, sizeof probe);
    if (swdb_parse(&probe, params, &force32, &device) != HAY_OK)
        return HAY_ERR_INVALID;
    st = swdb_enter(&device, tl, "warm:driver", "warm:context");
    if (st != HAY_OK)
        return st;
    // The score kernels (every shape, both widths) and the small ones.
    t0 = swdb_now();
    for (int gi = 0; gi < SWDB_SHAPES; gi++) {
        SWDB_CHECK(swdb_occupancy(16, swdb_shape_g[gi], swdb_shape_r[gi], &per_sm));
        if (swdb_shape_r[gi] == 16)
            SWDB_CHECK(swdb_occupancy(32, swdb_shape_g[gi], 16, &per_sm));
    }
    SWDB_CHECK(swdb_load_select_kernels());
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
