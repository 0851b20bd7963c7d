/*
 * fdr.c - a shift-or filter over hashed windows of 2 or 3 bytes, in
 * buckets, for literal sets of hundreds to tens of thousands of literals
 * whose matches are sparse (the idea of Hyperscan's FDR, from its paper
 * and public descriptions; the code is our own).  The scan is here; the
 * tables are built in fdr_build.c (fdr_int.h between them).
 *
 * Literals of 3 bytes and more ("long") are the filter's.  Each goes into
 * one of 8 buckets, and each bucket has a filter prefix length F (3 .. 8 +
 * W - 1 bytes, the same for all its literals: min(len, 8 + W - 1) of
 * theirs), W the window width.  The filter's table T has one 64-bit word
 * per window key: with W = 2 the key of input position i is y[i-1] and the
 * low D - 8 bits of y[i]; with W = 3 a multiplicative hash of y[i-2 .. i]
 * into D bits (D = 12..16).  Bit 8p + b of T[k] is 0 when some literal of
 * bucket b has a window of key k ending p bytes before the end of its
 * prefix (a window reaching one byte before the literal: any byte there;
 * with W = 3 the window reaching two is not looked at), or when no window
 * of b's literals ends there.  A block of 8 input positions i .. i+7 ORs
 * T[key(i+j)] << 8j into 128 bits (SSE2: one byte shift and OR a window):
 * byte q of the low half then has a 0 bit for bucket b when every window
 * p = q - j of the block agrees that a prefix of b may end at i + q; the
 * high half is carried into the next block's low half, so windows from
 * the previous block count too.  Eight windows cover 9 bytes of a prefix
 * (W = 2) or 10 (W = 3).
 *
 * 3-byte windows are for large sets of long literals (choose_width in
 * fdr_build.c): with hundreds of literals a bucket, its 2-byte windows
 * let most letter pairs of English through and the filter floods
 * verification; 3-byte windows keep it selective at stride 2.
 *
 * Stride s (1, 2 or 4): only the keys at j = 0, s, 2s, ... are looked up,
 * so each end is checked against the windows p = q (mod s) alone: a
 * weaker filter at 8/s lookups a block.
 *
 * Candidates (end e, bucket b) are verified exactly: the min(F, 8) bytes
 * starting at e - F + 1 (folded when caseless, 8 at a time) are hashed to
 * the literals with that prefix, each compared in full.  Duplicate
 * literals (equal after folding) are one entry with a list of ids.  A
 * bitmap of a hash of the literals' first 8 to 16 bytes (prefix_bits,
 * fdr_int.h) is asked first: most candidates of a large set of long words
 * are real prefixes of text words ("understand" for "understandability"),
 * and the bytes after the filter's prefix tell them apart in one load of
 * a small array.  A literal's bytes 8-15 are then compared as one word
 * before the rest.
 *
 * Literals of 1 and 2 bytes ("short") would flood the filter; a bitmap of
 * their last bytes flags the block positions to check, and a direct
 * table (256 bits, 64 Kib) confirms them; they are then looked up like
 * long prefixes.
 *
 * Order: candidates come by prefix end; the contract wants match ends:
 * verified matches wait in endorder.h's buffer, sorted by (end, length).
 * Should it fill, the ends since the last flush are checked directly, end
 * by end and length by length (one hash probe per distinct length): the
 * same (end, length) order either way.
 */
#include "../core/internal.h"
#include "endorder.h"
#include "fdr.h"
#include "fdr_int.h"

#include <immintrin.h>

#define BLOCK 8
#define ANY 9              /* probe: any bucket */

/* One scan's working state. */
typedef struct fdr_ctx {
    const fdr_state *st;
    const hay_patterns *set;
    const uint8_t *y;
    size_t n, from, min_end;
    bool counting;
    uint64_t count;
    hay_eo *q;               /* matches waiting for their turn (endorder.h) */
    uint64_t base;
    hay_emit_fn emit;
    void *sink;
} fdr_ctx;

/* ---- keys, folding and hashing ------------------------------------------------ */

/* The key of the window ending at p (one 16-bit load on x86). */
static inline uint32_t key_at(const uint8_t *p, uint32_t mask)
{
    return ((uint32_t)p[-1] | (uint32_t)p[0] << 8) & mask;
}

/* The key of the three-byte window ending at p (one 32-bit load: p[-2 .. 1]
 * readable). */
static inline uint32_t key3_at(const uint8_t *p, uint32_t domain)
{
    uint32_t w;
    memcpy(&w, p - 2, 4);
    return window3_key(w, domain);
}

/* ASCII lower case of 8 bytes at once. */
static inline uint64_t fold8(uint64_t w)
{
    const uint64_t hi = 0x8080808080808080ull, lo7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t b = w & lo7;
    uint64_t ge_a = b + 0x3f3f3f3f3f3f3f3full;   /* >= 'A' */
    uint64_t gt_z = b + 0x2525252525252525ull;   /* >= '[' */
    uint64_t upper = ge_a & ~gt_z & ~w & hi;
    return w | (upper >> 2);
}

/* The first min(8, plen) bytes at y + s (zeros past n), folded if asked. */
static inline uint64_t load_prefix(const uint8_t *y, size_t n, size_t s,
                                   uint32_t plen, bool caseless)
{
    uint64_t w = 0;
    if (n - s >= 8)
        memcpy(&w, y + s, 8);
    else
        memcpy(&w, y + s, n - s);
    if (caseless)
        w = fold8(w);
    return w & low_bytes(plen);
}

/* ---- verification and order ----------------------------------------------- */

/* Whether the literal's bytes past its first 8 are at y + s + 8 (y holds
 * n bytes, s + l->len <= n): bytes 8 .. 15 first, as one word (no call,
 * no load of the pattern's bytes), then the rest. */
static inline bool lit_rest(const fdr_lit *l, const uint8_t *y, size_t n,
                            size_t s, bool caseless)
{
    if (l->len <= 8)
        return true;
    uint32_t k = l->len - 8 < 8 ? l->len - 8 : 8;
    uint64_t w = 0;
    if (n - s >= 16)
        memcpy(&w, y + s + 8, 8);
    else
        memcpy(&w, y + s + 8, k);
    if (caseless)
        w = fold8(w);
    if ((w & low_bytes(k)) != l->val2)
        return false;
    return l->len <= 16 || hay_eq(y + s + 16, l->pat + 16, l->len - 16, caseless);
}

static int emit_lit(fdr_ctx *x, uint32_t k, uint64_t end)
{
    const fdr_lit *l = &x->st->lits[k];
    for (uint32_t i = 0; i < l->nids; i++)
        if (x->emit(x->sink, x->st->id_list[l->ids + i],
                    x->base + end - l->len, x->base + end))
            return 1;
    return 0;
}

/* The literals of `bucket` (or ANY) whose prefix of plen bytes starts at
 * s; len != 0: only that length, reported at once.  The bitmap of
 * prefix hashes first (with up to 8 bytes past an 8-byte prefix when
 * every literal of this prefix has them).  Returns 1 when emit stopped,
 * 2 when the buffer is full. */
static int probe(fdr_ctx *x, size_t s, uint32_t plen, uint32_t bucket,
                 uint32_t len)
{
    const fdr_state *st = x->st;
    uint64_t v = load_prefix(x->y, x->n, s, plen, st->caseless);
    uint32_t h = lit_hash(v, plen, st->hash_bits);
    uint64_t w2 = 0;
    if (plen == 8 && st->bloom_len > 8) {
        /* Every literal of this prefix has bloom_len bytes or more. */
        if (x->n - s < st->bloom_len)
            return 0;
        if (x->n - s >= 16)
            memcpy(&w2, x->y + s + 8, 8);
        else
            memcpy(&w2, x->y + s + 8, st->bloom_len - 8);
        if (st->caseless)
            w2 = fold8(w2);
        w2 &= low_bytes(st->bloom_len - 8);
    }
    uint32_t hb = bloom_hash(v, w2, plen, st->hash_bits + 3);
    if (!(st->prefix_bits[hb >> 3] >> (hb & 7) & 1))
        return 0;
    for (uint32_t k = st->slot_first[h]; k < st->slot_first[h + 1]; k++) {
        const fdr_lit *l = &st->lits[k];
        size_t end = s + l->len;
        if (l->plen != plen || l->val != v || (len && l->len != len) ||
            (bucket != ANY && l->bucket != bucket) ||
            end > x->n || end <= x->min_end || !lit_rest(l, x->y, x->n, s, st->caseless))
            continue;
        if (x->counting)
            x->count += l->nids;
        else if (len)
            return emit_lit(x, k, end);
        else if (!hay_eo_push(x->q, end, l->len, k))
            return 2;
    }
    return 0;
}

static inline bool bit(const uint8_t *bits, uint32_t i)
{
    return bits[i >> 3] >> (i & 7) & 1;
}

/* The short literals ending at position q (last byte y[q]). */
static int on_short(fdr_ctx *x, size_t q)
{
    const fdr_state *st = x->st;
    const uint8_t *y = x->y;
    int r = 0;
    if (bit(st->one, y[q]))
        r = probe(x, q, 1, SHORT, 0);
    if (!r && q > 0 && bit(st->two, (uint32_t)y[q - 1] << 8 | y[q]))
        r = probe(x, q - 1, 2, SHORT, 0);
    return r;
}

/* The candidates of the block at i: byte q of `res` has a 0 bit for each
 * bucket whose prefix may end at i + q. */
static int on_block(fdr_ctx *x, uint64_t res, size_t i)
{
    const fdr_state *st = x->st;
    uint64_t c = ~res;
    while (c) {
        unsigned b = (unsigned)__builtin_ctzll(c);
        c &= c - 1;
        size_t e = i + b / 8;
        uint32_t flen = st->flen[b % 8];
        if (e >= x->n)
            break;
        if (e + 1 < x->from + flen)
            continue;
        int r = probe(x, e + 1 - flen, flen < 8 ? flen : 8, b % 8, 0);
        if (r)
            return r;
    }
    if (st->has_short)
        for (size_t q = i; q < i + BLOCK && q < x->n; q++)
            if (st->short_last[x->y[q]]) {
                int r = on_short(x, q);
                if (r)
                    return r;
            }
    if (x->counting || !x->q->n)
        return 0;
    /* Starts up to i + 8 - max_flen are verified. */
    size_t upto = i + BLOCK - st->max_flen + st->min_long;
    if (st->has_short && upto > i + BLOCK)
        upto = i + BLOCK;
    return i + BLOCK >= st->max_flen ? hay_eo_flush(x->q, upto) : 0;
}

/* ---- the block loop ------------------------------------------------------ */

/* The key of the window of width w ending at p. */
static inline __attribute__((always_inline)) uint32_t
key_w(const uint8_t *p, const uint32_t w, uint32_t domain, uint32_t mask)
{
    return w == 3 ? key3_at(p, domain) : key_at(p, mask);
}

/* acc | OR_j T[key(i + j)] << 8j over the 16 bytes of acc, j = 0, s, 2s,
 * ... < 8 (SSE2: a byte shift and an OR a window); p points at y + i,
 * p[-2 .. 8] readable. */
#define FDR_LOOKUP(j)                                                          \
    if ((j) % s == 0) {                                                        \
        __m128i v_ = _mm_loadl_epi64((const __m128i *)(t + key_w(p + (j), w, d, mask)));     \
        acc = _mm_or_si128(acc, (j) ? _mm_slli_si128(v_, (j)) : v_);           \
    }

static inline __attribute__((always_inline)) __m128i
block(const uint64_t *t, const uint8_t *p, const uint32_t s, const uint32_t w,
      uint32_t d, uint32_t mask, __m128i acc)
{
    FDR_LOOKUP(0);
    FDR_LOOKUP(1);
    FDR_LOOKUP(2);
    FDR_LOOKUP(3);
    FDR_LOOKUP(4);
    FDR_LOOKUP(5);
    FDR_LOOKUP(6);
    FDR_LOOKUP(7);
    return acc;
}

/* The block loop at stride s over windows of w bytes.  A window reaching
 * before y reads zeros: it can hold no literal's window (those lie within
 * the literal), and a literal's first window(s) match any earlier bytes.
 * The high half of each block's sum is the next one's start.  Blocks with
 * 2 bytes before them and 9 from them in y are read in place (the inner
 * loop), the others from a padded copy.  dc: the key bits when known at
 * compile time, else 0 (2-byte windows: their mask is one AND either way). */
static inline __attribute__((always_inline)) int
loop_body(fdr_ctx *x, const uint32_t s, const uint32_t w, const uint32_t dc)
{
    const fdr_state *st = x->st;
    const uint64_t *t = st->table;
    const uint32_t d = dc ? dc : st->domain, mask = (1u << d) - 1;
    const bool has_short = st->has_short;
    const uint8_t *y = x->y;
    const size_t n = x->n;
    __m128i carry = _mm_setzero_si128();   /* 0: every bucket may match (safe) */
    uint8_t tmp[2 + BLOCK + 1];
    size_t i = x->from;
    while (i < n) {
        const uint8_t *p = y + i;
        size_t stop = i + BLOCK;
        if (i >= 2 && n - i > BLOCK) {
            stop = n - BLOCK;
        } else {
            size_t before = i < 2 ? i : 2;
            memset(tmp, 0, sizeof tmp);
            memcpy(tmp + 2 - before, y + i - before, before);
            memcpy(tmp + 2, y + i, n - i < BLOCK ? n - i : BLOCK);
            p = tmp + 2;
        }
        for (; i < stop; i += BLOCK, p += BLOCK) {
            __m128i sum = block(t, p, s, w, d, mask, carry);
            uint64_t res = (uint64_t)_mm_cvtsi128_si64(sum);
            carry = _mm_srli_si128(sum, 8);
            if (res != ~0ull || has_short) {
                int r = on_block(x, res, i);
                if (r)
                    return r;
            }
        }
    }
    return 0;
}

static int loop_s1(fdr_ctx *x) { return loop_body(x, 1, 2, 0); }
static int loop_s2(fdr_ctx *x) { return loop_body(x, 2, 2, 0); }
static int loop_s4(fdr_ctx *x) { return loop_body(x, 4, 2, 0); }

/* The 3-byte loops at each stride and each key bits choose_shape gives
 * (12, 14, 16): the key's shift is by a constant, not by CL (3 uops on
 * Intel cores against 1; +8% on one thread on the GPU host's Xeon,
 * docs/notes/2026-11-26-cpu-sets.md, session 12). */
#define FDR_LOOPS3(d)                                                          \
    static int loop3_s1_##d(fdr_ctx *x) { return loop_body(x, 1, 3, d); }      \
    static int loop3_s2_##d(fdr_ctx *x) { return loop_body(x, 2, 3, d); }      \
    static int loop3_s4_##d(fdr_ctx *x) { return loop_body(x, 4, 3, d); }
FDR_LOOPS3(12)
FDR_LOOPS3(14)
FDR_LOOPS3(16)

typedef int (*fdr_loop)(fdr_ctx *);

static int run_loop(fdr_ctx *x)
{
    static const fdr_loop w2[3] = { loop_s1, loop_s2, loop_s4 };
    static const fdr_loop w3[3][3] = {
        { loop3_s1_12, loop3_s2_12, loop3_s4_12 },
        { loop3_s1_14, loop3_s2_14, loop3_s4_14 },
        { loop3_s1_16, loop3_s2_16, loop3_s4_16 },
    };
    const fdr_state *st = x->st;
    const int si = st->stride == 4 ? 2 : (int)st->stride - 1;
    return (st->width == 2 ? w2[si] : w3[(st->domain - 12) / 2][si])(x);
}

static hay_status fdr_build(hay_patterns *set, void **state)
{
    return hay_fdr_build_width(set, state, 0);
}

/* ---- scan and count -------------------------------------------------------- */

/* Reports the matches ending in (lo, hi], end by end, by length. */
static int direct_ends(fdr_ctx *x, size_t lo, size_t hi)
{
    const fdr_state *st = x->st;
    for (size_t e = lo + 1; e <= hi; e++)
        for (uint32_t j = 0; j < st->nlengths && st->lengths[j] <= e; j++) {
            uint32_t len = st->lengths[j];
            if (len == 1 && !bit(st->one, x->y[e - 1]))
                continue;
            if (len == 2 && !bit(st->two, (uint32_t)x->y[e - 2] << 8 | x->y[e - 1]))
                continue;
            if (probe(x, e - len, len < 8 ? len : 8, ANY, len))
                return 1;
        }
    return 0;
}

static int fdr_out(void *ctx, const hay_eo_match *m)
{
    return emit_lit(ctx, m->val, m->end);
}

static int fdr_filter(void *ctx, hay_eo *q, size_t min_end)
{
    fdr_ctx *x = ctx;
    (void)q;
    x->from = hay_eo_first_start(x->st->max_len, min_end);
    x->min_end = min_end;
    return run_loop(x);
}

static int fdr_direct(void *ctx, size_t lo, size_t hi)
{
    return direct_ends(ctx, lo, hi);
}

static int fdr_scan(const hay_patterns *set, const void *state,
                    const uint8_t *y, size_t n, size_t min_end,
                    uint64_t base, hay_emit_fn emit, void *sink)
{
    fdr_ctx x = {
        .st = state, .set = set, .y = y, .n = n, .base = base, .emit = emit,
        .sink = sink,
    };
    return hay_eo_scan(&x.q, fdr_out, n, min_end, x.st->max_len, fdr_filter, fdr_direct,
                       &x);
}

static uint64_t fdr_count(const hay_patterns *set, const void *state,
                          const uint8_t *y, size_t n, size_t min_end)
{
    const fdr_state *st = state;
    if (min_end >= n)
        return 0;
    fdr_ctx x = {
        .st = st, .set = set, .y = y, .n = n,
        .from = hay_eo_first_start(st->max_len, min_end), .min_end = min_end,
        .counting = true,
    };
    run_loop(&x);
    return x.count;
}

const hay_engine hay_engine_fdr = {
    "fdr", true, fdr_build, hay_fdr_destroy, fdr_scan, fdr_count,
};

/* ---- test hooks ------------------------------------------------------------- */

/* The fdr state of set; NULL when set is not an fdr set. */
static fdr_state *fdr_of(const hay_patterns *set)
{
    return set && set->engine == &hay_engine_fdr ? set->state : NULL;
}

hay_status hay_fdr_set_stride(hay_patterns *set, unsigned stride)
{
    fdr_state *st = fdr_of(set);
    RETURN_ERROR_IF(!st || (stride != 1 && stride != 2 && stride != 4), HAY_ERR_INVALID);
    st->stride = stride;
    return HAY_OK;
}

unsigned hay_fdr_stride(const hay_patterns *set)
{
    const fdr_state *st = fdr_of(set);
    return st ? st->stride : 0;
}

hay_status hay_fdr_set_width(hay_patterns *set, unsigned width)
{
    RETURN_ERROR_IF(!fdr_of(set) || (width != 2 && width != 3), HAY_ERR_INVALID);
    void *st = NULL;   /* the set is unchanged on an error */
    FORWARD_IF_ERROR(hay_fdr_build_width(set, &st, width));
    hay_fdr_destroy(set, set->state);
    set->state = st;
    return HAY_OK;
}

unsigned hay_fdr_width(const hay_patterns *set)
{
    const fdr_state *st = fdr_of(set);
    return st ? st->width : 0;
}

unsigned hay_fdr_domain(const hay_patterns *set)
{
    const fdr_state *st = fdr_of(set);
    return st ? st->domain : 0;
}
