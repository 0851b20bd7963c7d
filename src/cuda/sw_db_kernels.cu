// sw_db_kernels.cu - the database-search score kernels (src/cuda/sw_db.cuh
// says how they split the work; bench/results/h100/2026-11-25/swdb/README.md
// what they measured and what was tried).
//
// Recurrences (Gotoh, sw_device.h's gap rule), per cell of row i, column j:
//   H = max(Hdiag + s(q_i, t_j), E, F, 0)
//   E' = max(E - ge, H - go)   (the next column's E of row i)
//   F' = max(F - ge, H - go)   (the F of row i + 1, column j)
// E and F start at -go, the value the boundary H = 0 gives them.
//
// 16-bit lanes cannot overflow below (scores >= -128, gaps <= 16000); they
// can only wrap above 32767, and a wrap needs an Hdiag above 32767 -
// max(s): every lane that reaches thr = 32767 - max(s) is reported as -1
// and rescored in 32 bits by the host driver.  Padding (query rows past m,
// target columns past n) scores below every real neighbour, so it never
// raises a maximum.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sw_db.cuh"

// Blocks a multiprocessor should hold (register cap per thread: 65536 /
// (128 * n)) for the kernels of 16 and of 32 rows a thread.  6 and 4 (80
// and 128 registers, a few bytes spilled outside the step loop) measured
// 1-4% faster on an H100 than 5 and 3 (96 and 168 registers, no spills).
#ifndef SWDB_MINB16
#define SWDB_MINB16 6
#endif
#ifndef SWDB_MINB32
#define SWDB_MINB32 4
#endif

// SWDB_PAIR_IMAD (the score pairs by IMAD in throughput-bound launches)
// and SWDB_B2B (target pairs back to back in a pass): sw_db.cuh.

static __device__ __forceinline__ uint32_t swdb_prmt(uint32_t a, uint32_t b, uint32_t sel)
{
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}

// Byte k of a (low half) and of b (high half), each sign-extended to 16 bits.
template <int K>
static __device__ __forceinline__ uint32_t swdb_pair(uint32_t a, uint32_t b)
{
    constexpr uint32_t sel = (uint32_t)K | ((uint32_t)(K | 8) << 4) |
                             ((uint32_t)(K + 4) << 8) | ((uint32_t)((K + 4) | 8) << 12);
    return swdb_prmt(a, b, sel);
}

// SWDB_B2B: the next pair's maximum into maxv, the current one's to the
// end of mx (KP rotations: back to pair 0).
template <int KP>
static __device__ __forceinline__ void swdb_rotate(uint32_t &maxv, uint32_t (&mx)[KP])
{
    if constexpr (KP > 1) {
        const uint32_t m0 = mx[0];
#pragma unroll
        for (int i = 0; i + 1 < KP - 1; i++)
            mx[i] = mx[i + 1];
        mx[KP - 2] = maxv;
        maxv = m0;
    }
}

// SWDB_B2B: columns of pair i of unit u (KP pairs a unit, groups of G):
// its warp's longest target, rounded up to 4, at least G (so that the
// pairs' first columns are at least G steps apart).
template <int KP, int G>
static __device__ __forceinline__ int swdb_pair_cols(const swdb_kargs &a, int u, int i)
{
    const int x = 2 * KP * u + 2 * i;
    int l = 0;
    if (u < a.nunits && x < a.ntargets)
        l = max(a.len[x], x + 1 < a.ntargets ? a.len[x + 1] : 0);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        l = max(l, __shfl_xor_sync(0xffffffffu, l, o));
    return max((l + 3) & ~3, G);
}

template <bool P16>
struct swdb_lane;

template <>
struct swdb_lane<true> {
    typedef int8_t prof_t;
    static __device__ __forceinline__ uint32_t splat(int v)
    {
        uint32_t h = (uint32_t)v & 0xffffu;
        return h | (h << 16);
    }
};

template <>
struct swdb_lane<false> {
    typedef int32_t prof_t;
    static __device__ __forceinline__ uint32_t splat(int v) { return (uint32_t)v; }
};

// One column of one thread's R rows: Hs holds the previous column's H,
// Hd receives this column's (two arrays so that no value is moved);
// hdiag is H of the row above in the previous column, F that row's F for
// the first row; off holds the byte offsets in sp, the profile slice, of
// the residues' rows of the thread's slice (two halves in 16 bits, one in
// 32).  Returns the F for the row below.
// Rows r and r + 1 of one column, their score pairs s0 and s1: diag is
// the H above-left of row r on entry, of row r + 2 on return; F enters
// row r and leaves row r + 1.
template <int R>
static __device__ __forceinline__ void swdb_cell2(const uint32_t (&Hs)[R], uint32_t (&Hd)[R],
                                                  uint32_t (&E)[R], const int r, uint32_t s0,
                                                  uint32_t s1, uint32_t &diag, uint32_t &F,
                                                  uint32_t go2, uint32_t nge2, uint32_t &maxv)
{
    const uint32_t h0 = __vimax3_s16x2_relu(__vadd2(diag, s0), E[r], F);
    Hd[r] = h0;
    uint32_t hgo = __vsub2(h0, go2);
    E[r] = __viaddmax_s16x2(E[r], nge2, hgo);
    F = __viaddmax_s16x2(F, nge2, hgo);
    diag = Hs[r];
    const uint32_t h1 = __vimax3_s16x2_relu(__vadd2(diag, s1), E[r + 1], F);
    Hd[r + 1] = h1;
    hgo = __vsub2(h1, go2);
    E[r + 1] = __viaddmax_s16x2(E[r + 1], nge2, hgo);
    F = __viaddmax_s16x2(F, nge2, hgo);
    diag = Hs[r + 1];
    maxv = __vimax3_s16x2_relu(maxv, h0, h1);
}

// PI (SWDB_PAIR_IMAD): the profile slice holds 32-bit words, each score
// zero-extended from 16 bits, and a row's pair is B * 65536 + A, an IMAD
// (FMA pipe) instead of a PRMT (ALU pipe); k65536 is 65536, opaque to the
// compiler so that it stays a multiplication.
template <int R, bool PI>
static __device__ __forceinline__ uint32_t swdb_col16(const uint32_t (&Hs)[R], uint32_t (&Hd)[R],
                                                      uint32_t (&E)[R], uint32_t diag, uint32_t F,
                                                      const uint8_t *sp, uint32_t off,
                                                      uint32_t go2, uint32_t nge2,
                                                      uint32_t k65536, uint32_t &maxv)
{
    // The low half as off - (off >> 16) * 65536: an IMAD (FMA pipe), not
    // a LOP3 (ALU).
    const uint32_t hi = off >> 16;
    const uint4 *A = (const uint4 *)(sp + (off - hi * k65536));
    const uint4 *B = (const uint4 *)(sp + hi);
    if (PI) {
#pragma unroll
        for (int q = 0; q < R / 4; q++) {
            const uint4 va = A[q], vb = B[q];
            swdb_cell2<R>(Hs, Hd, E, q * 4, vb.x * k65536 + va.x, vb.y * k65536 + va.y, diag, F,
                          go2, nge2, maxv);
            swdb_cell2<R>(Hs, Hd, E, q * 4 + 2, vb.z * k65536 + va.z, vb.w * k65536 + va.w, diag,
                          F, go2, nge2, maxv);
        }
    } else {
#pragma unroll
        for (int q = 0; q < R / 16; q++) {
            const uint4 va = A[q], vb = B[q];
            const uint32_t aw[4] = {va.x, va.y, va.z, va.w};
            const uint32_t bw[4] = {vb.x, vb.y, vb.z, vb.w};
#pragma unroll
            for (int k = 0; k < 16; k += 2) {
                const uint32_t s0 = k % 4 == 0 ? swdb_pair<0>(aw[k / 4], bw[k / 4])
                                               : swdb_pair<2>(aw[k / 4], bw[k / 4]);
                const uint32_t s1 = k % 4 == 0 ? swdb_pair<1>(aw[k / 4], bw[k / 4])
                                               : swdb_pair<3>(aw[k / 4], bw[k / 4]);
                swdb_cell2<R>(Hs, Hd, E, q * 16 + k, s0, s1, diag, F, go2, nge2, maxv);
            }
        }
    }
    return F;
}

template <int R>
static __device__ __forceinline__ uint32_t swdb_col32(const uint32_t (&Hs)[R], uint32_t (&Hd)[R],
                                                      uint32_t (&E)[R], uint32_t diag, uint32_t F,
                                                      const uint8_t *sp, uint32_t off, int go,
                                                      int ge, uint32_t &maxv)
{
    const int4 *A = (const int4 *)(sp + (off & 0xffffu));
#pragma unroll
    for (int q = 0; q < R / 4; q++) {
        const int4 v = A[q];
        const int sc[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int x = 0; x < 4; x++) {
            const int r = q * 4 + x;
            const int h = __vimax3_s32_relu((int)diag + sc[x], (int)E[r], (int)F);
            Hd[r] = (uint32_t)h;
            const int hgo = h - go;
            E[r] = (uint32_t)__viaddmax_s32((int)E[r], -ge, hgo);
            F = (uint32_t)__viaddmax_s32((int)F, -ge, hgo);
            diag = Hs[r];
            maxv = (uint32_t)max((int)maxv, h);
        }
    }
    return F;
}

// KP: target pairs a unit sweeps one after the other in each pass
// (SWDB_B2B, sw_db.cuh; 1: one pair).
template <bool P16, int G, int R, bool PQ = false, int KP = 1>
__global__ void __launch_bounds__(SWDB_THREADS, R <= 16 ? SWDB_MINB16 : SWDB_MINB32)
swdb_kernel(const swdb_kargs a)
{
    constexpr int T = G * R;                 // rows per pass
    constexpr int UPW = 32 / G;              // units per warp
    constexpr int UPB = SWDB_WARPS * UPW;    // units per block
    typedef typename swdb_lane<P16>::prof_t prof_t;
    // Profile slice in shared memory: per residue, G thread slices of R
    // rows (PI: 32-bit words, each slice followed by 4 unused words so
    // that a group's 16-byte loads fall in distinct banks).
    constexpr bool PI = P16 && PQ && SWDB_MAX_ROWS_PROF * G * (R + 4) * 4 <= 40960;
    constexpr int ESZ = PI ? 4 : (int)sizeof(prof_t);   // bytes a row
    constexpr int RW = PI ? R + 4 : R;                   // rows a thread slice takes
    constexpr int ROWB = G * RW * ESZ;                   // bytes per residue, one pass
    static_assert(KP == 1 || (P16 && G <= 8 && KP <= 8), "back-to-back pairs: 16 bits, G <= 8");

    __shared__ __align__(16) uint8_t sp[SWDB_MAX_ROWS_PROF * ROWB];
    static_assert(R % (P16 ? 16 : 4) == 0, "rows per thread: a multiple of 16 (4 in 32 bits)");
    __shared__ int s_task;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int t = lane % G, gi = lane / G;
    const int uib = warp * UPW + gi;         // unit in block
    const int ntasks = a.nq * a.nblk;
    const uint32_t go2 = swdb_lane<P16>::splat(a.go);
    const uint32_t nge2 = swdb_lane<P16>::splat(-a.ge);
    const uint32_t ngo2 = swdb_lane<P16>::splat(-a.go);
    const uint32_t padw = 0x01010101u * (uint32_t)a.alpha;
    // Profile offsets of the padding residue (both halves).
    const uint32_t padoff = (uint32_t)(a.alpha * ROWB) * (P16 ? 0x10001u : 1u);
    // The residues' profile offsets (rcur, passed down the group) include
    // the thread's slice: each thread adds TD to what the thread above
    // passes, so that no step needs the thread index (ptxas recomputed it
    // there, S2R and LOP3, in 2 of every 4 steps).  This, the last
    // thread's scratch column without the thread index (SWDB_STEP) and
    // the low profile offset by IMAD (swdb_col16), with SWDB_B2B=2, are
    // measured together (each alone or in other combinations measured
    // less): docs/notes/2026-11-26-swdb-kernel.md.
    constexpr uint32_t TD = (uint32_t)(RW * ESZ) * (P16 ? 0x10001u : 1u);
    // 65536, which the compiler cannot see (a.alpha <= 32).
    const uint32_t k65536 = 0x10000u << (a.alpha >> 8);
    uint2 *temp = a.temp + (size_t)blockIdx.x * (size_t)a.tmax * UPB;

    for (;;) {
        __syncthreads();                     // the last task's readers are done
        if (threadIdx.x == 0)
            s_task = atomicAdd(a.counter, 1);
        __syncthreads();
        const int task = s_task;
        if (task >= ntasks)
            return;
        const int blk = a.blk0 + task / a.nq;
        const int row = a.qrow[task % a.nq];
        const int u = blk * UPB + uib;
        int ta = -1, tb = -1;
        if (u < a.nunits) {
            if (P16) {
                ta = 2 * KP * u;
                tb = ta + 1 < a.ntargets ? ta + 1 : -1;
            } else {
                ta = a.ulist ? a.ulist[u] : u;
            }
        }
        int la = ta >= 0 ? a.len[ta] : 0;
        int lb = tb >= 0 ? a.len[tb] : 0;
        const uint8_t *pa = a.codes + (ta >= 0 ? a.off[ta] : 0);
        const uint8_t *pb = a.codes + (tb >= 0 ? a.off[tb] : 0);
        // KP > 1: pair i takes the columns [B_i, B_i + pc[i]) of the pass
        // (swdb_pair_cols); nw is their sum.
        int pc[KP];
        int nw = max(la, lb);
        if constexpr (KP == 1) {
#pragma unroll
            for (int o = 16; o > 0; o >>= 1)
                nw = max(nw, __shfl_xor_sync(0xffffffffu, nw, o));
        } else {
            nw = 0;
#pragma unroll
            for (int i = 0; i < KP; i++) {
                pc[i] = swdb_pair_cols<KP, G>(a, u, i);
                nw += pc[i];
            }
        }
        const int mpad = a.qmpad[row];
        const int npass = mpad / T;
        const prof_t *prof = (const prof_t *)a.prof + a.qprof[row];
        uint32_t maxv = 0;
        uint32_t mx[KP];   // KP > 1: the other pairs' maxima, the next pair's first
#pragma unroll
        for (int i = 0; i < KP; i++)
            mx[i] = 0;

        for (int p = 0; p < npass; p++) {
            __syncthreads();
            if (PI) {
                // 4 rows (bytes) at a time, each sign-extended to a
                // zero-extended 16-bit score in a word.
                const int per_row = T / 4;
                const int total = (a.alpha + 1) * per_row;
                for (int i = threadIdx.x; i < total; i += SWDB_THREADS) {
                    const int c = i / per_row, w = i % per_row;
                    const uint32_t v = ((const uint32_t *)(prof + (size_t)c * mpad +
                                                           (size_t)p * T))[w];
                    const uint4 o =
                        make_uint4(swdb_prmt(v, 0u, 0x4480u), swdb_prmt(v, 0u, 0x4491u),
                                   swdb_prmt(v, 0u, 0x44a2u), swdb_prmt(v, 0u, 0x44b3u));
                    *(uint4 *)(sp + c * ROWB + (4 * w / R) * RW * 4 + (4 * w % R) * 4) = o;
                }
            } else {
                const int per_row = ROWB / 16;
                const int total = (a.alpha + 1) * per_row;
                for (int i = threadIdx.x; i < total; i += SWDB_THREADS) {
                    const int c = i / per_row, w = i % per_row;
                    const uint4 *src = (const uint4 *)(prof + (size_t)c * mpad + (size_t)p * T);
                    ((uint4 *)(sp + c * ROWB))[w] = src[w];
                }
            }
            __syncthreads();
            if (nw == 0)
                continue;

            // Thread t works on column j = s - t at step s.  Steps outside
            // [0, nw) run on the padding residue with the boundary state,
            // which leaves that state as it is (before) or scores below
            // real cells (after), so no step is skipped.
            uint32_t HA[R], HB[R], E[R];
#pragma unroll
            for (int k = 0; k < R; k++) {
                HA[k] = 0;
                E[k] = ngo2;
            }
            uint32_t hbot = 0, fbot = ngo2, rcur = padoff + (uint32_t)t * TD, hdiag = 0;
            const bool first = p == 0, last = p == npass - 1;
            // Thread 0: residue words of columns s..s+3 (w*) and s+4..s+7
            // (n*), and the row above (H, F) of column s (cH, cF) and s+1.
            uint32_t wa = 0, wb = 0, na = padw, nb = padw;
            uint32_t cH = 0, cF = ngo2, nH = 0, nF = ngo2;
            if (t == 0) {
                wa = la > 0 ? *(const uint32_t *)pa : padw;
                wb = P16 && lb > 0 ? *(const uint32_t *)pb : padw;
                na = la > 4 ? *(const uint32_t *)(pa + 4) : padw;
                nb = P16 && lb > 4 ? *(const uint32_t *)(pb + 4) : padw;
                if (!first) {
                    const uint2 v = temp[uib];
                    cH = v.x;
                    cF = v.y;
                }
            }
            // nw + G - 1 steps, rounded up to the loop's unroll by 4 steps
            // (one residue word: its byte selector and its refill are
            // constants; one H100, against 2: 4,509 -> 4,758 GCUPS on
            // 1,000,000 x 256, E. coli 1,606 -> 1,889).
            const int steps = (nw + G + 2) & ~3;
            int s = 0;

#define SWDB_STEP(HS, HD, PH, TR)                                                          \
    {                                                                                      \
        if (TR && s - t == cb) {                                                           \
            /* The thread's first column of the next pair: a fresh row. */                 \
            for (int q_ = 0; q_ < R; q_++) {                                               \
                HS[q_] = 0;                                                                \
                E[q_] = ngo2;                                                              \
            }                                                                              \
            hdiag = 0;                                                                     \
            swdb_rotate<KP>(maxv, mx);                                                     \
        }                                                                                  \
        uint32_t hin = __shfl_up_sync(0xffffffffu, hbot, 1, G);                            \
        uint32_t fin = __shfl_up_sync(0xffffffffu, fbot, 1, G);                            \
        uint32_t rin = __shfl_up_sync(0xffffffffu, rcur, 1, G) + TD;                       \
        if (t == 0) {                                                                      \
            if (!first && s + 1 < nw) {                                                    \
                const uint2 v = temp[(size_t)(s + 1) * UPB + uib];                         \
                nH = v.x;                                                                  \
                nF = v.y;                                                                  \
            } else {                                                                       \
                nH = 0;                                                                    \
                nF = ngo2;                                                                 \
            }                                                                              \
            rin = swdb_prmt(wa, P16 ? wb : 0u, 0xc480u + (uint32_t)(PH) * 0x1111u) *       \
                  (uint32_t)ROWB;                                                          \
            hin = cH;                                                                      \
            fin = cF;                                                                      \
        }                                                                                  \
        if (P16)                                                                           \
            fbot = swdb_col16<R, PI>(HS, HD, E, hdiag, fin, sp, rin, go2, nge2, k65536,    \
                                     maxv);                                                \
        else                                                                               \
            fbot = swdb_col32<R>(HS, HD, E, hdiag, fin, sp, rin, a.go, a.ge, maxv);        \
        hbot = HD[R - 1];                                                                  \
        /* The last thread's column s - (G - 1), without the thread index */               \
        /* (ptxas recomputed t for s - t, S2R and LOP3, in every step). */                 \
        if (t == G - 1 && !last && (unsigned)(s - (G - 1)) < (unsigned)nw)                 \
            temp[(size_t)(s - (G - 1)) * UPB + uib] = make_uint2(hbot, fbot);              \
        hdiag = hin;                                                                       \
        rcur = rin;                                                                        \
        cH = nH;                                                                           \
        cF = nF;                                                                           \
        s++;                                                                               \
        if ((PH) == 3) {                                                                   \
            wa = na;                                                                       \
            wb = nb;                                                                       \
            if (t == 0) {                                                                  \
                na = s + 4 < la ? *(const uint32_t *)(pa + s + 4) : padw;                  \
                if (P16)                                                                   \
                    nb = s + 4 < lb ? *(const uint32_t *)(pb + s + 4) : padw;              \
            }                                                                              \
        }                                                                                  \
    }

            // PH: the step's column within its residue word (s & 3); the
            // word is refilled after its last column.  TR: steps where a
            // thread may begin the next pair (its column cb).
#define SWDB_STEP4(TR)                                                                     \
    {                                                                                      \
        SWDB_STEP(HA, HB, 0, TR)                                                           \
        SWDB_STEP(HB, HA, 1, TR)                                                           \
        SWDB_STEP(HA, HB, 2, TR)                                                           \
        SWDB_STEP(HB, HA, 3, TR)                                                           \
    }
            int cb = 0;   // the current pair's first column
            if constexpr (KP == 1) {
                while (s < steps)
                    SWDB_STEP4(false)
            } else {
                int pend = pc[0];   // the current pair's end
#pragma unroll 1
                for (int k = 1;; k++) {
                    while (s < (k < KP ? pend : steps))
                        SWDB_STEP4(false)
                    if (k >= KP)
                        break;
                    // Pair k from column cb: thread 0's residue words from
                    // its targets, each as if it began at column 0 (cb is
                    // a multiple of 4, so the words stay aligned).
                    cb = pend;
#pragma unroll
                    for (int i = 1; i < KP; i++)
                        if (i == k)
                            pend += pc[i];
                    if (t == 0) {
                        const int x = ta >= 0 ? ta + 2 * k : a.ntargets;
                        const int xa = x < a.ntargets ? x : -1;
                        const int xb = xa >= 0 && x + 1 < a.ntargets ? x + 1 : -1;
                        la = cb + (xa >= 0 ? a.len[xa] : 0);
                        lb = cb + (xb >= 0 ? a.len[xb] : 0);
                        pa = a.codes + (xa >= 0 ? a.off[xa] : 0) - cb;
                        pb = a.codes + (xb >= 0 ? a.off[xb] : 0) - cb;
                        wa = s < la ? *(const uint32_t *)(pa + s) : padw;
                        wb = s < lb ? *(const uint32_t *)(pb + s) : padw;
                        na = s + 4 < la ? *(const uint32_t *)(pa + s + 4) : padw;
                        nb = s + 4 < lb ? *(const uint32_t *)(pb + s + 4) : padw;
                    }
                    while (s < cb + G)
                        SWDB_STEP4(true)
                }
                // Back to pair 0 for the next pass.
                swdb_rotate<KP>(maxv, mx);
                if (t == 0) {
                    la = ta >= 0 ? a.len[ta] : 0;
                    lb = tb >= 0 ? a.len[tb] : 0;
                    pa = a.codes + (ta >= 0 ? a.off[ta] : 0);
                    pb = a.codes + (tb >= 0 ? a.off[tb] : 0);
                }
            }
#undef SWDB_STEP4
#undef SWDB_STEP
        }

        // The group's maximum (of each pair: pair i's in mx[i - 1]),
        // written by its first thread.
#pragma unroll
        for (int i = 0; i < KP; i++) {
            uint32_t m = i == 0 ? maxv : mx[i > 0 ? i - 1 : 0];
#pragma unroll
            for (int o = G / 2; o > 0; o >>= 1) {
                const uint32_t v = __shfl_xor_sync(0xffffffffu, m, o, G);
                m = P16 ? __vimax_s16x2_relu(m, v) : (uint32_t)max((int)m, (int)v);
            }
            if (t == 0) {
                int32_t *out = a.scores + (size_t)row * (size_t)a.ntargets;
                const int x = i == 0 ? ta : ta >= 0 && ta + 2 * i < a.ntargets ? ta + 2 * i : -1;
                const int y = i == 0 ? tb : x >= 0 && x + 1 < a.ntargets ? x + 1 : -1;
                if (P16) {
                    const int lo = (int)(int16_t)(m & 0xffffu), hi = (int)(int16_t)(m >> 16);
                    if (x >= 0)
                        out[x] = lo >= a.thr ? -1 : lo;
                    if (y >= 0)
                        out[y] = hi >= a.thr ? -1 : hi;
                } else if (x >= 0) {
                    out[x] = (int32_t)m;
                }
            }
        }
    }
}

// The instances: 16 rows a thread for every group size, 32 rows for the
// 16-bit kernel's groups of 8 (long queries); with SWDB_WIDE, groups of
// 16 (32 rows in 16 bits, 16 in 32) or 32 (32 and 8).
typedef void (*swdb_kfn)(const swdb_kargs);

// The 16-bit instance of groups of G x R, with the IMAD pairs or not.
template <int G, int R>
static swdb_kfn swdb_k16(bool pi)
{
#if SWDB_PAIR_IMAD
    if (pi)
        return swdb_kernel<true, G, R, true, swdb_b2b_pairs(G, R)>;
#endif
    (void)pi;
    return swdb_kernel<true, G, R>;
}

static swdb_kfn swdb_pick(int bits, int g, int r, bool pi)
{
    if (bits == 16 && g == 8 && r == 32)
        return swdb_k16<8, 32>(pi);
#if SWDB_WIDE == 16
    if (g == 16 && r == 32 && bits == 16)
        return swdb_kernel<true, 16, 32>;
    if (g == 16 && r == 16 && bits == 32)
        return swdb_kernel<false, 16, 16>;
#elif SWDB_WIDE == 32
    // The host asks for 16 rows in 32 bits; 8 keep its profile slice (512
    // rows x 4 bytes x 33) in static shared memory, and a pass of 1,024
    // rows is still a whole number of them.
    if (g == 32 && r == 32 && bits == 16)
        return swdb_kernel<true, 32, 32>;
    if (g == 32 && r == 16 && bits == 32)
        return swdb_kernel<false, 32, 8>;
#endif
    if (r != 16)
        return NULL;
    switch (g) {
    case 1: return bits == 16 ? swdb_k16<1, 16>(pi) : swdb_kernel<false, 1, 16>;
    case 2: return bits == 16 ? swdb_k16<2, 16>(pi) : swdb_kernel<false, 2, 16>;
    case 4: return bits == 16 ? swdb_k16<4, 16>(pi) : swdb_kernel<false, 4, 16>;
    case 8: return bits == 16 ? swdb_k16<8, 16>(pi) : swdb_kernel<false, 8, 16>;
    default: return NULL;
    }
}

int swdb_launch(int bits, int g, int r, int grid, bool pi, const swdb_kargs *a, cudaStream_t s)
{
    swdb_kfn k = swdb_pick(bits, g, r, pi);
    if (k == NULL)
        return (int)cudaErrorInvalidValue;
    k<<<grid, SWDB_THREADS, 0, s>>>(*a);
    return (int)cudaGetLastError();
}

int swdb_occupancy(int bits, int g, int r, int *blocks_per_sm)
{
    swdb_kfn k = swdb_pick(bits, g, r, SWDB_PAIR_IMAD == 1);
    if (k == NULL)
        return (int)cudaErrorInvalidValue;
    int e = (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, SWDB_THREADS, 0);
    if (e == 0 && SWDB_PAIR_IMAD == 2 && bits == 16) {
        // The launch may take the IMAD instance instead: the fewer of the
        // two (its shared memory, at most 38 KB a block, keeps as many
        // resident on an H100), and that instance loaded too.
        int n = 0;
        e = (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, swdb_pick(bits, g, r, true),
                                                               SWDB_THREADS, 0);
        if (e == 0 && n < *blocks_per_sm)
            *blocks_per_sm = n;
    }
    return e;
}
