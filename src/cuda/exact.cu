// exact.cu - the one-pattern CUDA engines: the poster's brute-force kernel
// in three variants, the many-core paper's Boyer-Moore with algorithmic
// cascading, and gpu-fast (16-byte loads, first/last-byte filter, warp
// verification).  See exact.h for the parameters and cuda_engine.h for the
// contract.  Only the extern "C" engine tables leave this file; every CUDA
// error becomes a hay_status.
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "haystack.h"
#include "exact.h"
#include "cuda_params.h"

namespace {

enum ex_kind { EX_BRUTE_GLOBAL, EX_BRUTE_REG, EX_BRUTE_FIRST, EX_BM, EX_FAST };

// Bytes of the key a kernel gets by value (the param bank, which the
// unrolled loops turn into register operands).
constexpr int EX_HEAD = 64;
// Middle bytes gpu-fast checks per lane before the warp takes over.
constexpr uint32_t EX_PRE = 16;
constexpr uint32_t EX_FULL = 0xffffffffu;

struct ex_state {
    int kind;
    int caseless;
    uint32_t m;
    uint8_t *d_key;     // the key, folded when caseless
    int32_t *d_bc;      // bm-gpu: bad-character table (256)
    int32_t *d_gs;      // bm-gpu: good-suffix table (m)
    size_t dmem;
    uint8_t head[EX_HEAD];
    uint8_t last;       // the key's last byte, folded
    int threads, blocks_per_sm, cascade, seg, unroll, filter;
    int sms;
    int smem_per_sm, smem_optin;
    int smem_dyn;       // bm-gpu: dynamic shared memory a block may take
    int resident;       // gpu-fast: blocks per SM the registers allow
};

struct ex_key {
    uint8_t b[EX_HEAD];
};

// Everything a kernel needs about one job.  Starts s (local) with
// s_lo <= s < s_end are the ones whose match end s + m lies in
// (min_end, len].
struct ex_args {
    const uint8_t *text;
    uint64_t len, s_lo, s_end;
    uint64_t end_off;   // added to reported ends (bm-gpu skips whole tiles)
    const uint8_t *key;
    uint32_t m;
    unsigned long long *d_count, *d_pc, *d_matches, *d_slots;
    uint64_t cap;
};


template <bool CI>
__device__ __forceinline__ uint8_t fold(uint8_t c)
{
    return (CI && (uint8_t)(c - 'A') < 26u) ? (uint8_t)(c | 0x20) : c;
}

// One match into the list, from any (divergent) set of threads: the active
// lanes of a warp take their slots with one atomic.
__device__ __forceinline__ void list_one(const ex_args &a, uint64_t end)
{
    unsigned act = __activemask();
    int lane = threadIdx.x & 31;
    int leader = __ffs(act) - 1;
    unsigned long long base = 0;
    if (lane == leader)
        base = atomicAdd(a.d_slots, (unsigned long long)__popc(act));
    base = __shfl_sync(act, base, leader) + __popc(act & ((1u << lane) - 1));
    if (base < a.cap)
        a.d_matches[base] = HAY_CUDA_MATCH(end + a.end_off, 0);
}

// Adds every thread's count to the job's totals: one atomic per block.
// All threads of the block must call it.
__device__ __forceinline__ void flush_count(const ex_args &a, unsigned long long cnt)
{
    __shared__ unsigned long long block_sum;
    for (int o = 16; o > 0; o >>= 1)
        cnt += __shfl_down_sync(EX_FULL, cnt, o);
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && cnt)
        atomicAdd(&block_sum, cnt);
    __syncthreads();
    if (threadIdx.x == 0 && block_sum) {
        atomicAdd(a.d_count, block_sum);
        if (a.d_pc)
            atomicAdd(a.d_pc, block_sum);
    }
}

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

// ----------------------------------------------------------- gpu-fast
// Each lane owns U consecutive 16-byte vectors (a span); a warp step covers
// 32 spans.  The hot path works on 32-bit words without per-byte branches:
// nz() leaves bit 7 of each byte set where the byte differs from the key
// byte, a start is a candidate where neither its first byte nor the byte
// m - 1 later differs, and only when some lane of the warp has a candidate
// does the warp take the slow path (bit masks, per-lane check of the first
// EX_PRE middle bytes, then the whole warp on the rest).
struct fast_args {
    ex_args a;
    const uint4 *vec;     // aligned 16 bytes holding the first valid start
    uint64_t nvec;        // vectors covering [vec, text + len)
    uint64_t nstart;      // vectors holding valid starts
    uint64_t lo, hi;      // valid starts, in bytes from vec
    uint64_t delta;       // vec - text (mod 2^64)
    uint32_t q, r;        // m - 1 = 16 q + r
    uint32_t first4, last4;  // the first and last key byte, four times
    uint32_t orf, orl;    // 0x20202020 where that byte is a letter of a caseless key
    uint32_t second4, ors;   // the second key byte (the 3-byte filter)
    ex_key k;             // the first key bytes (bytes 1 .. EX_PRE used)
};

// Bit 7 of each byte: set where (byte | or) differs from the byte in rep.
// Exact: ((x & 0x7f) + 0x7f) carries into bit 7 iff the low bits are not
// all zero, and x's own bit 7 covers the rest.
__device__ __forceinline__ uint32_t nz(uint32_t w, uint32_t rep, uint32_t orm)
{
    uint32_t x = (w | orm) ^ rep;
    return ((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x;
}

__device__ __forceinline__ uint4 load_vec(const fast_args &f, uint64_t k)
{
    return k < f.nvec ? __ldg(f.vec + k) : make_uint4(0, 0, 0, 0);
}

__device__ __forceinline__ uint64_t low_bits(uint64_t n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

template <int U, int O>
__device__ __forceinline__ void align_words(const uint32_t *lw, uint32_t *la, uint32_t sh)
{
#pragma unroll
    for (int i = 0; i < 4 * U; i++)
        la[i] = __funnelshift_r(lw[i + O], lw[i + O + 1], sh);
}

// The U + 1 vectors from k0 + Q, taken from the lane's own when they are
// among them.
template <int U, int Q>
__device__ __forceinline__ void gather(const fast_args &f, const uint4 *v, uint4 *x, uint64_t k0)
{
#pragma unroll
    for (int u = 0; u <= U; u++)
        x[u] = u + Q < U ? v[u + Q] : load_vec(f, k0 + Q + u);
}

// Bit 7 of each byte of the span's words: the start there is ruled out by
// the byte `sh` bytes after it (words w of the bytes from that offset on,
// rounded down to a word: i + O, shifted by 8 * (sh % 4) bits).
template <int U>
__device__ __forceinline__ void shifted(const uint32_t *w, uint32_t *out, uint32_t r)
{
    const uint32_t sh = (r & 3) * 8;
    switch (r >> 2) {
    case 0: align_words<U, 0>(w, out, sh); break;
    case 1: align_words<U, 1>(w, out, sh); break;
    case 2: align_words<U, 2>(w, out, sh); break;
    default: align_words<U, 3>(w, out, sh); break;
    }
}

// At most 64 registers, so that a block of 1024 threads (the default) fits.
template <bool CI, int U, bool F3>
__global__ void __launch_bounds__(1024, 1) fast_kernel(fast_args f)
{
    const ex_args &a = f.a;
    const int lane = threadIdx.x & 31;
    const uint64_t gtid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t nthreads = (uint64_t)gridDim.x * blockDim.x;
    const uint32_t m = a.m;
    unsigned long long cnt = 0;

    for (uint64_t wbase = (gtid - lane) * U; wbase < f.nstart; wbase += nthreads * U) {
        const uint64_t k0 = wbase + (uint64_t)lane * U;
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = load_vec(f, k0 + u);
        uint32_t cw[4 * U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            cw[4 * u + 0] = nz(v[u].x, f.first4, f.orf);
            cw[4 * u + 1] = nz(v[u].y, f.first4, f.orf);
            cw[4 * u + 2] = nz(v[u].z, f.first4, f.orf);
            cw[4 * u + 3] = nz(v[u].w, f.first4, f.orf);
        }
        if (m > 1) {
            // The bytes m - 1 after each start: words of the U + 1 vectors
            // from k0 + q, shifted by r bytes.
            uint4 x[U + 1];
            switch (f.q < (uint32_t)U ? (int)f.q : -1) {
            case 0: gather<U, 0>(f, v, x, k0); break;
            case 1: gather<U, (1 < U ? 1 : 0)>(f, v, x, k0); break;
            case 2: gather<U, (2 < U ? 2 : 0)>(f, v, x, k0); break;
            case 3: gather<U, (3 < U ? 3 : 0)>(f, v, x, k0); break;
            default:
#pragma unroll
                for (int u = 0; u <= U; u++)
                    x[u] = load_vec(f, k0 + f.q + u);
                break;
            }
            uint32_t lw[4 * U + 4];
#pragma unroll
            for (int u = 0; u <= U; u++) {
                lw[4 * u + 0] = nz(x[u].x, f.last4, f.orl);
                lw[4 * u + 1] = nz(x[u].y, f.last4, f.orl);
                lw[4 * u + 2] = nz(x[u].z, f.last4, f.orl);
                lw[4 * u + 3] = nz(x[u].w, f.last4, f.orl);
            }
            uint32_t la[4 * U];
            shifted<U>(lw, la, f.r);
#pragma unroll
            for (int i = 0; i < 4 * U; i++)
                cw[i] |= la[i];
            if (F3) {
                // The second byte too: the span's words and the next
                // vector's first word, shifted by one byte.
                uint32_t nxt = (f.q == 0 ? x[U] : load_vec(f, k0 + U)).x;
                uint32_t sw[4 * U + 4];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    sw[4 * u + 0] = nz(v[u].x, f.second4, f.ors);
                    sw[4 * u + 1] = nz(v[u].y, f.second4, f.ors);
                    sw[4 * u + 2] = nz(v[u].z, f.second4, f.ors);
                    sw[4 * u + 3] = nz(v[u].w, f.second4, f.ors);
                }
                sw[4 * U] = nz(nxt, f.second4, f.ors);
                sw[4 * U + 1] = sw[4 * U + 2] = sw[4 * U + 3] = 0;
#pragma unroll
                for (int i = 0; i < 4 * U; i++)
                    cw[i] |= __funnelshift_r(sw[i], sw[i + 1], 8);
            }
        }
#pragma unroll
        for (int i = 0; i < 4 * U; i++)
            cw[i] = ~cw[i] & 0x80808080u;
        uint32_t any = 0;
#pragma unroll
        for (int i = 0; i < 4 * U; i++)
            any |= cw[i];
        if (!__any_sync(EX_FULL, any != 0))
            continue;

        // Slow path, the whole warp together.  Start j of the span is bit j.
        uint64_t cm = 0;
#pragma unroll
        for (int i = 0; i < 4 * U; i++)
            cm |= (uint64_t)((cw[i] * 0x00204081u) >> 28) << (4 * i);
        const uint64_t x0 = k0 * 16;
        const uint64_t span = 16 * U;
        uint64_t jlo = f.lo > x0 ? f.lo - x0 : 0, jhi = f.hi > x0 ? f.hi - x0 : 0;
        cm &= low_bits(jhi < span ? jhi : span) & ~low_bits(jlo < span ? jlo : span);
        const uint8_t *row = (const uint8_t *)(f.vec + k0);
        if (m > 2) {
            const uint32_t pre_end = m - 1 < EX_PRE + 1 ? m - 1 : EX_PRE + 1;
            uint64_t c = cm, ok = 0;
            while (c) {
                int j = __ffsll((long long)c) - 1;
                c &= c - 1;
                const uint8_t *t = row + j;
                bool good = true;
                for (uint32_t i = 1; i < pre_end && good; i++)
                    good = fold<CI>(t[i]) == f.k.b[i];
                if (good)
                    ok |= 1ull << j;
            }
            cm = ok;
            if (m - 2 > EX_PRE) {
                // The rest of each survivor, by the whole warp.
                uint64_t pend = cm, conf = 0;
                for (;;) {
                    unsigned ball = __ballot_sync(EX_FULL, pend != 0);
                    if (!ball)
                        break;
                    int leader = __ffs(ball) - 1;
                    uint64_t pm = __shfl_sync(EX_FULL, pend, leader);
                    int j = __ffsll((long long)pm) - 1;
                    if (lane == leader)
                        pend &= pend - 1;
                    const uint8_t *t =
                        (const uint8_t *)(f.vec + wbase + (uint64_t)leader * U) + j;
                    bool bad = false;
                    for (uint32_t i0 = EX_PRE + 1; i0 < m - 1 && !bad; i0 += 32) {
                        uint32_t i = i0 + lane;
                        bad = __any_sync(EX_FULL, i < m - 1 && fold<CI>(t[i]) != a.key[i]);
                    }
                    if (!bad && lane == leader)
                        conf |= 1ull << j;
                }
                cm = conf;
            }
        }
        unsigned long long mine = __popcll(cm);
        cnt += mine;
        if (a.d_matches && __any_sync(EX_FULL, mine != 0)) {
            unsigned long long incl = mine;
            for (int o = 1; o < 32; o <<= 1) {
                unsigned long long y = __shfl_up_sync(EX_FULL, incl, o);
                if (lane >= o)
                    incl += y;
            }
            unsigned long long total = __shfl_sync(EX_FULL, incl, 31);
            unsigned long long slot = 0;
            if (lane == 31)
                slot = atomicAdd(a.d_slots, total);
            slot = __shfl_sync(EX_FULL, slot, 31) + incl - mine;
            const uint64_t pos = x0 + f.delta;
            while (cm && slot < a.cap) {
                int j = __ffsll((long long)cm) - 1;
                cm &= cm - 1;
                a.d_matches[slot++] = HAY_CUDA_MATCH(pos + j + m, 0);
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

typedef void (*fast_fn)(fast_args);

template <bool CI, bool F3>
fast_fn pick_unroll(int unroll)
{
    switch (unroll) {
    case 1: return fast_kernel<CI, 1, F3>;
    case 2: return fast_kernel<CI, 2, F3>;
    default: return fast_kernel<CI, 4, F3>;
    }
}

// The kernel for this state: caseless or not, unroll, and the 3-byte
// filter when asked for and the key has a middle byte.
fast_fn pick_fast(const ex_state *st)
{
    bool f3 = st->filter == 3 && st->m >= 3;
    if (st->caseless)
        return f3 ? pick_unroll<true, true>(st->unroll) : pick_unroll<true, false>(st->unroll);
    return f3 ? pick_unroll<false, true>(st->unroll) : pick_unroll<false, false>(st->unroll);
}

int fast_occupancy(ex_state *st)
{
    int b = 0;
    int rc = hay_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, pick_fast(st),
                                                                    st->threads, 0));
    st->resident = b > 0 ? b : 1;
    return rc;
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

// A launch's checks and starts: 1 to launch, 0 when the job has no start
// here (HAY_OK), or a negative status.
static int launch_begin(const ex_state *st, const hay_cuda_job *job, ex_args *a)
{
    if (!st || !job || !job->d_count || (job->d_matches && !job->d_slots))
        return HAY_ERR_INVALID;
    return job_starts(st, job, a) ? 1 : HAY_OK;
}

int launch_check(void)
{
    return hay_cuda_status(cudaGetLastError());
}

int brute_launch(const void *dstate, const hay_cuda_job *job)
{
    const ex_state *st = (const ex_state *)dstate;
    ex_args a;
    const int go = launch_begin(st, job, &a);
    if (go <= 0)
        return go;
    cudaStream_t s = (cudaStream_t)job->stream;
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
    return launch_check();
}

int bm_launch(const void *dstate, const hay_cuda_job *job)
{
    const ex_state *st = (const ex_state *)dstate;
    ex_args a;
    const int go = launch_begin(st, job, &a);
    if (go <= 0)
        return go;
    cudaStream_t s = (cudaStream_t)job->stream;
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
    return launch_check();
}

int fast_launch(const void *dstate, const hay_cuda_job *job)
{
    const ex_state *st = (const ex_state *)dstate;
    fast_args f;
    const int go = launch_begin(st, job, &f.a);
    if (go <= 0)
        return go;
    cudaStream_t s = (cudaStream_t)job->stream;
    // Vectors are counted from the aligned 16 bytes that hold the first
    // valid start; `delta` turns a vector's byte offset into a local
    // position (mod 2^64: it may be "negative").
    uintptr_t t = (uintptr_t)job->d_text;
    uintptr_t v0 = (t + f.a.s_lo) & ~(uintptr_t)15;
    f.vec = (const uint4 *)v0;
    f.delta = (uint64_t)v0 - (uint64_t)t;
    f.nvec = (t + job->len - v0 + 15) / 16;
    f.lo = f.a.s_lo - f.delta;
    f.hi = f.a.s_end - f.delta;
    f.nstart = (f.hi + 15) / 16;
    f.q = (st->m - 1) / 16;
    f.r = (st->m - 1) % 16;
    f.first4 = st->head[0] * 0x01010101u;
    f.last4 = st->last * 0x01010101u;
    // Caseless: a letter of the key matches a text byte b iff (b | 0x20)
    // equals its lower case; any other byte only itself.
    f.orf = st->caseless && st->head[0] >= 'a' && st->head[0] <= 'z' ? 0x20202020u : 0;
    f.orl = st->caseless && st->last >= 'a' && st->last <= 'z' ? 0x20202020u : 0;
    uint8_t b1 = st->m > 1 ? st->head[1] : 0;
    f.second4 = b1 * 0x01010101u;
    f.ors = st->caseless && b1 >= 'a' && b1 <= 'z' ? 0x20202020u : 0;
    memcpy(f.k.b, st->head, sizeof f.k.b);
    uint64_t per_block = (uint64_t)st->threads * st->unroll;
    uint64_t blocks = (f.nstart + per_block - 1) / per_block;
    // No more blocks than can be resident at once: the loop is grid-stride.
    int per_sm = st->blocks_per_sm < st->resident ? st->blocks_per_sm : st->resident;
    uint64_t maxb = (uint64_t)st->sms * per_sm;
    if (blocks > maxb)
        blocks = maxb;
    if (blocks == 0)
        blocks = 1;
    dim3 g((unsigned)blocks), b((unsigned)st->threads);
    pick_fast(st)<<<g, b, 0, s>>>(f);
    return launch_check();
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
    "brute-global", 0, build_brute_global, ex_destroy, brute_launch, ex_memory, 0};
const hay_cuda_engine hay_cuda_engine_brute_reg = {
    "brute-reg", 0, build_brute_reg, ex_destroy, brute_launch, ex_memory, 0};
const hay_cuda_engine hay_cuda_engine_brute_first = {
    "brute-first", 0, build_brute_first, ex_destroy, brute_launch, ex_memory, 0};
const hay_cuda_engine hay_cuda_engine_bm = {
    "bm-gpu", 0, build_bm, ex_destroy, bm_launch, ex_memory, 0};
const hay_cuda_engine hay_cuda_engine_fast = {
    "gpu-fast", 0, build_fast, ex_destroy, fast_launch, ex_memory, 0};
}
