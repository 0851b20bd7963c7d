// exact.cu - the one-pattern CUDA engines: the poster's brute-force kernel
// in three variants and the many-core paper's Boyer-Moore with algorithmic
// cascading here, gpu-fast's kernel in exact_fast.cu; the build, the launch
// and the engine tables of all five here.  See exact.h for the parameters
// and cuda_engine.h for the contract.  Only the extern "C" engine tables
// leave these files; every CUDA error becomes a hay_status.
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_params.h"
#include "exact.cuh"

using namespace hay_exact;

namespace {

// ---------------------------------------------------------------- brute
// Algorithm 1 of the poster: thread idx compares text[idx] with key[0] and,
// when equal, the following bytes.  V selects where the key lives.
template <int V, bool CI>
__global__ void brute_kernel(ex_args a, ex_key k)
{
    unsigned long long cnt = 0;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const uint8_t k0 = k.b[0];
    for (uint64_t s = a.s_lo + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; s < a.s_end;
         s += stride) {
        const uint8_t *t = a.text + s;
        bool hit = fold<CI>(t[0]) == (V == EX_BRUTE_GLOBAL ? a.key[0] : k0);
        if (hit) {
            uint32_t i = 1;
            if (V == EX_BRUTE_REG) {
#pragma unroll
                for (int r = 1; r < EX_HEAD; r++) {
                    if ((uint32_t)r >= a.m || !hit)
                        break;
                    hit = fold<CI>(t[r]) == k.b[r];
                }
                i = EX_HEAD;
            }
            for (; hit && i < a.m; i++)
                hit = fold<CI>(t[i]) == a.key[i];
        }
        if (hit) {
            cnt++;
            if (a.d_matches)
                list_one(a, s + a.m);
        }
    }
    flush_count(a, cnt);
}

// ------------------------------------------------------------------ bm
// Each block handles `cascade` consecutive tiles.  A tile is the starts
// [t0, t0 + threads * seg); its bytes plus the m - 1 that follow are staged
// in shared memory (SH) or, when they do not fit, read from global memory.
// Thread i runs Boyer-Moore over the starts [t0 + i * seg, + seg).
template <bool CI, bool SH>
__global__ void bm_kernel(ex_args a, const int32_t *__restrict__ g_bc,
                          const int32_t *__restrict__ gs, uint32_t seg, uint32_t cascade)
{
    extern __shared__ __align__(16) unsigned char smem[];
    int32_t *bc = (int32_t *)smem;
    uint8_t *tile = smem + 256 * sizeof(int32_t);
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        bc[i] = g_bc[i];
    const uint32_t m = a.m;
    const uint8_t *__restrict__ key = a.key;
    const uint64_t tile_starts = (uint64_t)blockDim.x * seg;
    unsigned long long cnt = 0;
    for (uint32_t c = 0; c < cascade; c++) {
        const uint64_t t0 = ((uint64_t)blockIdx.x * cascade + c) * tile_starts;
        if (t0 >= a.s_end)
            break;  // the same for the whole block
        const uint8_t *src = a.text + t0;
        if (SH) {
            uint64_t n = t0 + tile_starts + m - 1;
            n = (n < a.len ? n : a.len) - t0;
            __syncthreads();  // the previous tile is done with
            for (uint64_t i = threadIdx.x; i < n; i += blockDim.x)
                tile[i] = a.text[t0 + i];
            __syncthreads();
            src = tile;
        } else {
            __syncthreads();  // bc is loaded
        }
        uint64_t s = t0 + (uint64_t)threadIdx.x * seg;
        uint64_t e = s + seg;
        if (s < a.s_lo)
            s = a.s_lo;
        if (e > a.s_end)
            e = a.s_end;
        while (s < e) {
            const uint8_t *w = src + (s - t0);
            int32_t j = (int32_t)m - 1;
            uint8_t tc = 0;
            while (j >= 0) {
                tc = fold<CI>(w[j]);
                if (tc != key[j])
                    break;
                j--;
            }
            if (j < 0) {
                cnt++;
                if (a.d_matches)
                    list_one(a, s + m);
                s += (uint64_t)gs[0];
            } else {
                int32_t sh = bc[tc] - ((int32_t)m - 1 - j);
                int32_t g = gs[j];
                s += (uint64_t)(sh > g ? sh : g);
            }
        }
    }
    flush_count(a, cnt);
}

// ----------------------------------------------------------------- host
void ex_destroy(void *dstate)
{
    ex_state *st = (ex_state *)dstate;
    if (!st)
        return;
    cudaFree(st->d_key);
    cudaFree(st->d_bc);
    cudaFree(st->d_gs);
    free(st);
}

uint8_t host_fold(uint8_t c, int ci)
{
    return (ci && c >= 'A' && c <= 'Z') ? (uint8_t)(c | 0x20) : c;
}

// Boyer-Moore tables of the folded key x: bc[c] = distance from the last c
// in x[0 .. m-2] to the end (m when absent); gs[j] = the good-suffix shift
// after a mismatch at j (gs[0] also after a whole match).
void bm_tables(const uint8_t *x, int32_t m, int32_t *bc, int32_t *gs, int32_t *suff)
{
    for (int c = 0; c < 256; c++)
        bc[c] = m;
    for (int32_t i = 0; i + 1 < m; i++)
        bc[x[i]] = m - 1 - i;
    // suff[i]: the longest common suffix of x[0 .. i] and x.
    suff[m - 1] = m;
    int32_t g = m - 1, f = 0;
    for (int32_t i = m - 2; i >= 0; --i) {
        if (i > g && suff[i + m - 1 - f] < i - g) {
            suff[i] = suff[i + m - 1 - f];
        } else {
            if (i < g)
                g = i;
            f = i;
            while (g >= 0 && x[g] == x[g + m - 1 - f])
                --g;
            suff[i] = f - g;
        }
    }
    for (int32_t i = 0; i < m; i++)
        gs[i] = m;
    int32_t j = 0;
    for (int32_t i = m - 1; i >= 0; --i)
        if (suff[i] == i + 1)
            for (; j < m - 1 - i; ++j)
                if (gs[j] == m)
                    gs[j] = m - 1 - i;
    for (int32_t i = 0; i + 1 < m; ++i)
        gs[m - 1 - suff[i]] = m - 1 - i;
}

int ex_build(int kind, const hay_cuda_patterns *p, void **dstate)
{
    if (!p || !dstate)
        return HAY_ERR_INVALID;
    *dstate = NULL;
    if (p->n != 1)
        return HAY_ERR_UNSUPPORTED;
    size_t m = p->len[0];
    if (m == 0)
        return HAY_ERR_INVALID;
    if (m > HAY_MAX_PATTERN_LEN)
        return HAY_ERR_TOO_LARGE;
    ex_state *st = (ex_state *)calloc(1, sizeof *st);
    if (!st)
        return HAY_ERR_NOMEM;
    st->kind = kind;
    st->caseless = p->caseless != 0;
    st->m = (uint32_t)m;
    hay_cuda_exact_params prm;
    int rc = hay_cuda_engine_params(p->params,
                                    kind == EX_BM ? &hay_cuda_bm_param_table
                                    : kind == EX_FAST ? &hay_cuda_fast_param_table
                                                      : &hay_cuda_brute_param_table,
                                    &prm);
    // Keys a kind does not declare keep its table's absent default (0).
    st->threads = (int)prm.threads;
    st->blocks_per_sm = (int)prm.blocks_per_sm;
    st->cascade = (int)prm.cascade;
    st->seg = (int)prm.seg;
    st->unroll = (int)prm.unroll;
    st->filter = (int)prm.filter;
    uint8_t *key = NULL;
    int32_t *tab = NULL;
    int dev = 0;
    if (rc != HAY_OK)
        goto fail;
    rc = hay_cuda_status(cudaGetDevice(&dev));
    if (rc == HAY_OK)
        rc = hay_cuda_status(cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, dev));
    if (rc == HAY_OK)
        rc = hay_cuda_status(cudaDeviceGetAttribute(&st->smem_per_sm,
                                            cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    if (rc == HAY_OK)
        rc = hay_cuda_status(cudaDeviceGetAttribute(&st->smem_optin,
                                            cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (rc != HAY_OK)
        goto fail;
    rc = HAY_ERR_NOMEM;
    key = (uint8_t *)malloc(m);
    if (!key)
        goto fail;
    for (size_t i = 0; i < m; i++)
        key[i] = host_fold(p->bytes[p->off[0] + i], st->caseless);
    memcpy(st->head, key, m < (size_t)EX_HEAD ? m : (size_t)EX_HEAD);
    st->last = key[m - 1];
    rc = hay_cuda_status(cudaMalloc((void **)&st->d_key, m));
    if (rc == HAY_OK)
        rc = hay_cuda_status(cudaMemcpy(st->d_key, key, m, cudaMemcpyHostToDevice));
    if (rc != HAY_OK)
        goto fail;
    st->dmem = m;
    if (kind == EX_BM) {
        rc = HAY_ERR_NOMEM;
        tab = (int32_t *)malloc((256 + 2 * m) * sizeof(int32_t));
        if (!tab)
            goto fail;
        bm_tables(key, (int32_t)m, tab, tab + 256, tab + 256 + m);
        rc = hay_cuda_status(cudaMalloc((void **)&st->d_bc, 256 * sizeof(int32_t)));
        if (rc == HAY_OK)
            rc = hay_cuda_status(cudaMalloc((void **)&st->d_gs, m * sizeof(int32_t)));
        if (rc == HAY_OK)
            rc = hay_cuda_status(cudaMemcpy(st->d_bc, tab, 256 * sizeof(int32_t),
                                    cudaMemcpyHostToDevice));
        if (rc == HAY_OK)
            rc = hay_cuda_status(cudaMemcpy(st->d_gs, tab + 256, m * sizeof(int32_t),
                                    cudaMemcpyHostToDevice));
        if (rc != HAY_OK)
            goto fail;
        st->dmem += (256 + m) * sizeof(int32_t);
        void (*kernels[4])(ex_args, const int32_t *, const int32_t *, uint32_t, uint32_t) = {
            bm_kernel<false, false>, bm_kernel<false, true>, bm_kernel<true, false>,
            bm_kernel<true, true>};
        // Static plus dynamic shared memory may not pass the opt-in limit.
        size_t stat = 0;
        for (int i = 0; i < 4 && rc == HAY_OK; i++) {
            cudaFuncAttributes fa;
            rc = hay_cuda_status(cudaFuncGetAttributes(&fa, kernels[i]));
            if (rc == HAY_OK && fa.sharedSizeBytes > stat)
                stat = fa.sharedSizeBytes;
        }
        st->smem_dyn = st->smem_optin - (int)stat;
        for (int i = 0; i < 4 && rc == HAY_OK; i++)
            rc = hay_cuda_status(cudaFuncSetAttribute(kernels[i],
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              st->smem_dyn));
        if (rc != HAY_OK)
            goto fail;
    }
    if (kind == EX_FAST) {
        rc = fast_occupancy(st);
        if (rc != HAY_OK)
            goto fail;
    }
    free(key);
    free(tab);
    *dstate = st;
    return HAY_OK;
fail:
    free(key);
    free(tab);
    ex_destroy(st);
    return rc;
}

// The starts of a job whose match end lies in (min_end, len]; false when
// there are none.
bool job_starts(const ex_state *st, const hay_cuda_job *job, ex_args *a)
{
    uint64_t m = st->m;
    if (job->len < m)
        return false;
    a->text = job->d_text;
    a->len = job->len;
    a->s_end = job->len - m + 1;
    a->s_lo = job->min_end >= m ? job->min_end - m + 1 : 0;
    a->end_off = 0;
    a->key = st->d_key;
    a->m = st->m;
    a->d_count = job->d_count;
    a->d_pc = job->d_pattern_counts;
    a->d_matches = job->d_matches;
    a->d_slots = job->d_slots;
    a->cap = job->d_matches ? job->cap : 0;
    return a->s_lo < a->s_end;
}

// The launch of a brute-* kind over the job's starts a.
int brute_launch(const ex_state *st, const ex_args &a, cudaStream_t s)
{
    ex_key k;
    memcpy(k.b, st->head, sizeof k.b);
    uint64_t n = a.s_end - a.s_lo;
    uint64_t blocks = (n + st->threads - 1) / st->threads;
    if (blocks > 0x7fffffffu)
        blocks = 0x7fffffffu;
    dim3 g((unsigned)blocks), b((unsigned)st->threads);
    // [kind][caseless]; the kinds EX_BRUTE_GLOBAL, _REG, _FIRST are 0, 1, 2.
    static void (*const kernels[3][2])(ex_args, ex_key) = {
        { brute_kernel<EX_BRUTE_GLOBAL, false>, brute_kernel<EX_BRUTE_GLOBAL, true> },
        { brute_kernel<EX_BRUTE_REG, false>, brute_kernel<EX_BRUTE_REG, true> },
        { brute_kernel<EX_BRUTE_FIRST, false>, brute_kernel<EX_BRUTE_FIRST, true> },
    };
    int kind = st->kind <= EX_BRUTE_FIRST ? st->kind : EX_BRUTE_FIRST;
    kernels[kind][st->caseless ? 1 : 0]<<<g, b, 0, s>>>(a, k);
    return HAY_OK;
}

// bm-gpu's launch over the job's starts a.
int bm_launch(const ex_state *st, ex_args a, cudaStream_t s)
{
    const uint64_t tile_starts = (uint64_t)st->threads * st->seg;
    const uint64_t per_block = tile_starts * st->cascade;
    // Tiles are counted from start 0 of the job; blocks below s_lo are
    // skipped by starting the grid at the tile holding s_lo.
    uint64_t first = a.s_lo / per_block;
    uint64_t blocks = (a.s_end + per_block - 1) / per_block - first;
    if (blocks > 0x7fffffffu)
        return HAY_ERR_TOO_LARGE;
    a.text += first * per_block;
    a.end_off = first * per_block;
    a.len -= first * per_block;
    a.s_lo -= first * per_block;
    a.s_end -= first * per_block;
    // Shared memory: the bad-character table and a tile; each block also
    // claims 1/blocks_per_sm of the SM's shared memory, which is what
    // limits the resident blocks per SM to the paper's pairs.
    const size_t reserve = 1024;  // per block, taken by the runtime on sm_80+
    size_t tile = (size_t)tile_starts + st->m - 1;
    size_t want = (size_t)st->smem_per_sm / st->blocks_per_sm;
    want = want > reserve ? want - reserve : 0;
    size_t need = 256 * sizeof(int32_t) + tile;
    bool sh = need <= (size_t)st->smem_dyn;
    size_t bytes = sh ? need : 256 * sizeof(int32_t);
    if (bytes < want)
        bytes = want;
    if (bytes > (size_t)st->smem_dyn)
        bytes = (size_t)st->smem_dyn;
    dim3 g((unsigned)blocks), b((unsigned)st->threads);
    uint32_t seg = (uint32_t)st->seg, cas = (uint32_t)st->cascade;
    // [caseless][tile in shared memory]
    static void (*const kernels[2][2])(ex_args, const int32_t *, const int32_t *, uint32_t,
                                       uint32_t) = {
        { bm_kernel<false, false>, bm_kernel<false, true> },
        { bm_kernel<true, false>, bm_kernel<true, true> },
    };
    kernels[st->caseless ? 1 : 0][sh ? 1 : 0]<<<g, b, bytes, s>>>(a, st->d_bc, st->d_gs, seg,
                                                                   cas);
    return HAY_OK;
}

// Every kind's launch: the checks, the job's starts (none: HAY_OK), the
// kind's kernel, then the launch's status.
int ex_launch(const void *dstate, const hay_cuda_job *job)
{
    const ex_state *st = (const ex_state *)dstate;
    if (!st || !job || !job->d_count || (job->d_matches && !job->d_slots))
        return HAY_ERR_INVALID;
    ex_args a;
    if (!job_starts(st, job, &a))
        return HAY_OK;
    cudaStream_t s = (cudaStream_t)job->stream;
    int rc = st->kind == EX_FAST ? fast_launch(st, job, a, s)
             : st->kind == EX_BM ? bm_launch(st, a, s)
                                 : brute_launch(st, a, s);
    return rc == HAY_OK ? hay_cuda_status(cudaGetLastError()) : rc;
}

size_t ex_memory(const void *dstate)
{
    const ex_state *st = (const ex_state *)dstate;
    return st ? st->dmem : 0;
}

int build_brute_global(const hay_cuda_patterns *p, void **d) { return ex_build(EX_BRUTE_GLOBAL, p, d); }
int build_brute_reg(const hay_cuda_patterns *p, void **d) { return ex_build(EX_BRUTE_REG, p, d); }
int build_brute_first(const hay_cuda_patterns *p, void **d) { return ex_build(EX_BRUTE_FIRST, p, d); }
int build_bm(const hay_cuda_patterns *p, void **d) { return ex_build(EX_BM, p, d); }
int build_fast(const hay_cuda_patterns *p, void **d) { return ex_build(EX_FAST, p, d); }

}  // namespace

extern "C" {
const hay_cuda_engine hay_cuda_engine_brute_global = {
    "brute-global", 0, build_brute_global, ex_destroy, ex_launch, ex_memory, 0, nullptr};
const hay_cuda_engine hay_cuda_engine_brute_reg = {
    "brute-reg", 0, build_brute_reg, ex_destroy, ex_launch, ex_memory, 0, nullptr};
const hay_cuda_engine hay_cuda_engine_brute_first = {
    "brute-first", 0, build_brute_first, ex_destroy, ex_launch, ex_memory, 0, nullptr};
const hay_cuda_engine hay_cuda_engine_bm = {
    "bm-gpu", 0, build_bm, ex_destroy, ex_launch, ex_memory, 0, nullptr};
const hay_cuda_engine hay_cuda_engine_fast = {
    "gpu-fast", 0, build_fast, ex_destroy, ex_launch, ex_memory, 0, nullptr};
}
