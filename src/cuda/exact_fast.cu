// exact_fast.cu - gpu-fast, the fast one-pattern CUDA engine: 16-byte
// loads, a first/last-byte filter on 32-bit words, warp verification.  Its
// build and engine table are exact.cu's (exact.h lists the parameters).
#include <cuda_runtime.h>

#include <stdint.h>
#include <string.h>

#include "exact.cuh"

using namespace hay_exact;

namespace {

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

// nz() of a vector's four words into out[0..3].
__device__ __forceinline__ void nz4(uint4 v, uint32_t rep, uint32_t orm, uint32_t *out)
{
    out[0] = nz(v.x, rep, orm);
    out[1] = nz(v.y, rep, orm);
    out[2] = nz(v.z, rep, orm);
    out[3] = nz(v.w, rep, orm);
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
            nz4(v[u], f.first4, f.orf, cw + 4 * u);
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
                nz4(x[u], f.last4, f.orl, lw + 4 * u);
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
                    nz4(v[u], f.second4, f.ors, sw + 4 * u);
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

}  // namespace

int hay_exact::fast_occupancy(ex_state *st)
{
    int b = 0;
    int rc = hay_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, pick_fast(st),
                                                                    st->threads, 0));
    st->resident = b > 0 ? b : 1;
    return rc;
}

int hay_exact::fast_launch(const ex_state *st, const hay_cuda_job *job, const ex_args &a,
                           cudaStream_t s)
{
    fast_args f;
    f.a = a;
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
    return HAY_OK;
}
