// fdr_gpu.cu - the CUDA engine fdr-gpu: a shift-or filter over hashed
// three-byte windows with its table in shared memory, short literals
// through 2-bit codes and direct lists, candidates checked against a
// bitmap of prefixes and verified against records in global memory
// (fdr_gpu.h explains the tables, fdr_gpu.cuh a thread's work).
//
// Each thread owns `run` contiguous bytes of the piece, read as aligned
// 16-byte words (the driver's padding makes the words around the piece
// readable; bytes outside it never make a match), after a warm-up over the
// 4 bytes before its run.  The blocks stay resident and their warps loop
// over chunks of 32 runs, taken from a counter in the job's scratch (else
// dealt round the grid), so the tables (filter, prefix bitmap, short
// codes) are loaded into shared memory once per block.  A set split into
// groups takes one launch per group.
//
// The filter runs over a whole 16-byte word with no branch, reading
// shared memory only; counts of 1- and 2-byte literals are summed per word
// there (their 2-bit codes: 16 KiB, where 8-bit codes took 64 KiB and
// halved the blocks an SM holds).  Every other hit (a filter candidate, a
// slow short code, any short hit when the list or counts per pattern are
// wanted) goes to its warp's queue in shared memory, placed by ballot, and
// when 32 wait the warp's lanes verify them side by side: verifying each
// at once, one lane at a time while the warp waited, ran at 23 GB/s
// (snort-community) and 7 GB/s (et-open) on the H200.  The per-byte
// branch, atomics and 64-bit state of the loop before it: docs/notes/
// 2026-11-26-session11.md, "Session 15".
//
// Results (cuda_engine.h): the count with one atomic per block; counts per
// pattern with one atomic per match; the list staged per warp in shared
// memory (SCAP / warps entries each, places taken with one shared atomic
// by the lanes that emit together) and written by the warp when a step
// could fill it, one global atomic per flush (the reservation: *d_slots
// counts every match even past cap, and nothing is written past cap),
// except the short matches that their codes tell, which go straight out
// from the warp, 32 a round (queue_dev::short_list: snort's list kernel
// 7.4 ms a GiB before, 4.7 after, et-open's 29 and 22; H100).  A
// block-wide buffer flushed after each word round overflowed (a round of
// 1,024 threads covers 16 KiB, about 11,000 matches of et-open; the rest
// took a global atomic each): et-open's list kernel 49 ms a GiB, 41.7 with
// the warps' buffers (H100; the count: 3.6 ms).
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../core/internal.h"
#include "../cpu/cpu.h"
#include "cuda_params.h"
}
#include "block.cuh"
#include "fdr_gpu.cuh"

namespace {

// Entries of the shared match buffer (lists).
constexpr unsigned SCAP = 2048;
// Candidates a warp holds: below 32 between words, 32 more in a round.
constexpr unsigned QCAP = 64;
// What a kernel makes (a template argument: the count's loop stays as it
// was): the count (and per-pattern counts), the list, the bitmap of match
// ends, or the least match key (cuda_engine.h).
enum { OUT_COUNT = 0, OUT_LIST = 1, OUT_MARK = 2, OUT_FIRST = 3, NOUT = 4 };

struct fdr_dev {
    hay_fdr_gpu_tables h;       // host copy (plen, sizes)
    uint32_t *d_table;
    uint8_t *d_scode;
    uint32_t *d_short_first, *d_short_ent, *d_slot_first, *d_pmap;
    uint64_t *d_short_pair;
    hay_fdr_gpu_lit *d_lits;
    uint8_t *d_bytes, *d_plen;
    uint32_t run, threads;
    uint64_t max_len;
    bool fixed_chunks;          // HAY_CUDA_FDR_CHUNKS=static (fdr_launch)
    unsigned grid[2][NOUT][2][2];   // [caseless][out][short][fast]: blocks to launch
    size_t smem[2];             // [list]
    size_t mem;
};

struct kargs {
    fdr_piece pc;
    fdr_geom gm;
    fdr_view v;                 // global pointers; the kernel swaps in shared ones
    hay_job_out out;
    // The launch's chunk counter (zeroed; in the job's scratch): each warp
    // takes its next chunk of 32 runs from it.  NULL: the tiles dealt out
    // in a fixed order.
    unsigned long long *next;
};

// A warp's staged list: its share of the block's SCAP entries.
struct stage {
    unsigned long long *buf;    // the warp's cap entries
    unsigned *n;                // matches staged (past cap: the rest went straight out)
    unsigned cap;
};

// Each warp's table of the lanes whose short matches start in a round of
// queue_dev::short_list, by their first place in it.
__shared__ unsigned char s_owner[32][32];

template <int OUT>
struct emit_dev {
    static constexpr bool lists = OUT == OUT_LIST;
    unsigned long long cnt;
    unsigned long long *pcounts, *matches, *slots;
    uint64_t cap;
    stage sg;
    unsigned *marks;            // OUT_MARK
    uint64_t min_end;
    unsigned long long least;   // OUT_FIRST
    __device__ __forceinline__ void add(uint32_t k) { cnt += k; }
    __device__ __forceinline__ void operator()(uint64_t end, uint32_t id)
    {
        if (OUT == OUT_MARK) {
            uint64_t b = end - 1 - min_end;
            atomicOr(marks + (b >> 5), 1u << (b & 31));
            cnt++;
            return;
        }
        if (OUT == OUT_FIRST) {
            unsigned long long m = HAY_CUDA_MATCH(end, id);
            least = m < least ? m : least;
            return;
        }
        cnt++;
        if (pcounts)
            atomicAdd(pcounts + id, 1ull);
        if (OUT == OUT_LIST) {
            // The lanes here together take their places with one shared
            // atomic (the lanes that emit at a time are a subset of the
            // warp: a record that matched, a short literal).
            const unsigned long long m = HAY_CUDA_MATCH(end, id);
            const unsigned lane = threadIdx.x & 31, act = __activemask();
            const int lead = __ffs((int)act) - 1;
            unsigned k = 0;
            if ((int)lane == lead)
                k = atomicAdd(sg.n, (unsigned)__popc(act));
            k = __shfl_sync(act, k, lead) + __popc(act & ((1u << lane) - 1));
            if (k < sg.cap) {
                sg.buf[k] = m;
            } else {
                // The warp's buffer is full (lanes with many short
                // literals): these go out now, one global atomic.
                const unsigned ov = __activemask();
                const int l2 = __ffs((int)ov) - 1;
                unsigned long long g = 0;
                if ((int)lane == l2)
                    g = atomicAdd(slots, (unsigned long long)__popc(ov));
                g = __shfl_sync(ov, g, l2) + __popc(ov & ((1u << lane) - 1));
                if (g < cap)
                    matches[g] = m;
            }
        }
    }
    // Warp-wide, where every lane of the warp calls it: writes the warp's
    // staged matches when at least at_least wait, with one global atomic
    // (the reservation: *slots counts every match, even past cap) and
    // coalesced stores.
    __device__ __forceinline__ void flush(unsigned at_least)
    {
        if (OUT != OUT_LIST)
            return;
        __syncwarp();
        unsigned n = *sg.n;
        if (n < at_least)
            return;
        n = n < sg.cap ? n : sg.cap;
        const unsigned lane = threadIdx.x & 31;
        unsigned long long at = 0;
        if (lane == 0)
            at = atomicAdd(slots, (unsigned long long)n);
        at = __shfl_sync(0xffffffffu, at, 0);
        const uint64_t room = at < cap ? cap - at : 0;
        for (unsigned i = lane; i < n && i < room; i += 32)
            matches[at + i] = sg.buf[i];
        __syncwarp();
        if (lane == 0)
            *sg.n = 0;
        __syncwarp();
    }
    // Match (end, id) at place g of the list, reserved by the caller (and
    // counted, as add counts).
    __device__ __forceinline__ void put_at(unsigned long long g, uint64_t end, uint32_t id)
    {
        if (pcounts)
            atomicAdd(pcounts + id, 1ull);
        if (g < cap)
            matches[g] = HAY_CUDA_MATCH(end, id);
    }
    // Before a step in which a lane emits about one match (a verified
    // record: at most one; a short key: up to two inline, more through its
    // list, and what does not fit goes straight out in operator()).
    __device__ __forceinline__ void make_room() { flush(sg.cap - 31); }
};

// Items dealt out to a warp's lanes 32 a round: each lane holds n of them,
// numbered lane by lane; excl is the number of this lane's first, total
// the warp's.  Warp-wide.
struct warp_deal {
    uint32_t excl, total;
    __device__ __forceinline__ explicit warp_deal(uint32_t n)
    {
        const unsigned lane = threadIdx.x & 31;
        uint32_t incl = n;
        for (unsigned o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o)
                incl += y;
        }
        total = __shfl_sync(0xffffffffu, incl, 31);
        excl = incl - n;
    }
    // The lane that holds item r (the last whose first is at most r), by a
    // search over the lanes' firsts.  Warp-wide.
    __device__ __forceinline__ unsigned owner(uint32_t r) const
    {
        unsigned w = 0;
        for (unsigned st = 16; st; st >>= 1)
            if (__shfl_sync(0xffffffffu, excl, w + st) <= r)
                w += st;
        return w;
    }
};

// A warp's candidates, checked in two rounds so that its lanes stay busy:
// the filter's candidates wait in q until 32 are there, then each lane
// takes one, lists its short literals and looks its buckets' prefixes up
// in the prefix bitmap (about 3 in 4 fail there); the prefixes that pass
// wait in q2 until 32 are there, then the warp walks their slots' records
// (global memory), 32 records at a time.  Checking a candidate in one go
// left most lanes idle while a few walked their slots (ncu, et-open: 12.8
// active threads a warp).  The queues are the warp's own: places by
// ballot, no atomics.
template <bool CASELESS, class Emit>
struct queue_dev {
    static constexpr bool short_lists = Emit::lists;
    unsigned long long *q;      // this warp's QCAP filter candidates
    unsigned long long *q2;     // and QCAP prefixes: FDR_CAND(e, 0, 1 << b)
    const fdr_view *v;
    const fdr_piece *pc;
    Emit *em;
    unsigned fill, fill2;       // waiting (the same in every lane)
    uint32_t run;               // a thread's bytes (fdr_geom)

    // Appends, from each lane where `has`, the entry x to queue qq, and
    // when 32 wait runs `full` on the top 32 (one a lane).  Warp-wide.
    template <class Full>
    __device__ __forceinline__ void push(unsigned long long *qq, unsigned &f, bool has,
                                         unsigned long long x, Full full)
    {
        const unsigned lane = threadIdx.x & 31;
        unsigned b = __ballot_sync(0xffffffffu, has);
        if (has)
            qq[f + __popc(b & ((1u << lane) - 1))] = x;
        f += __popc(b);
        if (f >= 32) {
            __syncwarp();
            f -= 32;
            full(qq[f + lane]);
        }
        __syncwarp();
    }
    // Round 2 on each lane's prefix c (has: there is one), warp-wide: the
    // records of the 32 slots dealt out to the lanes, 32 at a time.  A lane
    // that walked its own slot held the warp for the longest of the 32
    // (et-open: 9.2 records on average for a mean of 1.6; a common prefix
    // such as "action" has 86).
    __device__ __forceinline__ void walk(unsigned long long c, bool has)
    {
        const unsigned lane = threadIdx.x & 31;
        const unsigned full = 0xffffffffu;
        uint32_t i0 = 0, n = 0;
        if (has) {
            const unsigned b = fdr_lowest((uint32_t)(c & 0xff));
            const uint32_t pl = v->plen[b];
            const uint64_t val =
                fdr_prefix<CASELESS>(pc->text, (uint64_t)((int64_t)(c >> 9) + 1 - pl), pl);
            const uint32_t slot = fdr_gpu_slot(val, pl, v->hash_bits);
            i0 = v->slot_first[slot];
            n = v->slot_first[slot + 1] - i0;
        }
        const warp_deal d(n);
        const uint32_t total = d.total, excl = d.excl;
        for (uint32_t base = 0; base < total; base += 32) {
            const uint32_t r = base + lane;
            const unsigned w = d.owner(r);   // the lane whose records hold r
            const unsigned long long cw = __shfl_sync(full, c, w);
            const uint32_t iw = __shfl_sync(full, i0, w) + (r - __shfl_sync(full, excl, w));
            if (r < total) {
                // The prefix again (its bytes are in L1): fewer registers
                // held than passing it round.
                const unsigned b = fdr_lowest((uint32_t)(cw & 0xff));
                const uint32_t pl = v->plen[b];
                const uint64_t s = (uint64_t)((int64_t)(cw >> 9) + 1 - pl);
                fdr_rec<CASELESS>(*v, *pc, s, b, fdr_prefix<CASELESS>(pc->text, s, pl),
                                  v->lits[iw], *em);
            }
            em->make_room();
        }
    }
    // Round 1 on each lane's candidate c (0: none).  Warp-wide.
    __device__ __forceinline__ void check(unsigned long long c)
    {
        const int64_t e = (int64_t)(c >> 9);
        if (c & 0x100)
            fdr_short_cand<CASELESS>(*v, *pc, e, *em);
        em->make_room();
        uint32_t m = (uint32_t)(c & 0xff);
        while (__any_sync(0xffffffffu, m != 0)) {
            bool pass = false;
            unsigned b = 0;
            if (m) {
                b = fdr_lowest(m);
                m &= m - 1;
                uint64_t val;
                pass = fdr_pre<CASELESS>(*v, *pc, e, b, &val);
            }
            push(q2, fill2, pass, FDR_CAND(e, 0, 1u << b),
                 [this](unsigned long long x) { walk(x, true); });
        }
    }
    // Each lane's short literals of a word (s: the FDR_POS bits of their
    // ends; w: the word, folded; prev: the byte before it), listed by the
    // lane: one 8-byte read an end (short_pair), the key's bytes from w,
    // where the queue took a candidate each and read the key from the text
    // and the key's list (et-open, 91% of bytes end a short literal: list
    // kernel 41.7 ms a GiB through the queue, 40 here; H100).  Warp-wide.
    __device__ __forceinline__ void shorts(uint32_t s, const uint32_t w[4], uint32_t prev,
                                           int64_t e0)
    {
        while (__any_sync(0xffffffffu, s != 0)) {
            if (s) {
                const unsigned b = fdr_lowest(s);
                s &= s - 1;
                fdr_short_in_word(*v, *pc, w, prev, e0, b, *em);
            }
            em->make_room();
        }
    }
    // The short matches of each lane's word that their codes tell (m:
    // fdr_short_bits), warp-wide: one reservation for the warp's, then
    // dealt out 32 a round, match r of the warp's to lane r % 32, so every
    // lane writes one and the stores are coalesced.  The lane that holds
    // match r: the lanes whose matches start in the round mark their first
    // place (one OR over the warp) and put their number there in s_owner;
    // r's is the last mark at or below it, else the last round's last
    // (a binary search over the lanes' first places took 5 dependent
    // shuffles a round).  The key's bytes are read from the text.  (Before,
    // each lane listed its own, a step each with a place taken in the
    // warp's stage: the lanes hold 0 to 32, so most idled in the steps of
    // the fullest.)
    __device__ __forceinline__ void short_list(uint32_t m, int64_t e0)
    {
        const unsigned lane = threadIdx.x & 31;
        const unsigned full = 0xffffffffu;
        const uint32_t n = (uint32_t)__popc(m);
        const warp_deal d(n);
        const uint32_t total = d.total, excl = d.excl;
        if (!total)
            return;
        unsigned long long at = 0;
        if (lane == 0)
            at = atomicAdd(em->slots, (unsigned long long)total);
        at = __shfl_sync(full, at, 0);
        unsigned char *own = s_owner[threadIdx.x >> 5];
        unsigned carry = 0;   // the lane that holds the last round's last
        for (uint32_t base = 0; base < total; base += 32) {
            const uint32_t r = base + lane;
            const bool starts = n && excl >= base && excl - base < 32;
            if (starts)
                own[excl - base] = (unsigned char)lane;
            const unsigned marks = __reduce_or_sync(full, starts ? 1u << (excl - base) : 0u);
            __syncwarp();
            const unsigned below = marks & (full >> (31 - lane));
            const unsigned wl = below ? own[31 - __clz((int)below)] : carry;
            carry = __shfl_sync(full, wl, 31);
            __syncwarp();   // (the next round writes own)
            const uint32_t mo = __shfl_sync(full, m, wl);
            const uint32_t k = r - __shfl_sync(full, excl, wl);
            // The lanes' runs lie side by side.
            const int64_t eo = e0 + ((int64_t)wl - (int64_t)lane) * run;
            if (r < total) {
                uint32_t id;
                const uint64_t end =
                    fdr_short_one<CASELESS>(*v, *pc, eo, fdr_nth_bit(mo, k), &id);
                em->put_at(at + r, end, id);
            }
        }
    }
    // Each lane's candidates of a word (every lane of the warp calls put):
    // a round per candidate of the lane with the most.
    __device__ __forceinline__ void put(uint32_t c, const fdr_word_out &o, uint32_t shm,
                                        int64_t e0)
    {
        while (__any_sync(0xffffffffu, c != 0)) {
            bool has = c != 0;
            unsigned long long x = has ? fdr_take(c, o, shm, e0) : 0;
            push(q, fill, has, x, [this](unsigned long long y) { check(y); });
        }
    }
    // The ones left at the end.
    __device__ __forceinline__ void finish()
    {
        const unsigned lane = threadIdx.x & 31;
        __syncwarp();
        check(lane < fill ? q[lane] : 0);
        fill = 0;
        __syncwarp();
        walk(lane < fill2 ? q2[lane] : 0, lane < fill2);
        fill2 = 0;
    }
};

// Shared memory: the filter table, the prefix bitmap, the short codes
// (when the pass has short literals), each warp's two queues, the list's
// stage (lists).
size_t smem_bytes(const hay_fdr_gpu_tables &h, unsigned threads, bool list)
{
    return ((size_t)4 << h.domain) +
           (h.pmap ? ((size_t)1 << h.pbits) / 8 : 0) +
           (h.short_code ? HAY_FDR_GPU_SHORT_BYTES : 0) +
           (size_t)(threads / 32) * 2 * QCAP * 8 + (list ? SCAP * 8 : 0);
}

// SHORT: the pass has short literals; FAST: counts only (lists never are).
// 64 registers: under __launch_bounds__(1024) ptxas kept 32 and spilled in
// the loop; at 512 threads an SM holds 2 blocks with 48 or 64.
template <bool CASELESS, int OUT, bool SHORT, bool FAST>
__global__ void __maxnreg__(64) fdr_kernel(kargs a)
{
    constexpr bool LIST = OUT == OUT_LIST;
    extern __shared__ __align__(16) uint64_t smem[];
    __shared__ unsigned s_n[32];   // each warp's staged matches (lists)
    __shared__ unsigned long long s_red[32];

    const unsigned tid = threadIdx.x, nt = blockDim.x;
    const uint32_t tab16 = (4u << a.v.domain) / 16;
    uint8_t *sp = (uint8_t *)smem;
    uint4 *s_tab = (uint4 *)sp;
    sp += (size_t)16 * tab16;
    for (uint32_t i = tid; i < tab16; i += nt)
        s_tab[i] = ((const uint4 *)a.v.table)[i];
    uint32_t *s_pmap = (uint32_t *)sp;
    if (a.v.pmap) {
        const uint32_t pm16 = (1u << a.v.pbits) / 128;
        for (uint32_t i = tid; i < pm16; i += nt)
            ((uint4 *)s_pmap)[i] = ((const uint4 *)a.v.pmap)[i];
        sp += (size_t)16 * pm16;
    }
    uint8_t *s_code = sp;
    if (a.v.scode) {
        const uint4 *src = (const uint4 *)a.v.scode;
        for (uint32_t i = tid; i < HAY_FDR_GPU_SHORT_BYTES / 16; i += nt)
            ((uint4 *)s_code)[i] = src[i];
        sp += HAY_FDR_GPU_SHORT_BYTES;
    }
    unsigned long long *s_q = (unsigned long long *)sp;
    sp += (size_t)(nt / 32) * 2 * QCAP * 8;
    if (tid < 32)
        s_n[tid] = 0;
    fdr_view v = a.v;
    v.table = (const uint32_t *)s_tab;
    if (v.pmap)
        v.pmap = s_pmap;
    if (v.scode)
        v.scode = s_code;
    emit_dev<OUT> em;
    em.cnt = 0;
    em.marks = a.out.marks;
    em.min_end = a.pc.min_end;
    em.least = ~0ull;
    em.pcounts = a.out.pcounts;
    em.matches = a.out.matches;
    em.slots = a.out.slots;
    em.cap = a.out.cap;
    em.sg.cap = LIST ? SCAP / (nt / 32) : 0;
    em.sg.buf = (unsigned long long *)sp + (size_t)(tid / 32) * em.sg.cap;
    em.sg.n = s_n + tid / 32;
    queue_dev<CASELESS, emit_dev<OUT>> q = { s_q + (size_t)(tid / 32) * 2 * QCAP,
                                             s_q + (size_t)(tid / 32) * 2 * QCAP + QCAP,
                                             &v, &a.pc, &em, 0, 0, a.gm.run };
    __syncthreads();

    // Each warp takes chunks of 32 runs (2 KiB by default) from the
    // launch's counter, in the piece's order, until none are left: so warps
    // that drew dense text take fewer.  Without the counter a block loops
    // over tiles of nt runs whose warps take chunks spread over the piece
    // (warp w of tile t: chunk w * tiles + t).  A 16 MiB piece gives each
    // warp about 2 chunks, and dealt out in a fixed order the warps with
    // dense ones set the time (ncu, et-open's list: 34% of the warps'
    // samples at EXIT).  The counter: list kernel 11% faster for both IDS
    // sets, et-open's count 5% (H100; asking for the next chunk before
    // searching this one spilled registers).
    const uint32_t lane = tid & 31;
    for (uint32_t i = 0;; i++) {
        uint64_t c;
        if (a.next) {
            unsigned long long ask = 0;
            if (lane == 0)
                ask = atomicAdd(a.next, 1ull);
            c = __shfl_sync(0xffffffffu, ask, 0);
            if (c >= (a.gm.nthr + 31) / 32)
                break;
        } else {
            const uint32_t tiles = (uint32_t)((a.gm.nthr + nt - 1) / nt),
                           tile = blockIdx.x + i * gridDim.x;
            if (tile >= tiles)
                break;
            c = (uint64_t)(tid >> 5) * tiles + tile;
        }
        fdr_thread<CASELESS, SHORT, FAST>(v, a.pc, a.gm, c * 32 + lane, em, q);
    }
    q.finish();
    em.flush(1);

    if (OUT == OUT_FIRST)
        hay_block_least(em.least, s_red, a.out.first);
    else
        hay_block_sum(em.cnt, s_red, a.out.count);
}

typedef void (*kernel_fn)(kargs);
// [caseless][out][short][fast]; only counts are fast.
#define FDR_SLOW(CL, OUT)                                                                 \
    { { fdr_kernel<CL, OUT, false, false>, nullptr },                                     \
      { fdr_kernel<CL, OUT, true, false>, nullptr } }
#define FDR_KERNELS(CL)                                                                   \
    { { { fdr_kernel<CL, OUT_COUNT, false, false>, fdr_kernel<CL, OUT_COUNT, false, true> }, \
        { fdr_kernel<CL, OUT_COUNT, true, false>, fdr_kernel<CL, OUT_COUNT, true, true> } }, \
      FDR_SLOW(CL, OUT_LIST), FDR_SLOW(CL, OUT_MARK), FDR_SLOW(CL, OUT_FIRST) }
const kernel_fn kernels[2][NOUT][2][2] = { FDR_KERNELS(false), FDR_KERNELS(true) };
#undef FDR_KERNELS
#undef FDR_SLOW

template <typename T>
int upload(T **dst, const T *src, size_t n, size_t *mem)
{
    *dst = nullptr;
    if (!src || !n)
        return HAY_OK;
    cudaError_t e = cudaMalloc((void **)dst, n * sizeof(T));
    if (e != cudaSuccess) {
        *dst = nullptr;
        return hay_cuda_status(e);
    }
    *mem += n * sizeof(T);
    return hay_cuda_status(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
}

void fdr_destroy(void *state)
{
    fdr_dev *d = (fdr_dev *)state;
    if (!d)
        return;
    cudaFree(d->d_table);
    cudaFree(d->d_scode);
    cudaFree(d->d_short_first);
    cudaFree(d->d_short_ent);
    cudaFree(d->d_short_pair);
    cudaFree(d->d_slot_first);
    cudaFree(d->d_pmap);
    cudaFree(d->d_lits);
    cudaFree(d->d_bytes);
    cudaFree(d->d_plen);
    hay_fdr_gpu_tables_free(&d->h);
    free(d);
}

// Blocks per launch: what the device keeps resident (the warps loop over
// chunks) with the set's dynamic shared memory.  Every kernel may take all
// the shared memory a block can opt in to (less its static part): the
// attribute belongs to the kernel, not to the set, and sets of other sizes
// launch the same kernels (setting it to each set's own size made the
// larger of two live sets fail to launch).
int plan_grid(fdr_dev *d)
{
    int dev = 0, sms = 0, optin = 0;
    cudaGetDevice(&dev);
    int s = hay_cuda_status(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (s == 0)
        s = hay_cuda_status(
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (s < 0)
        return s;
    for (int list = 0; list < 2; list++)
        d->smem[list] = smem_bytes(d->h, d->threads, list);
    for (int out = 0; out < NOUT; out++) {
        const int list = out == OUT_LIST;
        for (int i = 0; i < 8; i++) {
            const int cl = i >> 2, sh = (i >> 1) & 1, fast = i & 1;
            kernel_fn k = kernels[cl][out][sh][fast];
            if (!k)
                continue;
            cudaFuncAttributes fa;
            s = hay_cuda_status(cudaFuncGetAttributes(&fa, k));
            if (s < 0)
                return s;
            if (d->smem[list] + fa.sharedSizeBytes > (size_t)optin)
                return HAY_ERR_UNSUPPORTED;   // the tables do not fit shared memory
            s = hay_cuda_status(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     optin - (int)fa.sharedSizeBytes));
            int occ = 0;
            if (s == 0)
                s = hay_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &occ, k, (int)d->threads, d->smem[list]));
            if (s < 0)
                return s;
            if (occ < 1)
                return HAY_ERR_UNSUPPORTED;
            d->grid[cl][out][sh][fast] = (unsigned)(occ * sms);
        }
    }
    return HAY_OK;
}

int fdr_build(const hay_cuda_patterns *pp, void **out)
{
    *out = nullptr;
    // fdr-gpu's keys; PFAC's are accepted and left alone, since backend
    // cuda's choice between the two reads the same string.
    hay_cuda_fdr_params prm;
    const hay_param_table *const tables[] = {
        &hay_cuda_fdr_param_table, &hay_cuda_pfac_param_table, &hay_cpu_param_table,
        &hay_cuda_driver_param_table, &hay_auto_param_table,
    };
    void *const vals[] = { &prm, NULL, NULL, NULL, NULL };
    int s = hay_params_parse(pp->params, tables, 5, vals, false, NULL);
    if (s < 0)
        return s;
    fdr_dev *d = (fdr_dev *)calloc(1, sizeof(fdr_dev));
    if (!d)
        return HAY_ERR_NOMEM;
    d->run = (uint32_t)prm.run;
    d->max_len = pp->max_len;
    d->threads = (uint32_t)prm.threads;
    // Diagnostics: HAY_CUDA_FDR_CHUNKS=static deals the chunks out in the
    // fixed order even where the job brings the scratch (to measure the
    // counter; the test fdr_gpu_static).
    const char *how = getenv("HAY_CUDA_FDR_CHUNKS");
    d->fixed_chunks = how && !strcmp(how, "static");
    // Not given: two keys a long literal, 11 to 15 bits (128 KiB).
    uint32_t domain = (uint32_t)prm.domain;
    if (!domain) {
        size_t nlong = 0;
        for (size_t i = 0; i < pp->n; i++)
            nlong += pp->len[i] >= HAY_FDR_GPU_LMIN;
        domain = 11;
        while (domain < 15 && ((size_t)1 << domain) < 2 * nlong)
            domain++;
    }
    const hay_fdr_gpu_tables *h = &d->h;
    if ((s = hay_fdr_gpu_build(pp, domain, (uint32_t)prm.group_max, &d->h)) < 0 ||
        (s = plan_grid(d)) < 0 ||
        (s = upload(&d->d_table, h->table, (size_t)h->groups << h->domain, &d->mem)) < 0 ||
        (s = upload(&d->d_scode, h->short_code,
                    h->short_code ? (size_t)HAY_FDR_GPU_SHORT_BYTES : 0, &d->mem)) < 0 ||
        (s = upload(&d->d_short_first, h->short_first, h->short_first ? (size_t)65537 : 0,
                    &d->mem)) < 0 ||
        (s = upload(&d->d_short_ent, h->short_ent, h->nshort_ent, &d->mem)) < 0 ||
        (s = upload(&d->d_short_pair, h->short_pair,
                    h->short_pair ? (size_t)HAY_FDR_GPU_SHORT_KEYS : 0, &d->mem)) < 0 ||
        (s = upload(&d->d_slot_first, h->slot_first, ((size_t)1 << h->hash_bits) + 1,
                    &d->mem)) < 0 ||
        (s = upload(&d->d_lits, h->lits, h->nlong, &d->mem)) < 0 ||
        (s = upload(&d->d_pmap, h->pmap, h->pmap ? ((size_t)1 << h->pbits) / 32 : 0,
                    &d->mem)) < 0 ||
        (s = upload(&d->d_bytes, h->bytes, h->nbytes + 8, &d->mem)) < 0 ||
        (s = upload(&d->d_plen, h->plen, (size_t)h->groups * HAY_FDR_GPU_BUCKETS, &d->mem)) < 0) {
        fdr_destroy(d);
        return s;
    }
    *out = d;
    return HAY_OK;
}

// The job scratch: a chunk counter for each group.
size_t fdr_scratch(const void *state)
{
    return (size_t)((const fdr_dev *)state)->h.groups * sizeof(unsigned long long);
}

int fdr_launch(const void *state, const hay_cuda_job *job)
{
    const fdr_dev *d = (const fdr_dev *)state;
    const hay_fdr_gpu_tables *h = &d->h;
    // Ends in (min_end, len]: a candidate lies at most max_len - 1 bytes
    // before its match's end.
    uint64_t start0 = job->min_end > d->max_len - 1 ? job->min_end - (d->max_len - 1) : 0;
    if (job->len <= job->min_end || job->len <= start0)
        return HAY_OK;
    kargs a;
    memset(&a, 0, sizeof a);
    a.gm = fdr_plan(job->d_text, job->len, start0, d->run);
    a.pc.text = job->d_text;
    a.pc.len = job->len;
    a.pc.min_end = job->min_end;
    const int out = job->d_matches ? OUT_LIST : job->d_marks ? OUT_MARK
                    : job->d_first ? OUT_FIRST : OUT_COUNT;
    const int fast = out == OUT_COUNT && !job->d_pattern_counts;
    a.v.short_first = d->d_short_first;
    a.v.short_ent = d->d_short_ent;
    a.v.short_pair = d->d_short_pair;
    a.v.slot_first = d->d_slot_first;
    a.v.lits = d->d_lits;
    a.v.bytes = d->d_bytes;
    a.v.domain = h->domain;
    a.v.hash_bits = h->hash_bits;
    a.v.pbits = h->pbits;
    a.v.pmap = d->d_pmap;
    a.out = hay_job_outputs(job);
    const int list = out == OUT_LIST, cl = h->caseless ? 1 : 0;
    uint64_t tiles = (a.gm.nthr + d->threads - 1) / d->threads;
    cudaStream_t st = (cudaStream_t)job->stream;
    // A chunk counter for each group's launch, zeroed before them.
    unsigned long long *next = nullptr;
    if (job->d_scratch && job->scratch_bytes >= fdr_scratch(d) && !d->fixed_chunks) {
        next = (unsigned long long *)job->d_scratch;
        int s = hay_cuda_status(cudaMemsetAsync(next, 0, fdr_scratch(d), st));
        if (s < 0)
            return s;
    }
    for (uint32_t g = 0; g < h->groups; g++) {
        a.v.group = g;
        a.v.table = d->d_table + ((size_t)g << h->domain);
        a.v.plen = d->d_plen + (size_t)g * HAY_FDR_GPU_BUCKETS;
        a.v.scode = g == 0 ? d->d_scode : nullptr;
        a.next = next ? next + g : nullptr;
        if (g > 0 && !h->nlong)
            break;
        const int sh = a.v.scode != nullptr;
        kernel_fn k = kernels[cl][out][sh][fast];
        unsigned grid = d->grid[cl][out][sh][fast];
        if (tiles < grid)
            grid = (unsigned)tiles;
        k<<<grid, d->threads, d->smem[list], st>>>(a);
        int s = hay_cuda_status(cudaGetLastError());
        if (s < 0)
            return s;
    }
    return HAY_OK;
}

size_t fdr_memory(const void *state)
{
    return ((const fdr_dev *)state)->mem;
}

}  // namespace

extern "C" const hay_cuda_engine hay_cuda_engine_fdr_gpu = {
    "fdr-gpu", 1, fdr_build, fdr_destroy, fdr_launch, fdr_memory, 1, fdr_scratch,
};
