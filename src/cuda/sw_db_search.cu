// sw_db_search.cu - the database search's batches on the GPU (the
// contract: src/align/db_device.h; the device copy of the database and its
// making: sw_db.cu): profiles, the score kernels' launches in segments
// whose scratch fits (sw_db_kernels.cu), the 32-bit rescoring, and each
// query's best hits chosen on the device by a segmented radix sort.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include "sw_db_host.cuh"

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

// Loads kernel k now (the runtime otherwise loads it at its first launch).
template <typename K> static cudaError_t swdb_load_one(K *k)
{
    cudaFuncAttributes fa;
    return cudaFuncGetAttributes(&fa, k);
}

int swdb_load_select_kernels(void)
{
    cudaError_t e = swdb_load_one(swdb_collect);
    if (e == cudaSuccess)
        e = swdb_load_one(swdb_make_keys);
    if (e == cudaSuccess)
        e = swdb_load_one(swdb_gather);
    return (int)e;
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

// Target pairs a unit of a 16-bit launch of nq queries over every target
// sweeps (SWDB_B2B, sw_db.cuh): the IMAD instance's where the launch takes
// it, decided once for the launch over its one-pair units (its segments'
// kernels and unit counts must agree).
static int swdb_launch_pairs(const hay_swdb_gpu *g, int gs, int rs, int nq, long resident)
{
    const int kp = swdb_b2b_pairs(gs, rs);
    if (kp == 1)
        return 1;
    const long long upb = swdb_units_per_block(gs);
    const long long nblk = ((long long)(g->ntargets + 1) / 2 + upb - 1) / upb;
    return swdb_pi_pays((long long)nq * nblk, resident) ? kp : 1;
}

// The scratch the first segment of a launch of this kernel for nq queries
// over every target needs (the largest of the launch: targets are sorted
// longest first, and a list's segments all take its longest).
static int swdb_scratch_need(const hay_swdb_gpu *g, int bits, int gs, int rs, int nq,
                             int maxpass, size_t *bytes)
{
    int per_sm = 0;
    long slots, cap;
    size_t per_slot;
    int e = swdb_occupancy(bits, gs, rs, &per_sm);
    if (e != 0)
        return e;
    const long resident = (long)(per_sm > 0 ? per_sm : 1) * g->sms;
    const int kp = bits == 16 ? swdb_launch_pairs(g, gs, rs, nq, resident) : 1;
    swdb_slots(g, swdb_units_per_block(gs), resident, maxpass,
               swdb_b2b_cols((int)g->maxlen, kp, gs), &slots, &cap, &per_slot);
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
    const double t0 = swdb_now();
    SWDB_CHECK(swdb_occupancy(bits, gs, rs, &per_sm));
    {
        const long resident = (long)(per_sm > 0 ? per_sm : 1) * g->sms;
        // 16 bits: the IMAD instance of a shape with back-to-back pairs
        // exactly where its units are those pairs (kp > 1).
        const bool b2b = bits == 16 && swdb_b2b_pairs(gs, rs) > 1;
        const int kp = bits == 16 && !d_ulist ? swdb_launch_pairs(g, gs, rs, nq, resident) : 1;
        if (kp > 1)
            nunits = (int)((g->ntargets + 2 * (size_t)kp - 1) / (2 * (size_t)kp));
        const int nblk = (nunits + upb - 1) / upb;
        int b = 0;
        while (b < nblk) {
            // Longest target of the segment: its first unit's (sorted), or
            // the list's longest; in columns (kp pairs back to back).
            int L = d_ulist ? tmax_list
                            : g->h_len[bits == 16 ? (size_t)b * upb * 2 * kp : (size_t)b * upb];
            L = swdb_b2b_cols(L, kp, gs);
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
            const bool pi = b2b ? kp > 1 : bits == 16 && swdb_pi_pays(ntasks, grid);
            SWDB_CHECK(swdb_launch(bits, gs, rs, grid, pi, &a, g->stream));
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
            const int nq = pl.gstart[gi + 1] - pl.gstart[gi];
            SWDB_CHECK(swdb_scratch_need(g, g->use16 ? 16 : 32, swdb_shape_g[gi],
                                         g->use16 ? swdb_shape_r[gi] : 16, nq, pl.maxpass[gi],
                                         &b));
            need = b > need ? b : need;
            if (g->use16) {
                SWDB_CHECK(swdb_scratch_need(g, 32, swdb_shape_g[gi], 16, nq, pl.maxpass[gi],
                                             &b));
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
