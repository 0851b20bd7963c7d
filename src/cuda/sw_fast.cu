// sw_fast.cu - "fast": one long pair on the whole GPU, beyond the paper.
//
// Two versions share the strips, the tagged hand-off and the recurrence
// described here.  Version 2 (further down; the default whenever every
// substitution score + gap open fits in a signed byte) takes the
// per-column overhead out of version 1's step; version 1 (params impl=1)
// also serves wider scores from the matrix in shared memory.
//
// The query is cut into strips of 32 * R rows; a warp owns a strip and
// sweeps it from the first target column to the last.  Lane l holds R
// consecutive rows in registers (a register micro-tile of R cells per
// column) and runs one column behind lane l - 1, which hands it the bottom
// row's H and F through __shfl_up_sync; each lane loads its own target
// residues by index, two columns ahead.  Lane 0
// takes the strip above's bottom row from global memory; lane 31 writes
// this strip's bottom row there for the strip below.
//
// No grid-wide barrier and no separate flag: each (H, F) pair of a bottom
// row is stored as one 64-bit word that carries its own progress tag,
//   G + open (vbits) | F + open (vbits) | strip number (64 - 2 vbits)
// where G = H - open and F >= (G of the row above) >= -open, so both
// fields are in [0, best possible score]; vbits is sized from that bound
// (21 bits for 1 Mbp DNA at +2, leaving 22 bits of strip number), and the
// strip number is never all ones (the fill of a fresh buffer).  Lane 31
// writes each word with st.relaxed.gpu (single-copy atomic) as soon as the
// cell is done.  The warp of strip s + 1 loads 16 columns at a time
// (ld.relaxed.gpu, one word per lane, issued 12 columns early so the load
// latency is hidden) and accepts them when every tag says strip s;
// otherwise it reloads until they do (that wait is the "sync" time
// reported).  A word is never read before it is complete, the tag is
// unique within a call, and no fence is needed on either side.  Two row
// buffers (strip parity) suffice: strip s + 2 writes column j of buffer
// s & 1 only after strip s + 1 computed column j, hence after it read it.
// Warps take strips in order from an atomic ticket, so the strip a warp
// waits on is always owned by a running warp: no deadlock whatever the
// grid size; the kernel is persistent (one launch, grid from occupancy).

// The cell update works on G = H - open and uses the sm_90 DPX
// instructions (__viaddmax_s32, __viaddmax_s32_relu, __vimax3_s32):
//   E = max(E - ext, G_left)
//   Tg = max(G_diag + (s + open), E, 0) - open        (no vertical input)
//   F = max(F_up - e', Tg_up),  e' = min(ext, open)    (the only chain)
//   G = max(Tg, F - open)
// which is Gotoh's recurrence: F = max(F_up - ext, G_up) and
// G_up = max(Tg_up, F_up - open).  So the vertical dependency is one
// operation per row and the rest of a column runs in parallel.
// Substitution scores plus the gap open come from a per-warp query profile
// in shared memory, one signed byte per row and residue (four rows per
// 32-bit load), when every score + open fits in a byte; otherwise from the
// matrix in shared memory, one lookup per cell.  Scores are 32-bit.
//
// The best cell: each lane takes a column's maximum (one vimax3 per two
// cells) and only when it reaches the lane's best so far finds the first
// row holding it; lanes, then strips are reduced with the tie rule.
//
// Memory is linear: two rows of n tagged (H, F) words and a best cell per
// strip.  The sync share reported is the fraction of each warp's time
// spent waiting for the row above (clock64 around the wait), times the
// kernel time.
#include <string.h>

#include "sw_common.cuh"

#define NEG HAY_SW_NEG_INF
#define CHUNK 16   // columns per load of the row above
#define PF_AT (CHUNK - 12)   // the next chunk's load is issued at this column of a chunk
#define FULL 0xffffffffu
#define TPAD_FRONT 32   // version 2: padding before the target copy
#define TPAD_BACK 64    // and after it

struct FastArgs {
    const uint8_t *q, *t;
    const uint8_t *tpad;   // version 2: t with TPAD_FRONT padding codes before it
    const int32_t *mat;
    int alpha, go, ge, ep, m, n, nstrips;   // ep = min(ge, go)
    int vbits, tbits;   // word layout (see above)
    unsigned long long *rowbuf[2];
    int *ticket;
    int4 *bests;
    unsigned long long *cycles;   // [0] waiting, [1] owning strips
};

static __host__ __device__ __forceinline__ size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

static __device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// A warp's next strip (the same for all its lanes).
static __device__ __forceinline__ int fast_next_strip(const FastArgs &a, int lane)
{
    int s = 0;
    if (lane == 0)
        s = atomicAdd(a.ticket, 1);
    return __shfl_sync(FULL, s, 0);
}

// A strip's end: the warp's best, by the tie rule, to the strip's slot;
// returns the cycles since t_start.  The profile is rebuilt for the next
// strip after the __syncwarp.
static __device__ __forceinline__ long long fast_strip_end(const FastArgs &a, int s, int lane,
                                                           int bs, int bi, int bj,
                                                           long long t_start)
{
    const int4 best = hay_sw_warp_best(bs, bi, bj);
    if (lane == 0)
        a.bests[s] = best;
    const long long t = clock64() - t_start;
    __syncwarp();
    return t;
}

// The kernel's end: cycles spent waiting (spin) and owning strips.
static __device__ __forceinline__ void fast_kernel_end(const FastArgs &a, int lane,
                                                       long long spin, long long owned)
{
    if (lane == 0) {
        atomicAdd(a.cycles, (unsigned long long)spin);
        atomicAdd(a.cycles + 1, (unsigned long long)owned);
    }
}

// One column of a lane's R rows (both versions): sp[r] is the profile
// score plus open of row r, Gin/E the lane's column before, gU/fU the row
// above's (G, F) and gprev its G one column before.  Writes Gout, updates
// E, gprev, outG/outF (the lane's last row, for the lane below) and
// returns the column's largest G.
template <int R>
static __device__ __forceinline__ int fast_column(const FastArgs &a, const int (&sp)[R],
                                                  int (&E)[R], const int *Gin, int *Gout,
                                                  int &gprev, int gU, int fU, int &outG,
                                                  int &outF)
{
    // Off the vertical chain: Tg[r] = max(0, H_diag + s, E) - open.
    int Tg[R];
    int diag = gprev;
#pragma unroll
    for (int r = 0; r < R; r++) {
        E[r] = __viaddmax_s32(E[r], -a.ge, Gin[r]);
        Tg[r] = __viaddmax_s32_relu(diag, sp[r], E[r]) - a.go;
        diag = Gin[r];
    }
    // The chain, one operation per row: F[r] = max(F[r-1] - e', Tg[r-1])
    // with e' = min(extend, open), because G[r-1] = max(Tg[r-1],
    // F[r-1] - open); then G[r] = max(Tg[r], F[r] - open) off it.
    int fA = __viaddmax_s32(fU, -a.ge, gU);
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (r > 0)
            fA = __viaddmax_s32(fA, -a.ep, Tg[r - 1]);
        Gout[r] = __viaddmax_s32(fA, -a.go, Tg[r]);
    }
    outG = Gout[R - 1];
    outF = fA;
    gprev = gU;
    int cm = Gout[0];
#pragma unroll
    for (int r = 1; r + 1 < R; r += 2)
        cm = __vimax3_s32(cm, Gout[r], Gout[r + 1]);
    if ((R & 1) == 0)
        cm = max(cm, Gout[R - 1]);
    return cm;
}

template <int R, bool PACKED>
struct FastLane {
    int E[R];
    int bs, bi, bj;
    int outG, outF, gprev, tcur, tnext;   // tcur, tnext: residues of columns j, j + 1
    uint8_t qc[R];   // !PACKED: query codes (alpha for rows past m)
    unsigned long long nx;   // this lane's word of the next chunk of the row above
    bool nx_loaded;          // (warp-uniform) the next chunk's loads are issued

    static __device__ __forceinline__ int tload(const FastArgs &a, int j)
    {
        return j >= 0 && j < a.n ? (int)__ldg(a.t + j) : 0;
    }

    __device__ __forceinline__ void fetch(const FastArgs &a, int k0, int lane,
                                          const unsigned long long *above)
    {
        if (lane < min(CHUNK, a.n - k0)) {
            if (above != NULL)
                nx = ld_relaxed(above + k0 + lane);
        }
    }

    // Column j = k - lane of this lane's R rows: reads Gin (column j - 1),
    // writes Gout (column j).
    __device__ __forceinline__ void step(const FastArgs &a, int k, int lane, int s, int row0,
                                         const uint8_t *prof, const int *smat, int2 *stage_gf,
                                         const unsigned long long *above,
                                         unsigned long long *below,
                                         long long &spin, const int *Gin, int *Gout)
    {
        if (k < a.n) {
            const int ph = k & (CHUNK - 1);
            if (ph == 0) {
                const int cnt = min(CHUNK, a.n - k);
                const unsigned long long want = (unsigned long long)(s - 1);
                const unsigned long long tmask = (1ull << a.tbits) - 1;
                if (!nx_loaded)
                    fetch(a, k, lane, above);
                if (above != NULL &&
                    !__all_sync(FULL, lane >= cnt || (nx & tmask) == want)) {
                    const long long t0 = clock64();
                    do {
                        if (lane < cnt)
                            nx = ld_relaxed(above + k + lane);
                    } while (!__all_sync(FULL, lane >= cnt || (nx & tmask) == want));
                    spin += clock64() - t0;
                }
                __syncwarp();   // lane 0 is done with the previous chunk
                if (lane < cnt) {
                    stage_gf[lane] = above != NULL
                                         ? make_int2((int)(nx >> (a.vbits + a.tbits)) - a.go,
                                                     (int)((nx >> a.tbits) &
                                                           ((1ull << a.vbits) - 1)) -
                                                         a.go)
                                         : make_int2(-a.go, NEG);
                }
                __syncwarp();
                nx_loaded = false;
            } else if (ph == PF_AT && k - PF_AT + CHUNK < a.n) {
                fetch(a, k - PF_AT + CHUNK, lane, above);
                nx_loaded = true;
            }
        }
        int gU = __shfl_up_sync(FULL, outG, 1);
        int fU = __shfl_up_sync(FULL, outF, 1);
        if (lane == 0 && k < a.n) {
            const int2 v = stage_gf[k & (CHUNK - 1)];
            gU = v.x;
            fU = v.y;
        }
        const int j = k - lane;
        // The residue of this column was loaded two steps ago (an L2 hit
        // takes longer than one step); load the one after next.
        const int tU = tcur;
        tcur = tnext;
        tnext = tload(a, j + 2);
        if (j < 0 || j >= a.n)
            return;
        int sp[R];
        if (PACKED) {
            uint32_t w[R / 4];
            const uint8_t *src = prof + tU * (32 * R) + lane * R;
            if (R == 4) {
                w[0] = *(const uint32_t *)src;
            } else if (R == 8) {
                const uint2 v = *(const uint2 *)src;
                w[0] = v.x;
                w[1 % (R / 4)] = v.y;
            } else {
                const uint4 v = *(const uint4 *)src;
                w[0] = v.x;
                w[1 % (R / 4)] = v.y;
                w[2 % (R / 4)] = v.z;
                w[3 % (R / 4)] = v.w;
            }
#pragma unroll
            for (int r = 0; r < R; r++)
                sp[r] = (int)(int8_t)(w[r >> 2] >> (8 * (r & 3)));
        } else {
#pragma unroll
            for (int r = 0; r < R; r++)
                sp[r] = smat[qc[r] * a.alpha + tU] + a.go;
        }
        const int cm = fast_column<R>(a, sp, E, Gin, Gout, gprev, gU, fU, outG, outF);
        // The lane's best: only when this column reaches it.  This column
        // comes after the recorded one, so the tie rule reduces to "higher,
        // or equal in a smaller row".  Rows past m (the last strip's) are
        // not excluded: their values come from real rows above minus a gap
        // penalty, so a record there never wins the final reduction.
        const int hm = cm + a.go;
        if (hm > 0 && hm >= bs) {
            int rr = R - 1;
#pragma unroll
            for (int r = R - 2; r >= 0; r--)
                rr = Gout[r] == cm ? r : rr;
            if (hm > bs || row0 + rr < bi) {
                bs = hm;
                bi = row0 + rr;
                bj = j;
            }
        }
        if (lane == 31 && below != NULL)
            st_relaxed(below + j,
                       ((unsigned long long)(unsigned)(outG + a.go) << (a.vbits + a.tbits)) |
                           ((unsigned long long)(unsigned)(outF + a.go) << a.tbits) |
                           (unsigned long long)s);
    }
};

template <int R, bool PACKED>
static __global__ void fast_kernel(FastArgs a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const int S = 32 * R;
    const size_t mat_bytes = PACKED ? 0 : align16(sizeof(int) * (size_t)(a.alpha + 1) * a.alpha);
    const size_t prof_bytes = PACKED ? align16((size_t)a.alpha * S) : 0;
    const size_t warp_bytes = prof_bytes + CHUNK * sizeof(int2) + CHUNK;
    int *smat = (int *)smem;
    uint8_t *prof = smem + mat_bytes + warp * align16(warp_bytes);
    int2 *stage_gf = (int2 *)(prof + prof_bytes);

    if (!PACKED) {
        for (int x = threadIdx.x; x < (a.alpha + 1) * a.alpha; x += blockDim.x)
            smat[x] = x < a.alpha * a.alpha ? a.mat[x] : -(1 << 20);
        __syncthreads();
    }
    (void)nwarps;
    long long spin = 0, owned = 0;
    FastLane<R, PACKED> L;
    for (;;) {
        const int s = fast_next_strip(a, lane);
        if (s >= a.nstrips)
            break;
        const long long t_start = clock64();
        const int row0 = s * S + lane * R;
        if (PACKED) {
            // Row r of this lane, residue c: byte c * S + lane * R + r.
            for (int c = 0; c < a.alpha; c++) {
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const int i = row0 + r;
                    int v = -128;
                    if (i < a.m)
                        v = a.mat[a.q[i] * a.alpha + c] + a.go;
                    prof[c * S + lane * R + r] = (uint8_t)(int8_t)v;
                }
            }
        } else {
#pragma unroll
            for (int r = 0; r < R; r++)
                L.qc[r] = row0 + r < a.m ? a.q[row0 + r] : (uint8_t)a.alpha;
        }
        __syncwarp();
        int G0[R], G1[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            G0[r] = -a.go;
            G1[r] = -a.go;
            L.E[r] = NEG;
        }
        L.bs = 0;
        L.bi = 0x7fffffff;
        L.bj = 0x7fffffff;
        L.outG = -a.go;
        L.outF = NEG;
        L.gprev = -a.go;
        L.tcur = L.tload(a, -lane);   // columns k - lane and k + 1 - lane at k = 0
        L.tnext = L.tload(a, 1 - lane);
        // (Selects, not an index: an indexed kernel parameter goes to local memory.)
        unsigned long long *mine = (s & 1) ? a.rowbuf[1] : a.rowbuf[0];
        unsigned long long *other = (s & 1) ? a.rowbuf[0] : a.rowbuf[1];
        const unsigned long long *above = s > 0 ? other : NULL;
        unsigned long long *below = s + 1 < a.nstrips ? mine : NULL;
        L.nx = 0;
        L.nx_loaded = false;
        const int kend = a.n + 31;
        for (int k = 0; k < kend; k += 2) {
            L.step(a, k, lane, s, row0, prof, smat, stage_gf, above, below, spin, G0, G1);
            L.step(a, k + 1, lane, s, row0, prof, smat, stage_gf, above, below, spin, G1, G0);
        }
        owned += fast_strip_end(a, s, lane, L.bs, L.bi, L.bj, t_start);
    }
    fast_kernel_end(a, lane, spin, owned);
}

// ---------------------------------------------------------------------------
// Version 2 (the default when the byte profile applies): the same strips,
// tags and recurrence, with the per-column overhead taken out of the step.
// - The target is read from a padded copy (32 residues of a padding code
//   before it, 64 after) whose profile row is -128, so that a lane left of
//   column 0 computes exactly H = 0 (its inputs are the boundary's) and a
//   lane right of column n - 1 computes values below some real cell (they
//   never win the best cell and are never stored): no range test per step.
// - The loop runs in chunks of C columns (C = 8 or 16, param chunk=),
//   fully unrolled, so every phase test is resolved at compile time: the
//   row above is accepted once per chunk (polled as in version 1, the next
//   chunk prefetched at phase C / 4), staged in shared memory and
//   broadcast to lane 0 by one load per step.
// - Lane 31 puts its (G, F) into a shared stage (one store per step); once
//   per chunk C lanes pack and store C tagged words at once (coalesced)
//   instead of one tagged word per step.  Since 32 is a multiple of C,
//   lane 31's columns k0 - 32 .. k0 - 33 + C are complete at phase C - 2
//   and land in the stage at index column & (C - 1).
// - Each lane loads its own residue (column k - lane) from the padded copy
//   by index: no shuffle feeds the profile load.
template <int R, int C>
static __global__ void fast2_kernel(FastArgs a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int S = 32 * R;
    const size_t prof_bytes = align16((size_t)(a.alpha + 1) * S);
    const size_t warp_bytes = align16(prof_bytes + 2 * C * sizeof(int2));
    uint8_t *prof = smem + warp * warp_bytes;
    int2 *stage_in = (int2 *)(prof + prof_bytes);   // the row above, columns k0 .. k0 + C - 1
    int2 *stage_out = stage_in + C;                 // lane 31's (G, F), by column & (C - 1)
    const unsigned long long tmask = (1ull << a.tbits) - 1, vmask = (1ull << a.vbits) - 1;
    long long spin = 0, owned = 0;
    for (;;) {
        const int s = fast_next_strip(a, lane);
        if (s >= a.nstrips)
            break;
        const long long t_start = clock64();
        const int row0 = s * S + lane * R;
        // Row r of this lane, residue c: byte c * S + lane * R + r; residue
        // alpha (the padding code) and rows past m: -128.
        for (int c = 0; c <= a.alpha; c++) {
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int i = row0 + r;
                int v = -128;
                if (i < a.m && c < a.alpha)
                    v = a.mat[a.q[i] * a.alpha + c] + a.go;
                prof[c * S + lane * R + r] = (uint8_t)(int8_t)v;
            }
        }
        int G[2][R], E[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            G[0][r] = -a.go;
            G[1][r] = -a.go;
            E[r] = NEG;
        }
        int outG = -a.go, outF = NEG, gprev = -a.go;
        int bs = 0, bi = 0x7fffffff, bj = 0x7fffffff, thr = 1 - a.go;   // record when G >= thr
        unsigned long long *mine = (s & 1) ? a.rowbuf[1] : a.rowbuf[0];
        unsigned long long *other = (s & 1) ? a.rowbuf[0] : a.rowbuf[1];
        const unsigned long long *above = s > 0 ? other : NULL;
        unsigned long long *below = s + 1 < a.nstrips ? mine : NULL;
        const uint8_t *tl = a.tpad + TPAD_FRONT - lane;   // tl[k]: residue of column k - lane
        const unsigned long long want = (unsigned long long)(s - 1);
        unsigned long long nx = 0;
        if (above != NULL && lane < min(C, a.n))
            nx = ld_relaxed(above + lane);
        __syncwarp();
        // The last chunk starts at n + 32 - C or later, so its flush (phase
        // C - 2) comes at or after step n + 30 (lane 31's column n - 1).
        for (int k0 = 0; k0 < a.n + 32; k0 += C) {
            const int cnt = min(C, a.n - k0);
            if (above != NULL && cnt > 0 &&
                !__all_sync(FULL, lane >= cnt || (nx & tmask) == want)) {
                const long long t0 = clock64();
                do {
                    if (lane < cnt)
                        nx = ld_relaxed(above + k0 + lane);
                } while (!__all_sync(FULL, lane >= cnt || (nx & tmask) == want));
                spin += clock64() - t0;
            }
            if (lane < C) {
                int2 v = make_int2(-a.go, NEG);
                if (above != NULL && lane < cnt)
                    v = make_int2((int)(nx >> (a.vbits + a.tbits)) - a.go,
                                  (int)((nx >> a.tbits) & vmask) - a.go);
                stage_in[lane] = v;
            }
            __syncwarp();
#pragma unroll
            for (int p = 0; p < C; p++) {
                const int k = k0 + p;
                if (p == (C / 4) && above != NULL && lane < min(C, a.n - k0 - C))
                    nx = ld_relaxed(above + k0 + C + lane);
                int gU = __shfl_up_sync(FULL, outG, 1);
                int fU = __shfl_up_sync(FULL, outF, 1);
                const int2 v = stage_in[p];
                if (lane == 0) {
                    gU = v.x;
                    fU = v.y;
                }
                const int tU = __ldg(tl + k);
                const int *Gin = G[p & 1];
                int *Gout = G[(p + 1) & 1];
                int sp[R];
                {
                    uint32_t w[R / 4];
                    const uint8_t *src = prof + tU * S + lane * R;
                    if (R == 4) {
                        w[0] = *(const uint32_t *)src;
                    } else if (R == 8) {
                        const uint2 x = *(const uint2 *)src;
                        w[0] = x.x;
                        w[1 % (R / 4)] = x.y;
                    } else {
#pragma unroll
                        for (int x = 0; x < R / 16; x++) {
                            const uint4 v = ((const uint4 *)src)[x];
                            w[4 * x] = v.x;
                            w[4 * x + 1] = v.y;
                            w[4 * x + 2] = v.z;
                            w[4 * x + 3] = v.w;
                        }
                    }
#pragma unroll
                    for (int r = 0; r < R; r++)
                        sp[r] = (int)(int8_t)(w[r >> 2] >> (8 * (r & 3)));
                }
                const int cm = fast_column<R>(a, sp, E, Gin, Gout, gprev, gU, fU, outG, outF);
                if (cm >= thr) {
                    // Columns come in order, so the tie rule is "higher, or
                    // equal in a smaller row" (see version 1 for rows past
                    // m and columns past n).
                    int rr = R - 1;
#pragma unroll
                    for (int r = R - 2; r >= 0; r--)
                        rr = Gout[r] == cm ? r : rr;
                    const int hm = cm + a.go;
                    if (hm > bs || row0 + rr < bi) {
                        bs = hm;
                        bi = row0 + rr;
                        bj = k - lane;
                        thr = cm;
                    }
                }
                if (lane == 31)
                    stage_out[(p + 1) & (C - 1)] = make_int2(outG, outF);   // column k - 31
                if (p == C - 2) {
                    // Lane 31 has columns k0 - 32 .. k0 - 33 + C: store them.
                    __syncwarp();
                    const int j = k0 - 32 + lane;
                    if (lane < C && below != NULL && j >= 0 && j < a.n) {
                        const int2 o = stage_out[lane];
                        st_relaxed(below + j,
                                   ((unsigned long long)(unsigned)(o.x + a.go)
                                    << (a.vbits + a.tbits)) |
                                       ((unsigned long long)(unsigned)(o.y + a.go) << a.tbits) |
                                       (unsigned long long)s);
                    }
                    __syncwarp();
                }
            }
            __syncwarp();   // every lane has read stage_in
        }
        owned += fast_strip_end(a, s, lane, bs, bi, bj, t_start);
    }
    fast_kernel_end(a, lane, spin, owned);
}

template <int R, bool PACKED>
static const void *fast_pick(void)
{
    return (const void *)fast_kernel<R, PACKED>;
}

// One launch of version ver (1 or 2).
static int fast_launch(const hay_sw_dev *p, const hay_sw_params *pa, int ver, int packed,
                       hay_sw_out *out)
{
    int st = HAY_OK;
    void *d_mem = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    const int m = p->m, n = p->n;
    int R, threads, blocks, nstrips, per_sm = 0, chunk, rows, fa_vbits, fa_tbits;
    size_t smem, off;
    const void *kern;
    FastArgs fa;
    float ms = 0;
    unsigned long long cyc[2] = {0, 0};

    // R rows per lane; tile = rows per strip (32 R).
    if (pa->tile) {
        R = pa->tile / 32;
        if (pa->tile % 32 != 0 || (R != 4 && R != 8 && R != 16 && R != 32) ||
            (R == 32 && ver != 2))
            return HAY_ERR_INVALID;
    } else if (ver == 2) {
        // The smallest strips with at most five per SM: more strips are
        // more warps to hide latency but a longer pipeline fill (each
        // strip starts ~lanes + chunk columns after the one above) and,
        // past the resident warps, a second wave.  On the H200 this picks
        // the fastest of the swept shapes at 100k, 300k and 1M rows
        // (docs/PERF.md).
        R = 4;
        while (R < 32 && (m + 32 * R - 1) / (32 * R) > 5 * p->sms)
            R *= 2;
    } else {
        R = m >= 512 * 3 * p->sms ? 16 : m >= 256 * 3 * p->sms ? 8 : 4;
    }
    rows = 32 * R;
    threads = pa->threads ? pa->threads : 128;
    if ((threads & 31) != 0 || threads > 1024)
        return HAY_ERR_INVALID;
    if (pa->chunk != 0 && pa->chunk != 8 && pa->chunk != 16)
        return HAY_ERR_INVALID;
    // 32 rows x 16 columns unrolled overflow the instruction cache (the
    // H200: 0.93 against 1.74 TCUPS at 1 Mbp), so R = 32 takes 8.
    chunk = pa->chunk ? pa->chunk : R == 32 ? 8 : 16;
    if (R == 32 && chunk != 8)
        return HAY_ERR_INVALID;
    if (ver == 2) {
        smem = (size_t)(threads / 32) *
               align16(align16((size_t)(p->alpha + 1) * rows) + 2 * (size_t)chunk * sizeof(int2));
    } else {
        const size_t mat_bytes = packed ? 0 : align16(sizeof(int) * (size_t)(p->alpha + 1) * p->alpha);
        const size_t prof_bytes = packed ? align16((size_t)p->alpha * rows) : 0;
        const size_t warp_bytes = align16(prof_bytes + CHUNK * sizeof(int2) + CHUNK);
        smem = mat_bytes + (size_t)(threads / 32) * warp_bytes;
    }
    if (smem > 200 * 1024)
        return HAY_ERR_INVALID;
    if (ver == 2 && chunk == 8)
        kern = R == 4    ? (const void *)fast2_kernel<4, 8>
               : R == 8  ? (const void *)fast2_kernel<8, 8>
               : R == 16 ? (const void *)fast2_kernel<16, 8>
                         : (const void *)fast2_kernel<32, 8>;
    else if (ver == 2)
        kern = R == 4   ? (const void *)fast2_kernel<4, 16>
               : R == 8 ? (const void *)fast2_kernel<8, 16>
                        : (const void *)fast2_kernel<16, 16>;
    else
        kern = R == 4   ? (packed ? fast_pick<4, true>() : fast_pick<4, false>())
               : R == 8 ? (packed ? fast_pick<8, true>() : fast_pick<8, false>())
                        : (packed ? fast_pick<16, true>() : fast_pick<16, false>());
    if (smem > 48 * 1024)
        SW_CUDA(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    SW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, threads, smem));
    if (per_sm < 1)
        return HAY_ERR_INVALID;
    nstrips = (m + rows - 1) / rows;
    {
        // Bits for G + open and F + open: both lie in [0, best possible].
        long long bound = 0;
        for (int k = 0; k < p->alpha * p->alpha; k++)
            if (p->h_mat[k] > bound)
                bound = p->h_mat[k];
        bound *= m < n ? m : n;
        fa_vbits = 1;
        while (fa_vbits < 31 && (1LL << fa_vbits) <= bound)
            fa_vbits++;
        fa_tbits = 64 - 2 * fa_vbits;
        if (fa_tbits < 2 || (unsigned long long)nstrips >= (1ull << fa_tbits) - 1)
            return HAY_ERR_TOO_LARGE;   // strip numbers would not fit the tag
    }
    if (pa->blocks) {
        blocks = pa->blocks;   // any size is safe: strips are taken in order
    } else {
        // Strips form a pipeline that runs at the pace of its slowest
        // warp, so give every SM the same number of blocks: a multiple of
        // the SM count (or fewer blocks than SMs), at most eight warps per
        // SM (two warps per scheduler; on the H200, 1 Mbp x 1 Mbp ran
        // version 1 at 1078 GCUPS with two 4-warp blocks per SM, 925 with
        // four and 663 with one; docs/PERF.md).
        const int wpb = threads / 32;
        const int need = (nstrips + wpb - 1) / wpb;
        if (need <= p->sms) {
            blocks = need;
        } else {
            int k = (need + p->sms - 1) / p->sms, kmax = 8 / wpb > 0 ? 8 / wpb : 1;
            if (k > kmax)
                k = kmax;
            blocks = (k < per_sm ? k : per_sm) * p->sms;
        }
    }

    {
        const size_t rb = align16(sizeof(unsigned long long) * (size_t)n);
        const size_t tp = ver == 2 ? align16((size_t)n + TPAD_FRONT + TPAD_BACK) : 0;
        const size_t total = 2 * rb + align16(sizeof(int4) * (size_t)nstrips) + 16 + 16 + tp;
        SW_CUDA(cudaMalloc(&d_mem, total));
        uint8_t *b = (uint8_t *)d_mem;
        memset(&fa, 0, sizeof fa);
        fa.rowbuf[0] = (unsigned long long *)b;
        fa.rowbuf[1] = (unsigned long long *)(b + rb);
        off = 2 * rb;
        fa.bests = (int4 *)(b + off);
        off += align16(sizeof(int4) * (size_t)nstrips);
        fa.ticket = (int *)(b + off);
        fa.cycles = (unsigned long long *)(b + off + 16);
        // Row buffers all ones (a tag no strip has); ticket and cycles
        // zero.
        SW_CUDA(cudaMemset(b, 0xff, 2 * rb));
        SW_CUDA(cudaMemset(b + off, 0, 32));
        if (ver == 2) {
            uint8_t *tpad = b + off + 32;
            SW_CUDA(cudaMemset(tpad, p->alpha, (size_t)n + TPAD_FRONT + TPAD_BACK));
            SW_CUDA(cudaMemcpy(tpad + TPAD_FRONT, p->d_t, (size_t)n, cudaMemcpyDeviceToDevice));
            fa.tpad = tpad;
        }
    }
    fa.q = p->d_q;
    fa.t = p->d_t;
    fa.mat = p->d_mat;
    fa.alpha = p->alpha;
    fa.go = p->go;
    fa.ge = p->ge;
    fa.ep = p->ge < p->go ? p->ge : p->go;
    fa.m = m;
    fa.n = n;
    fa.nstrips = nstrips;
    fa.vbits = fa_vbits;
    fa.tbits = fa_tbits;
    for (int k = 0; k < 2; k++)
        SW_CUDA(cudaEventCreate(&ev[k]));
    SW_CUDA(cudaEventRecord(ev[0], 0));
    {
        void *args[1] = {(void *)&fa};
        SW_CUDA(cudaLaunchKernel(kern, dim3(blocks), dim3(threads), args, smem, 0));
    }
    SW_CUDA(cudaEventRecord(ev[1], 0));
    SW_CUDA(cudaEventSynchronize(ev[1]));
    SW_CUDA(cudaGetLastError());
    SW_CUDA(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    SW_CUDA(cudaMemcpy(cyc, fa.cycles, sizeof cyc, cudaMemcpyDeviceToHost));
    st = hay_sw_fetch_best(fa.bests, (size_t)nstrips, out);
    if (st != HAY_OK)
        goto fail;
    out->fill_s = 1e-3 * ms;
    out->sync_s = cyc[1] > 0 ? out->fill_s * ((double)cyc[0] / (double)cyc[1]) : 0.0;
    if (out->sync_s > out->fill_s)
        out->sync_s = out->fill_s;
    out->compute_s = out->fill_s - out->sync_s;
    out->blocks = blocks;
    out->threads = threads;
fail:
    cudaFree(d_mem);
    for (int k = 0; k < 2; k++)
        if (ev[k])
            cudaEventDestroy(ev[k]);
    return st;
}

int hay_sw_fast_run(const hay_sw_dev *p, const hay_sw_params *pa, hay_sw_out *out)
{
    int packed = 1;
    for (int k = 0; k < p->alpha * p->alpha; k++) {
        const int v = p->h_mat[k] + p->go;
        if (v < -127 || v > 127)
            packed = 0;
    }
    if (pa->impl > 2 || (pa->impl == 2 && !packed))
        return HAY_ERR_INVALID;
    return fast_launch(p, pa, pa->impl ? pa->impl : packed ? 2 : 1, packed, out);
}
