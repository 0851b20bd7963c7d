// fdr_gpu.cuh - one thread's work in fdr-gpu (fdr_gpu.h explains the
// tables): the filter over 16-byte words and the verification of its
// candidates, written once for the kernel (fdr_gpu.cu) and for the host
// test that runs it thread by thread (tests/gpu/fdr_gpu_core.cu).
#ifndef HAY_CUDA_FDR_GPU_CUH
#define HAY_CUDA_FDR_GPU_CUH

#include "fdr_gpu.h"

#include <string.h>

// A thread's filter pushes its candidates to a Queue (the kernel's: one
// per warp in shared memory, verified by the warp's lanes together when 32
// are waiting; the host test's verifies each at once) and emits matches
// through an Emit (em(end, id); em.add(n) for short matches counted in
// place).  The functions that call them are instantiated for the device
// (fdr_gpu.cu) and for the host test with host-only functors: the pragma
// before each keeps nvcc from checking the side it is not used on.

// What a thread reads: the filter table of its group and the short codes
// (shared memory in the kernel), the rest in global memory.
struct fdr_view {
    const uint64_t *table;        // this group's, 1 << domain words
    const uint8_t *scode;         // NULL: no short literals in this pass
    const uint32_t *short_first, *short_ent, *slot_first;
    const hay_fdr_gpu_lit *lits;
    const uint8_t *bytes;
    const uint8_t *plen;          // this group's 8 bucket prefix lengths
    uint32_t domain, hash_bits, group;
    int fast;                     // counts only: short codes below SLOW add up
};

// A candidate: its end position, bit 8 for the short lists, bits 0-7 for
// the filter's buckets.
#define FDR_CAND(e, sh, m) ((uint64_t)(e) << 9 | (uint64_t)(sh) << 8 | (m))

// A thread's filter state: S and the two bytes before the next one (folded).
struct fdr_thr {
    uint64_t st;
    uint32_t f1, f2;
};

// What one pass reports: matches ending in (min_end, len].
struct fdr_piece {
    const uint8_t *text;          // index 0 of the piece
    uint64_t len, min_end;
};

template <bool CASELESS>
FDR_HD uint32_t fdr_fold(uint32_t c)
{
    return CASELESS && c - 'A' < 26u ? c | 0x20u : c;
}

FDR_HD unsigned fdr_lowest(uint32_t m)
{
#ifdef __CUDA_ARCH__
    return (unsigned)__ffs((int)m) - 1;
#else
    return (unsigned)__builtin_ctz(m);
#endif
}

// The short literals ending at e (key k2 of y[e-1], y[e]; f2 = y[e-2]).
#pragma nv_exec_check_disable
template <class Emit>
FDR_HD void fdr_short(const fdr_view &v, const fdr_piece &pc, uint32_t k2, uint32_t f2,
                      int64_t e, Emit &em)
{
    uint64_t end = (uint64_t)e + 1;
    if (end <= pc.min_end)
        return;
    uint32_t i = v.short_first[k2], n = v.short_first[k2 + 1];
    for (; i < n; i++) {
        uint32_t s = v.short_ent[i];
        uint32_t l = FDR_SHORT_LEN(s);
        if (end < l || (l == 3 && FDR_SHORT_C0(s) != f2))
            continue;
        em(end, FDR_SHORT_ID(s));
    }
}

// The long literals whose prefix ends at e, for the buckets of m.
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit>
FDR_HD void fdr_long(const fdr_view &v, const fdr_piece &pc, int64_t e, uint32_t m, Emit &em)
{
    while (m) {
        unsigned b = fdr_lowest(m);
        m &= m - 1;
        uint32_t pl = v.plen[b];
        if (e + 1 < (int64_t)pl)
            continue;                  // the prefix would start before the piece
        uint64_t s = (uint64_t)(e + 1 - pl);
        uint64_t val = 0;
        for (uint32_t j = 0; j < pl; j++)
            val |= (uint64_t)fdr_fold<CASELESS>(pc.text[s + j]) << (8 * j);
        uint32_t slot = fdr_gpu_slot(val, pl, v.hash_bits);
        for (uint32_t i = v.slot_first[slot], n = v.slot_first[slot + 1]; i < n; i++) {
            const hay_fdr_gpu_lit &r = v.lits[i];
            if (r.val != val || r.bucket != b || r.group != v.group)
                continue;
            uint64_t end = s + r.len;
            if (end > pc.len || end <= pc.min_end)
                continue;
            const uint8_t *q = v.bytes + r.off;
            uint32_t j = pl;
            while (j < r.len && fdr_fold<CASELESS>(pc.text[s + j]) == q[j])
                j++;
            if (j == r.len)
                em(end, r.id);
        }
    }
}

// Verifies a candidate (FDR_CAND), reading the bytes before its end again.
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit>
FDR_HD void fdr_verify(const fdr_view &v, const fdr_piece &pc, uint64_t c, Emit &em)
{
    int64_t e = (int64_t)(c >> 9);
    if (c & 0x100) {
        uint32_t f1 = e >= 1 ? fdr_fold<CASELESS>(pc.text[e - 1]) : 0;
        uint32_t f2 = e >= 2 ? fdr_fold<CASELESS>(pc.text[e - 2]) : 0;
        fdr_short(v, pc, f1 << 8 | fdr_fold<CASELESS>(pc.text[e]), f2, e, em);
    }
    if (c & 0xff)
        fdr_long<CASELESS>(v, pc, e, (uint32_t)(c & 0xff), em);
}

// The bytes FROM..TO-1 of the 16-byte word w whose byte 0 is piece index
// e0: candidates at ends in [lo, hi) go to the queue (lo = hi: a warm-up);
// with v.fast, short codes below SLOW at ends in [slo, hi) are counted here.
#pragma nv_exec_check_disable
template <bool CASELESS, int FROM, int TO, class Emit, class Queue>
FDR_HD void fdr_bytes(const fdr_view &v, fdr_thr &t, const uint32_t w[4], int64_t e0,
                      int64_t lo, int64_t slo, int64_t hi, Emit &em, Queue &q)
{
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int j = FROM; j < TO; j++) {
        uint32_t f = fdr_fold<CASELESS>((w[j >> 2] >> (8 * (j & 3))) & 0xffu);
        uint32_t k2 = t.f1 << 8 | f;
        t.st = (t.st >> 8) | v.table[fdr_gpu_key(t.f1, f, v.domain)];
        uint32_t m = ~(uint32_t)t.st & 0xffu;
        uint32_t sc = v.scode ? fdr_gpu_short_code(v.scode, k2) : 0;
        if (m | sc) {
            int64_t e = e0 + j;
            bool sh = sc != 0;
            if (v.fast && sc < HAY_FDR_GPU_SHORT_SLOW && e >= slo && e < hi) {
                em.add(sc);
                sh = false;
            }
            if ((m || sh) && e >= lo && e < hi)
                q.push(FDR_CAND(e, sh, m));
        }
        t.f2 = t.f1;
        t.f1 = f;
    }
}

// The aligned 16-byte word at p.
FDR_HD void fdr_load(const uint8_t *p, uint32_t w[4])
{
#ifdef __CUDA_ARCH__
    uint4 q = __ldg((const uint4 *)p);
    w[0] = q.x;
    w[1] = q.y;
    w[2] = q.z;
    w[3] = q.w;
#else
    memcpy(w, p, 16);
#endif
}

// Where a pass's threads run: piece index i lies at base + a0 + i (base
// 16-byte aligned); thread th owns [gs + th * run, + run) of base, ends
// from start0 on are checked.
struct fdr_geom {
    const uint8_t *base;
    uint64_t a0, gs, start0, nthr;
    uint32_t run;
};

FDR_HD fdr_geom fdr_plan(const uint8_t *text, uint64_t len, uint64_t start0, uint32_t run)
{
    fdr_geom g;
    g.a0 = (uint64_t)((uintptr_t)text & 15);
    g.base = text - g.a0;
    g.start0 = start0;
    g.gs = (g.a0 + start0) & ~(uint64_t)15;
    g.run = run;
    g.nthr = (g.a0 + len - g.gs + run - 1) / run;
    return g;
}

// Thread th's run: a warm-up over the 8 bytes before it (when they lie at
// or above base), then its words, q.step() after each half word and
// round() after each word, also when the thread has nothing to do (the
// kernel's barriers).
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit, class Queue, class Round>
FDR_HD void fdr_thread(const fdr_view &v, const fdr_piece &pc, const fdr_geom &gm, uint64_t th,
                       Emit &em, Queue &q, Round &round)
{
    const bool active = th < gm.nthr;
    const uint64_t g0 = gm.gs + th * gm.run, text_end = gm.a0 + pc.len;
    fdr_thr t = { 0, 0, 0 };
    uint32_t w[4];
    if (active && g0 >= 16) {
        fdr_load(gm.base + g0 - 16, w);
        t.f1 = fdr_fold<CASELESS>(w[1] >> 24);   // byte 7
        fdr_bytes<CASELESS, 8, 16>(v, t, w, 0, 0, 0, 0, em, q);
    }
    int64_t lo = (int64_t)g0 - (int64_t)gm.a0, hi = lo + gm.run;
    if (lo < (int64_t)gm.start0)
        lo = (int64_t)gm.start0;
    if (hi > (int64_t)pc.len)
        hi = (int64_t)pc.len;
    // Short matches counted in place: ends past min_end, starts at 0 or later.
    int64_t slo = lo;
    if (slo < (int64_t)pc.min_end)
        slo = (int64_t)pc.min_end;
    if (slo < 1)
        slo = 1;
    for (uint32_t k = 0; k < gm.run / 16; k++) {
        uint64_t g = g0 + 16ull * k;
        bool go = active && g < text_end;
        int64_t e0 = (int64_t)g - (int64_t)gm.a0;
        if (go)
            fdr_load(gm.base + g, w);
        if (go)
            fdr_bytes<CASELESS, 0, 8>(v, t, w, e0, lo, slo, hi, em, q);
        q.step(false);
        if (go)
            fdr_bytes<CASELESS, 8, 16>(v, t, w, e0, lo, slo, hi, em, q);
        q.step(false);
        round();
    }
}

#endif
