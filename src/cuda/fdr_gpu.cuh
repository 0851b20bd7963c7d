// fdr_gpu.cuh - one thread's work in fdr-gpu (fdr_gpu.h explains the
// tables): the filter over 16-byte words and the verification of its
// candidates, written once for the kernel (fdr_gpu.cu) and for the host
// test that runs it thread by thread (tests/gpu/fdr_gpu_core.cu).
#ifndef HAY_CUDA_FDR_GPU_CUH
#define HAY_CUDA_FDR_GPU_CUH

#include "fdr_gpu.h"

#include <string.h>

// A thread's filter hands each word's candidates to a Queue (q.put: the
// kernel's queue is its warp's, in shared memory, verified by the warp's
// lanes together when 32 are waiting; the host test's verifies each at
// once) and emits matches through an Emit (em(end, id); em.add(n) for
// short matches counted in place).  The functions that call them are
// instantiated for the device (fdr_gpu.cu) and for the host test with
// host-only functors: the pragma before each keeps nvcc from checking the
// side it is not used on.

// What a thread reads: the filter table of its group, the prefix bitmap
// and the short codes (shared memory in the kernel), the rest in global
// memory.
struct fdr_view {
    const uint32_t *table;        // this group's, 1 << domain words
    const uint8_t *scode;         // NULL: no short literals in this pass
    const uint32_t *short_first, *short_ent, *slot_first;
    const uint64_t *short_pair;   // with short_first: hay_fdr_gpu_tables
    const uint32_t *pmap;         // the prefix bitmap
    const hay_fdr_gpu_lit *lits;
    const uint8_t *bytes;
    const uint8_t *plen;          // this group's 8 bucket prefix lengths
    uint32_t domain, hash_bits, pbits, group;
};

// A candidate: its end position, bit 8 for the short lists, bits 0-7 for
// the filter's buckets.
#define FDR_CAND(e, sh, m) ((uint64_t)(e) << 9 | (uint64_t)(sh) << 8 | (m))

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

FDR_HD int fdr_popc(uint32_t m)
{
#ifdef __CUDA_ARCH__
    return __popc(m);
#else
    return __builtin_popcount(m);
#endif
}

// The place of x's k-th set bit, from 0 (k < its set bits): halves of 16,
// 8, 4, 2 and 1 bits, counted, where CUDA's __fns took twice the
// instructions (branches for its other forms).
FDR_HD unsigned fdr_nth_bit(uint32_t x, uint32_t k)
{
    unsigned p = 0;
    for (unsigned h = 16; h; h >>= 1) {
        const uint32_t c = (uint32_t)fdr_popc((x >> p) & ((1u << h) - 1));
        if (k >= c) {
            k -= c;
            p += h;
        }
    }
    return p;
}

// Eight bytes folded at once ('A'..'Z' | 0x20 in each byte).
template <bool CASELESS>
FDR_HD uint64_t fdr_fold8(uint64_t x)
{
    if (!CASELESS)
        return x;
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull;
    uint64_t t = x & lo7;
    uint64_t ge = t + 0x3f3f3f3f3f3f3f3full;   // bit 7: t >= 'A'
    uint64_t gt = t + 0x2525252525252525ull;   // bit 7: t > 'Z'
    return x | (ge & ~gt & ~x & hi) >> 2;
}

template <bool CASELESS>
FDR_HD uint32_t fdr_fold4(uint32_t x)
{
    return (uint32_t)fdr_fold8<CASELESS>(x);
}

FDR_HD uint64_t fdr_ld8(const uint64_t *p)
{
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
#endif
}

// The pl (1..8) bytes at text[s], folded, little-endian: one or two reads of
// the aligned 8-byte words that hold them (words that hold a byte of the
// piece are readable, as fdr_load's are; so are those of the literals'
// bytes, hay_fdr_gpu_tables.bytes).
template <bool CASELESS>
FDR_HD uint64_t fdr_prefix(const uint8_t *text, uint64_t s, uint32_t pl)
{
    uintptr_t a = (uintptr_t)(text + s);
    const uint64_t *p = (const uint64_t *)(a & ~(uintptr_t)7);
    unsigned sh = (unsigned)(a & 7) * 8;
    uint64_t x = fdr_ld8(p) >> sh;
    if (sh + 8 * pl > 64)
        x |= fdr_ld8(p + 1) << (64 - sh);
    if (pl < 8)
        x &= ((uint64_t)1 << (8 * pl)) - 1;
    return fdr_fold8<CASELESS>(x);
}

// The short literals ending at e (key k2 = y[e-1] | y[e] << 8).
#pragma nv_exec_check_disable
template <class Emit>
FDR_HD void fdr_short(const fdr_view &v, const fdr_piece &pc, uint32_t k2, int64_t e, Emit &em)
{
    uint64_t end = (uint64_t)e + 1;
    if (end <= pc.min_end)
        return;
    const uint64_t pair = fdr_ld8(v.short_pair + k2);
    if (pair != FDR_SHORT_MANY) {
        for (int h = 0; h < 2; h++) {
            uint32_t s = (uint32_t)(pair >> 32 * h);
            if (s != FDR_SHORT_NONE && end >= FDR_SHORT_LEN(s))
                em(end, FDR_SHORT_ID(s));
        }
        return;
    }
    for (uint32_t i = v.short_first[k2], n = v.short_first[k2 + 1]; i < n; i++) {
        uint32_t s = v.short_ent[i];
        if (end >= FDR_SHORT_LEN(s))
            em(end, FDR_SHORT_ID(s));
    }
}

// A long candidate's first check: the prefix of bucket b ending at e (read
// into *val) is in the prefix bitmap.
template <bool CASELESS>
FDR_HD bool fdr_pre(const fdr_view &v, const fdr_piece &pc, int64_t e, unsigned b, uint64_t *val)
{
    uint32_t pl = v.plen[b];
    if (e + 1 < (int64_t)pl)
        return false;                  // the prefix would start before the piece
    *val = fdr_prefix<CASELESS>(pc.text, (uint64_t)(e + 1 - pl), pl);
    uint32_t bit = fdr_gpu_pbit(*val, pl, v.pbits);
    return v.pmap[bit >> 5] >> (bit & 31) & 1;
}

// Its second, record by record: r (a record of the prefix's slot) against
// the prefix of bucket b, value val, starting at s: the same group, bucket
// and prefix, then the rest compared.
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit>
FDR_HD void fdr_rec(const fdr_view &v, const fdr_piece &pc, uint64_t s, unsigned b, uint64_t val,
                    const hay_fdr_gpu_lit &r, Emit &em)
{
    if (r.val != val || r.bucket != b || r.group != v.group)
        return;
    uint64_t end = s + r.len;
    if (end > pc.len || end <= pc.min_end)
        return;
    // The rest, 8 bytes at a time (both read as aligned words).
    const uint8_t *q = v.bytes + r.off;
    uint32_t j = r.plen;
    while (j < r.len) {
        uint32_t k = r.len - j < 8 ? r.len - j : 8;
        if (fdr_prefix<CASELESS>(pc.text, s + j, k) != fdr_prefix<false>(q, j, k))
            return;
        j += k;
    }
    em(end, r.id);
}

// The records of the prefix's slot.
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit>
FDR_HD void fdr_slot(const fdr_view &v, const fdr_piece &pc, int64_t e, unsigned b, uint64_t val,
                     Emit &em)
{
    uint32_t pl = v.plen[b];
    uint64_t s = (uint64_t)(e + 1 - pl);
    uint32_t slot = fdr_gpu_slot(val, pl, v.hash_bits);
    for (uint32_t i = v.slot_first[slot], n = v.slot_first[slot + 1]; i < n; i++)
        fdr_rec<CASELESS>(v, pc, s, b, val, v.lits[i], em);
}

// The short literals of a candidate with bit 8 (FDR_CAND).
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit>
FDR_HD void fdr_short_cand(const fdr_view &v, const fdr_piece &pc, int64_t e, Emit &em)
{
    uint32_t f1 = e >= 1 ? fdr_fold<CASELESS>(pc.text[e - 1]) : 0;
    fdr_short(v, pc, f1 | fdr_fold<CASELESS>(pc.text[e]) << 8, e, em);
}

// Verifies a candidate (FDR_CAND), reading the bytes before its end again
// (the kernel's warps run the same steps in two rounds: fdr_gpu.cu).
#pragma nv_exec_check_disable
template <bool CASELESS, class Emit>
FDR_HD void fdr_verify(const fdr_view &v, const fdr_piece &pc, uint64_t c, Emit &em)
{
    int64_t e = (int64_t)(c >> 9);
    if (c & 0x100)
        fdr_short_cand<CASELESS>(v, pc, e, em);
    for (uint32_t m = (uint32_t)(c & 0xff); m; m &= m - 1) {
        unsigned b = fdr_lowest(m);
        uint64_t val;
        if (fdr_pre<CASELESS>(v, pc, e, b, &val))
            fdr_slot<CASELESS>(v, pc, e, b, val, em);
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

// The byte j of a word whose mask bit is b = FDR_POS(j).
FDR_HD unsigned fdr_pos_byte(unsigned b)
{
    return 4 * ((b >> 1) & 3) + (b >> 3);
}

// The short key of byte j of a 16-byte word w (folded) that lies at piece
// index e: the byte before it (prev: the one before the word; none before
// the piece) | the byte << 8, as fdr_short_cand reads them from the text.
FDR_HD uint32_t fdr_short_key(const uint32_t w[4], uint32_t prev, unsigned j, int64_t e)
{
    const uint64_t lo = w[0] | (uint64_t)w[1] << 32, hi = w[2] | (uint64_t)w[3] << 32;
    const uint32_t y = (uint32_t)((j < 8 ? lo >> 8 * j : hi >> 8 * (j - 8)) & 0xffu);
    const uint32_t x = j == 0 ? prev
                       : (uint32_t)((j < 9 ? lo >> 8 * (j - 1) : hi >> 8 * (j - 9)) & 0xffu);
    return (e >= 1 ? x : 0) | y << 8;
}

// The short literals ending at the byte of mask bit b of the word w (folded,
// byte 0 at piece index e0; prev: the byte before it), its key taken from w
// (q.shorts in fdr_thread).
#pragma nv_exec_check_disable
template <class Emit>
FDR_HD void fdr_short_in_word(const fdr_view &v, const fdr_piece &pc, const uint32_t w[4],
                              uint32_t prev, int64_t e0, unsigned b, Emit &em)
{
    const unsigned j = fdr_pos_byte(b);
    fdr_short(v, pc, fdr_short_key(w, prev, j, e0 + j), e0 + j, em);
}

// The short matches of a word that its codes alone tell (ends in V whose
// code is 1 or 2: the key's one or two entries inline in short_pair), as
// bits of a mask, one a match in the order of the word's ends: end j's
// first entry at FDR_POS(j), its second (code 2) at FDR_POS(j) + 1.  Lists
// take them from here without the lists' per-lane steps (fdr_short_one).
FDR_HD uint32_t fdr_short_bits(uint32_t sc, uint32_t V)
{
    const uint32_t lo = sc & 0x55555555u, hi = (sc >> 1) & 0x55555555u;
    const uint32_t two = hi & ~lo & V;
    return (lo & ~hi & V) | two | two << 1;
}

// The match of bit p of fdr_short_bits(...) of the word whose byte 0 lies
// at piece index e0: its end, and its id in *id.  Its key's two bytes are
// read from the text again (in the kernel they are in L1: the lane that
// deals it out need not pass its word round); the end is past byte 1 (V).
template <bool CASELESS>
FDR_HD uint64_t fdr_short_one(const fdr_view &v, const fdr_piece &pc, int64_t e0, unsigned p,
                              uint32_t *id)
{
    const int64_t e = e0 + (int64_t)fdr_pos_byte(p & ~1u);
    const uint32_t k2 = fdr_fold<CASELESS>(pc.text[e - 1]) | fdr_fold<CASELESS>(pc.text[e]) << 8;
    const uint64_t pair = fdr_ld8(v.short_pair + k2);
    *id = FDR_SHORT_ID((uint32_t)(pair >> (32 * (p & 1u))));
    return (uint64_t)e + 1;
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

// What the filter leaves of a word: the low byte of S after each of its 16
// bytes (byte j of the word: byte j & 3 of st[j >> 2]) and the short codes
// of its ends (byte j's at bits FDR_POS(j) and + 1: fdr_gpu.h).
struct fdr_word_out {
    uint32_t st[4];
    uint32_t sc;
};

// x with byte k replaced by b's low byte.
FDR_HD uint32_t fdr_put_byte(uint32_t x, uint32_t b, int k)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, b, k == 0 ? 0x3214 : k == 1 ? 0x3240 : k == 2 ? 0x3410 : 0x4210);
#else
    return (x & ~(0xffu << (8 * k))) | (b & 0xffu) << (8 * k);
#endif
}

// The four bytes from byte o (0..19) of the 20 bytes ww[0..4] (bytes past
// the end: 0).
FDR_HD uint32_t fdr_bytes_at(const uint32_t ww[5], int o)
{
    int i = o >> 2, sh = 8 * (o & 3);
    if (sh == 0)
        return ww[i];
    if (i == 4)
        return ww[4] >> sh;
#ifdef __CUDA_ARCH__
    return __funnelshift_r(ww[i], ww[i + 1], sh);
#else
    return ww[i] >> sh | ww[i + 1] << (32 - sh);
#endif
}

// x rotated right by r bits (the low 5 bits of r).
FDR_HD uint32_t fdr_rotr(uint32_t x, uint32_t r)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_r(x, x, r);
#else
    r &= 31;
    return r ? x >> r | x << (32 - r) : x;
#endif
}

// A thread's filter state: S and the (folded) word before the next one.
struct fdr_thr {
    uint32_t st, prev;
};

// The filter and (SHORT) the short codes over bytes FROM..TO-1 of the
// folded word w, with no branch: each byte's window read straight out of
// the words (one funnel shift), one multiply for its key.
template <bool SHORT, int FROM, int TO>
FDR_HD void fdr_filter_word(const fdr_view &v, fdr_thr &t, const uint32_t w[4], fdr_word_out &o)
{
    const uint32_t ww[5] = { t.prev, w[0], w[1], w[2], w[3] };
    // The code of end j's key k = y[j-1] | y[j] << 8 is read as the
    // byte k >> 2 of the codes, which is the window ending at j - 1 (bytes
    // j-3 .. j) shifted right by 18 (with the codes' base: one LEA.HI);
    // its place there, 2 * (y[j-1] & 3), less FDR_POS(j) (mod 32: it
    // rotates), is made for four ends at once from bytes 4i-1 .. 4i+2 (the
    // window ending at 4i + 1): an IMAD each.  Per byte 5.5 instructions
    // where the code read as a 32-bit word of 16 took 8.
#define FDR_LESS(j) (((32u - FDR_POS(j)) & 31u) << (8 * ((j) & 3)))
#define FDR_LESS4(i) (FDR_LESS(4 * (i)) | FDR_LESS(4 * (i) + 1) | FDR_LESS(4 * (i) + 2) | \
                      FDR_LESS(4 * (i) + 3))
    const uint32_t cless[4] = { FDR_LESS4(0), FDR_LESS4(1), FDR_LESS4(2), FDR_LESS4(3) };
#undef FDR_LESS4
#undef FDR_LESS
    uint32_t camt[4];
    if (SHORT)
        for (int i = FROM >> 2; i < 4; i++)
            camt[i] = (fdr_bytes_at(ww, 4 * i + 3) & 0x03030303u) * 2 + cless[i];
    uint32_t xp = fdr_bytes_at(ww, FROM + 1);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int j = FROM; j < TO; j++) {
        // The window ending with byte j, from bit 0 (byte j is ww's j + 4).
        uint32_t x = fdr_bytes_at(ww, j + 5 - HAY_FDR_GPU_WINDOW);
        t.st = (t.st >> 8) | v.table[fdr_gpu_key(x, v.domain)];
        o.st[j >> 2] = fdr_put_byte(o.st[j >> 2], t.st, j & 3);
        if (SHORT)
            o.sc |= fdr_rotr(v.scode[xp >> 18], camt[j >> 2] >> (8 * (j & 3))) &
                    (3u << FDR_POS(j));
        xp = x;
    }
    t.prev = w[3];
}

// Bit FDR_POS(j) for each end e0 + j (j < 16) in [a, b).
FDR_HD uint32_t fdr_range2(int64_t e0, int64_t a, int64_t b)
{
    int64_t x = a - e0, y = b - e0;
    if (y <= 0 || x >= 16 || x >= y)
        return 0;
    uint32_t m = 0;
    for (int j = x > 0 ? (int)x : 0; j < 16 && j < y; j++)
        m |= 1u << FDR_POS(j);
    return m;
}

// A word's filter candidates: bit FDR_POS(j) for each end j in P to
// verify; *shm: the ends whose short list is wanted (short codes in P that
// are SLOW or lie outside V).  Short codes below SLOW in V are counted here
// (the SLOW ones in V are added as 3 by the sum and taken off again).
#pragma nv_exec_check_disable
template <bool SHORT, class Emit>
FDR_HD uint32_t fdr_word_cands(const fdr_word_out &o, uint32_t P, uint32_t V, Emit &em,
                               uint32_t *shm)
{
    uint32_t fl = 0;
    for (int i = 0; i < 4; i++) {
        // Bit 7 of each byte of st that is not 0xff (bits 8m + 7), moved
        // to FDR_POS(4i + m) = 8m + 2i.
        uint32_t x = ~o.st[i];
        uint32_t nz = (((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) & 0x80808080u;
        fl |= nz >> (7 - 2 * i);
    }
    uint32_t c = fl & P;
    *shm = 0;
    if (SHORT) {
        uint32_t lo = o.sc & 0x55555555u, hi = (o.sc >> 1) & 0x55555555u;
        uint32_t slow = lo & hi, vs = o.sc & (V | V << 1);
        if (V)
            em.add((uint32_t)(fdr_popc(vs) + fdr_popc(vs & 0xaaaaaaaau) -
                              3 * fdr_popc(slow & V)));
        *shm = (slow | ((lo | hi) & ~V)) & P;
    }
    return c;
}

// The candidate of c's lowest bit (the word's byte 0 at piece index e0);
// clears the bit.
FDR_HD uint64_t fdr_take(uint32_t &c, const fdr_word_out &o, uint32_t shm, int64_t e0)
{
    unsigned b = fdr_lowest(c);
    c &= c - 1;
    unsigned j = fdr_pos_byte(b), i = j >> 2;
    // Selects, not o.st[i]: a run-time index would put o in local memory.
    uint32_t x = i == 0 ? o.st[0] : i == 1 ? o.st[1] : i == 2 ? o.st[2] : o.st[3];
    uint32_t m = (~x >> (8 * (b >> 3))) & 0xffu;
    return FDR_CAND(e0 + j, (shm >> b) & 1u, m);
}

// Thread th's run: a warm-up over the last bytes before it (when they lie
// at or above base), then its words; after each word (by every thread,
// with nothing to do also past the piece: the kernel's warp-wide calls)
// q.shorts(shm, w, prev, e0) with the ends of short literals to list (all
// but FAST: the key's bytes are in w, no text read) and q.put(c, o, shm,
// e0) with the candidates to verify (FAST: the slow short codes too).
// SHORT: the pass has short literals; FAST: counts only (short codes below
// SLOW counted in place).  Where the queue lists them (Queue::short_lists:
// the list), the short matches of codes 1 and 2 inside the run go to
// q.short_list(fdr_short_bits(...), e0) (counted in place as FAST
// counts them), and only the rest (SLOW codes, the run's edges) to
// q.shorts.
#pragma nv_exec_check_disable
template <bool CASELESS, bool SHORT, bool FAST, class Emit, class Queue>
FDR_HD void fdr_thread(const fdr_view &v, const fdr_piece &pc, const fdr_geom &gm, uint64_t th,
                       Emit &em, Queue &q)
{
    const bool active = th < gm.nthr;
    const uint64_t g0 = gm.gs + th * gm.run, text_end = gm.a0 + pc.len;
    fdr_thr t = { 0, 0 };
    uint32_t w[4] = { 0, 0, 0, 0 }, prev = 0;   // prev: the byte before w
    fdr_word_out o = { { 0, 0, 0, 0 }, 0 };
    if (active && g0 >= 16) {
        // The 4 lags of S, after the 2 bytes their first window needs.
        fdr_load(gm.base + g0 - 16, w);
        for (int i = 0; i < 4; i++)
            w[i] = fdr_fold4<CASELESS>(w[i]);
        fdr_filter_word<false, 12, 16>(v, t, w, o);
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
    // The words k in [kin, kout) lie wholly in [lo, hi) (INPLACE: in
    // [slo, hi) too): their P and V are whole, found with two 32-bit
    // compares; words below kend hold a byte of the piece.
    constexpr bool LISTED = SHORT && !FAST && Queue::short_lists;
    constexpr bool INPLACE = FAST || LISTED;   // short codes in V taken in place
    const int64_t nw = gm.run / 16, e00 = (int64_t)g0 - (int64_t)gm.a0;
    int64_t kin = ((INPLACE ? slo : lo) - e00 + 15) >> 4, kout = (hi - e00) >> 4;
    int64_t kend = ((int64_t)text_end - (int64_t)g0 + 15) >> 4;
    kin = kin < 0 ? 0 : kin > nw ? nw : kin;
    kout = kout < 0 ? 0 : kout > nw ? nw : kout;
    kend = !active || kend < 0 ? 0 : kend > nw ? nw : kend;
    for (uint32_t k = 0; k < gm.run / 16; k++) {
        uint64_t g = g0 + 16ull * k;
        int64_t e0 = (int64_t)g - (int64_t)gm.a0;
        uint32_t c = 0, shm = 0, sl = 0;
        if ((int32_t)k < (int32_t)kend) {
            prev = w[3] >> 24;
            fdr_load(gm.base + g, w);
            for (int i = 0; i < 4; i++)
                w[i] = fdr_fold4<CASELESS>(w[i]);
            o.sc = 0;
            fdr_filter_word<SHORT, 0, 16>(v, t, w, o);
            uint32_t P = 0x55555555u, V = INPLACE ? 0x55555555u : 0;
            if ((int32_t)k < (int32_t)kin || (int32_t)k >= (int32_t)kout) {
                bool inside = e0 >= lo && e0 + 16 <= hi;
                P = inside ? 0x55555555u : fdr_range2(e0, lo, hi);
                V = !INPLACE ? 0 : inside && e0 >= slo ? 0x55555555u : fdr_range2(e0, slo, hi);
            }
            c = fdr_word_cands<SHORT>(o, P, V, em, &shm);
            if (LISTED)
                sl = fdr_short_bits(o.sc, V);
        }
        if (LISTED)
            q.short_list(sl, e0);
        if (SHORT && !FAST) {
            q.shorts(shm, w, prev, e0);
            q.put(c, o, 0, e0);
        } else {
            q.put(c | shm, o, shm, e0);
        }
    }
}

#endif
