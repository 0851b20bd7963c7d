/*
 * teddy.c - a packed SIMD filter for small literal sets, after Hyperscan's
 * Teddy (as described in the Hyperscan paper and in the design notes of
 * the Rust aho-corasick crate); the code is our own.
 *
 * Literals go into 8 buckets, one bit each.  The fingerprint is the first
 * F = min(3, shortest literal) bytes.  For each fingerprint position p two
 * 16-entry tables give, for the low and the high nibble of a byte, the
 * buckets that have a literal whose byte p has that nibble; PSHUFB looks
 * up 16 (SSSE3) or 32 (AVX2) input bytes at once, and AND-ing the two
 * lookups gives m_p[j]: buckets whose byte p may be the byte at lane j.
 * A literal can start at j - (F - 1) when m_{F-1}[j] & m_{F-2}[j - 1] &
 * m_{F-3}[j - 2] is non-zero.  The shifted terms take their first lanes
 * from the previous block's m (PALIGNR), so a fingerprint that straddles
 * two blocks is still seen.  A candidate's F bytes (folded when
 * caseless) are hashed to the few literals that start with them, which
 * are verified exactly (an 8-byte masked word compare, then the rest):
 * walking every literal of the flagged buckets instead costs 8 compares a
 * candidate with 64 literals.  Caseless sets put both cases of a letter
 * into the tables and compare with the letter bits OR-ed in.
 *
 * Bucket choice: literals sorted by their folded fingerprint, each run of
 * equal fingerprints kept in one bucket and neighbouring runs (which share
 * leading bytes, so their nibble sets overlap) in the same bucket.
 *
 * Order: candidates come by start, the contract wants ends: verified
 * matches wait in endorder.h's buffer, sorted by (end, id); should it fill
 * (many duplicate or overlapping literals on dense input), the ends since
 * the last flush are reported by a direct per-end check, every literal at
 * every end.  Counting needs no order and no buffer.
 *
 * The block loop (AVX2, SSSE3, or scalar tables for CPUs without SSSE3)
 * is chosen once at build time from the CPU's features, as simd.c does.
 */
#include "../core/internal.h"
#include "endorder.h"
#include "teddy.h"

#include <immintrin.h>

#define BUCKETS 8
#define HASH_BITS 10       /* fingerprint hash: 1024 slots for <= 64 literals */

typedef struct teddy_lit {
    uint64_t val;      /* the first min(8, len) bytes, letters folded when caseless */
    uint64_t mask;     /* 0xff for each of those bytes */
    uint64_t cmask;    /* 0x20 at letter bytes of a caseless literal */
    const uint8_t *pat;
    uint32_t len, id;
    uint32_t key;      /* the folded fingerprint, byte p at bits 8p */
} teddy_lit;

typedef struct teddy_state teddy_state;

/* One scan's working state. */
typedef struct teddy_ctx {
    const teddy_state *st;
    const uint8_t *y;
    size_t n, from, min_end;
    bool counting;
    uint64_t count;
    hay_eo *q;               /* matches waiting for their turn (endorder.h) */
    uint64_t base;
    hay_emit_fn emit;
    void *sink;
    const hay_patterns *set;
} teddy_ctx;
/* Runs the filter over starts from x->from; 0 done, 1 stopped by emit,
 * 2 the pending buffer overflowed. */
typedef int (*teddy_loop_fn)(const teddy_state *st, teddy_ctx *x);

struct teddy_state {
    uint32_t n, fp;          /* literals, fingerprint length (1..3) */
    bool caseless;
    size_t min_len, max_len;
    uint8_t lo[3][16], hi[3][16];
    uint8_t tab[3][256];     /* lo & hi per byte, for the scalar loop */
    uint8_t fold[256];
    uint8_t hash_first[(1u << HASH_BITS) + 1];   /* literals of slot h: */
    teddy_lit lit[HAY_TEDDY_MAX_LITERALS];   /* [hash_first[h], hash_first[h + 1]) */
    teddy_loop_fn loop;
    const char *isa;
};

/* ---- verification and order --------------------------------------------- */

static inline bool lit_match(const teddy_lit *l, const uint8_t *y, size_t n,
                             size_t s, bool caseless)
{
    if (n - s >= 8) {
        uint64_t w;
        memcpy(&w, y + s, 8);
        if (((w | l->cmask) & l->mask) != l->val)
            return false;
        return l->len <= 8 ||
               hay_eq(y + s + 8, l->pat + 8, l->len - 8, caseless);
    }
    return hay_eq(y + s, l->pat, l->len, caseless);
}

static inline uint32_t hash_key(uint32_t key)
{
    return (key * 0x9e3779b1u) >> (32 - HASH_BITS);
}

/* The candidates of one block of B lanes starting at input offset i:
 * bit j of `cand` is set when some fingerprint ends at i + j. */
static int on_block(const teddy_state *st, teddy_ctx *x, uint32_t cand,
                    size_t B, size_t i)
{
    const size_t F = st->fp, n = x->n;
    const uint8_t *y = x->y;
    while (cand) {
        size_t j = (size_t)__builtin_ctz(cand);
        cand &= cand - 1;
        if (i + j + 1 < F)
            continue;
        if (i + j >= n)
            break;
        size_t s = i + j + 1 - F;
        uint32_t key = st->fold[y[s]];
        if (F > 1)
            key |= (uint32_t)st->fold[y[s + 1]] << 8;
        if (F > 2)
            key |= (uint32_t)st->fold[y[s + 2]] << 16;
        uint32_t h = hash_key(key);
        for (uint32_t k = st->hash_first[h]; k < st->hash_first[h + 1]; k++) {
            const teddy_lit *l = &st->lit[k];
            size_t end = s + l->len;
            if (l->key != key || end > n || end <= x->min_end ||
                !lit_match(l, y, n, s, st->caseless))
                continue;
            if (x->counting)
                x->count++;
            else if (!hay_eo_push(x->q, end, l->id, l->id))
                return 2;
        }
    }
    /* Every start up to i + B - F is verified. */
    if (!x->counting && x->q->n)
        return hay_eo_flush(x->q, i + B - F + st->min_len);
    return 0;
}

/* ---- block loops ----------------------------------------------------------- */

#define TARGET_AVX2 __attribute__((target("avx2")))
#define TARGET_SSSE3 __attribute__((target("ssse3")))

TARGET_AVX2 static inline __attribute__((always_inline)) __m256i
avx2_lookup(__m256i lo, __m256i hi, __m256i vl, __m256i vh)
{
    return _mm256_and_si256(_mm256_shuffle_epi8(lo, vl), _mm256_shuffle_epi8(hi, vh));
}

/* m shifted up by `k` lanes across the whole register, its first k lanes
 * taken from the top of prev (the previous block). */
#define AVX2_SHIFT(m, prev, k) \
    _mm256_alignr_epi8((m), _mm256_permute2x128_si256((prev), (m), 0x21), 16 - (k))

TARGET_AVX2 static inline __attribute__((always_inline)) int
avx2_body(const teddy_state *st, teddy_ctx *x, const int F)
{
    const uint8_t *y = x->y;
    const size_t n = x->n;
    __m256i lo[3], hi[3];
    for (int p = 0; p < F; p++) {
        lo[p] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)st->lo[p]));
        hi[p] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)st->hi[p]));
    }
    const __m256i nib = _mm256_set1_epi8(0x0f);
    __m256i prev1 = _mm256_setzero_si256(), prev2 = _mm256_setzero_si256();
    uint8_t tail[32];
    for (size_t i = x->from; i < n; i += 32) {
        __m256i v;
        if (i + 32 <= n) {
            v = _mm256_loadu_si256((const __m256i *)(y + i));
        } else {
            memset(tail, 0, sizeof tail);
            memcpy(tail, y + i, n - i);
            v = _mm256_loadu_si256((const __m256i *)tail);
        }
        __m256i vl = _mm256_and_si256(v, nib);
        __m256i vh = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
        __m256i res = avx2_lookup(lo[F - 1], hi[F - 1], vl, vh);
        if (F >= 2) {
            __m256i m = avx2_lookup(lo[F - 2], hi[F - 2], vl, vh);
            res = _mm256_and_si256(res, AVX2_SHIFT(m, prev1, 1));
            prev1 = m;
        }
        if (F >= 3) {
            __m256i m = avx2_lookup(lo[F - 3], hi[F - 3], vl, vh);
            res = _mm256_and_si256(res, AVX2_SHIFT(m, prev2, 2));
            prev2 = m;
        }
        if (!_mm256_testz_si256(res, res)) {
            uint32_t cand = ~(uint32_t)_mm256_movemask_epi8(
                _mm256_cmpeq_epi8(res, _mm256_setzero_si256()));
            int r = on_block(st, x, cand, 32, i);
            if (r)
                return r;
        }
    }
    return 0;
}

TARGET_AVX2 static int avx2_f1(const teddy_state *st, teddy_ctx *x) { return avx2_body(st, x, 1); }
TARGET_AVX2 static int avx2_f2(const teddy_state *st, teddy_ctx *x) { return avx2_body(st, x, 2); }
TARGET_AVX2 static int avx2_f3(const teddy_state *st, teddy_ctx *x) { return avx2_body(st, x, 3); }

TARGET_SSSE3 static inline __attribute__((always_inline)) __m128i
ssse3_lookup(__m128i lo, __m128i hi, __m128i vl, __m128i vh)
{
    return _mm_and_si128(_mm_shuffle_epi8(lo, vl), _mm_shuffle_epi8(hi, vh));
}

TARGET_SSSE3 static inline __attribute__((always_inline)) int
ssse3_body(const teddy_state *st, teddy_ctx *x, const int F)
{
    const uint8_t *y = x->y;
    const size_t n = x->n;
    __m128i lo[3], hi[3];
    for (int p = 0; p < F; p++) {
        lo[p] = _mm_loadu_si128((const __m128i *)st->lo[p]);
        hi[p] = _mm_loadu_si128((const __m128i *)st->hi[p]);
    }
    const __m128i nib = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
    __m128i prev1 = zero, prev2 = zero;
    uint8_t tail[16];
    for (size_t i = x->from; i < n; i += 16) {
        __m128i v;
        if (i + 16 <= n) {
            v = _mm_loadu_si128((const __m128i *)(y + i));
        } else {
            memset(tail, 0, sizeof tail);
            memcpy(tail, y + i, n - i);
            v = _mm_loadu_si128((const __m128i *)tail);
        }
        __m128i vl = _mm_and_si128(v, nib);
        __m128i vh = _mm_and_si128(_mm_srli_epi16(v, 4), nib);
        __m128i res = ssse3_lookup(lo[F - 1], hi[F - 1], vl, vh);
        if (F >= 2) {
            __m128i m = ssse3_lookup(lo[F - 2], hi[F - 2], vl, vh);
            res = _mm_and_si128(res, _mm_alignr_epi8(m, prev1, 15));
            prev1 = m;
        }
        if (F >= 3) {
            __m128i m = ssse3_lookup(lo[F - 3], hi[F - 3], vl, vh);
            res = _mm_and_si128(res, _mm_alignr_epi8(m, prev2, 14));
            prev2 = m;
        }
        uint32_t cand = 0xffffu ^ (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(res, zero));
        if (cand) {
            int r = on_block(st, x, cand, 16, i);
            if (r)
                return r;
        }
    }
    return 0;
}

TARGET_SSSE3 static int ssse3_f1(const teddy_state *st, teddy_ctx *x) { return ssse3_body(st, x, 1); }
TARGET_SSSE3 static int ssse3_f2(const teddy_state *st, teddy_ctx *x) { return ssse3_body(st, x, 2); }
TARGET_SSSE3 static int ssse3_f3(const teddy_state *st, teddy_ctx *x) { return ssse3_body(st, x, 3); }

/* Without SSSE3: the same fingerprints from 256-entry tables, 16 lanes at
 * a time, the bytes before x->from counting as no bucket (as the vector
 * loops' zero carry does). */
static int scalar_loop(const teddy_state *st, teddy_ctx *x)
{
    const size_t F = st->fp, n = x->n;
    for (size_t i = x->from; i < n; i += 16) {
        uint32_t cand = 0;
        for (size_t j = 0; j < 16; j++) {
            size_t q = i + j;
            uint8_t r = 0;
            if (q < n) {
                r = st->tab[F - 1][x->y[q]];
                for (size_t p = 1; p < F && r; p++)
                    r &= q >= x->from + p ? st->tab[F - 1 - p][x->y[q - p]] : 0;
            }
            cand |= (uint32_t)(r != 0) << j;
        }
        if (cand) {
            int rc = on_block(st, x, cand, 16, i);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static const struct {
    const char *isa;
    teddy_loop_fn loop[3];
} loops[] = {
    { "avx2", { avx2_f1, avx2_f2, avx2_f3 } },
    { "ssse3", { ssse3_f1, ssse3_f2, ssse3_f3 } },
    { "scalar", { scalar_loop, scalar_loop, scalar_loop } },
};

static bool isa_usable(const char *isa)
{
    __builtin_cpu_init();
    if (strcmp(isa, "avx2") == 0)
        return __builtin_cpu_supports("avx2");
    if (strcmp(isa, "ssse3") == 0)
        return __builtin_cpu_supports("ssse3");
    return true;
}

static void use_isa(teddy_state *st, size_t k)
{
    st->isa = loops[k].isa;
    st->loop = loops[k].loop[st->fp - 1];
}

/* ---- build ---------------------------------------------------------------- */

static hay_status teddy_build(hay_patterns *set, void **state)
{
    RETURN_ERROR_IF(set->n > HAY_TEDDY_MAX_LITERALS, HAY_ERR_TOO_LARGE);
    teddy_state *st = hay_calloc(&set->alloc, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    const uint32_t n = (uint32_t)set->n;
    st->n = n;
    st->caseless = set->flags & HAY_CASELESS;
    st->min_len = set->min_len;
    st->max_len = set->max_len;
    st->fp = (uint32_t)(set->min_len < 3 ? set->min_len : 3);
    const uint32_t F = st->fp;

    /* Sort ids by folded fingerprint, then id (insertion sort: n <= 64). */
    uint32_t order[HAY_TEDDY_MAX_LITERALS];
    uint8_t key[HAY_TEDDY_MAX_LITERALS][3];
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t p = 0; p < F; p++) {
            uint8_t c = hay_pat(set, i)[p];
            key[i][p] = st->caseless ? hay_fold(c) : c;
        }
        uint32_t k = i;
        while (k > 0 && memcmp(key[order[k - 1]], key[i], F) > 0) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    uint32_t distinct = 0;
    for (uint32_t k = 0; k < n; k++)
        distinct += k == 0 || memcmp(key[order[k - 1]], key[order[k]], F) != 0;
    uint32_t nb = distinct < BUCKETS ? distinct : BUCKETS;

    /* The r-th distinct fingerprint goes to bucket r * nb / distinct: runs
     * of neighbours, balanced in fingerprints. */
    uint32_t rank = 0;
    uint32_t bucket_of[HAY_TEDDY_MAX_LITERALS], slot_of[HAY_TEDDY_MAX_LITERALS];
    uint32_t key32[HAY_TEDDY_MAX_LITERALS];
    uint32_t fill[(1u << HASH_BITS) + 1] = { 0 };
    for (uint32_t k = 0; k < n; k++) {
        if (k > 0 && memcmp(key[order[k - 1]], key[order[k]], F) != 0)
            rank++;
        bucket_of[k] = rank * nb / distinct;
        key32[k] = 0;
        for (uint32_t p = 0; p < F; p++)
            key32[k] |= (uint32_t)key[order[k]][p] << (8 * p);
        fill[hash_key(key32[k]) + 1]++;
    }
    /* Literals by hash slot (counting sort, stable: by fingerprint, id). */
    for (uint32_t h = 0; h < (1u << HASH_BITS); h++)
        fill[h + 1] += fill[h];
    for (uint32_t h = 0; h <= (1u << HASH_BITS); h++)
        st->hash_first[h] = (uint8_t)fill[h];
    for (uint32_t k = 0; k < n; k++)
        slot_of[k] = fill[hash_key(key32[k])]++;
    for (int c = 0; c < 256; c++)
        st->fold[c] = st->caseless ? hay_fold((uint8_t)c) : (uint8_t)c;

    for (uint32_t k = 0; k < n; k++) {
        uint32_t id = order[k], b = bucket_of[k];
        const uint8_t *pat = hay_pat(set, id);
        teddy_lit *l = &st->lit[slot_of[k]];
        l->pat = pat;
        l->len = (uint32_t)set->len[id];
        l->id = id;
        l->key = key32[k];
        for (uint32_t q = 0; q < 8 && q < l->len; q++) {
            uint8_t c = pat[q];
            bool letter = st->caseless && hay_is_alpha(c);
            l->val |= (uint64_t)(letter ? (uint8_t)(c | 0x20) : c) << (8 * q);
            l->mask |= (uint64_t)0xff << (8 * q);
            l->cmask |= (uint64_t)(letter ? 0x20 : 0) << (8 * q);
        }
        for (uint32_t p = 0; p < F; p++) {
            uint8_t c = pat[p];
            uint8_t cs[2] = { c, c };
            if (st->caseless && hay_is_alpha(c)) {
                cs[0] = (uint8_t)(c | 0x20);
                cs[1] = (uint8_t)(c & ~0x20);
            }
            for (int v = 0; v < 2; v++) {
                st->lo[p][cs[v] & 15] |= (uint8_t)(1u << b);
                st->hi[p][cs[v] >> 4] |= (uint8_t)(1u << b);
            }
        }
    }
    for (uint32_t p = 0; p < F; p++)
        for (int c = 0; c < 256; c++)
            st->tab[p][c] = st->lo[p][c & 15] & st->hi[p][c >> 4];

    size_t pick = sizeof loops / sizeof *loops - 1;
    for (size_t k = 0; k < pick; k++)
        if (isa_usable(loops[k].isa)) {
            pick = k;
            break;
        }
    use_isa(st, pick);
    set->state_memory = sizeof *st;
    *state = st;
    return HAY_OK;
}

static void teddy_destroy(const hay_patterns *set, void *state)
{
    hay_free(&set->alloc, state);
}

/* ---- scan and count -------------------------------------------------------- */

/* Reports the matches ending in (lo, hi], end by end, ids in order. */
static int direct_ends(const hay_patterns *set, const teddy_state *st,
                       const uint8_t *y, size_t lo, size_t hi, uint64_t base,
                       hay_emit_fn emit, void *sink)
{
    for (size_t e = lo + 1; e <= hi; e++)
        for (uint32_t id = 0; id < st->n; id++) {
            size_t m = set->len[id];
            if (m <= e && hay_eq(y + e - m, hay_pat(set, id), m, st->caseless) &&
                emit(sink, id, base + e - m, base + e))
                return 1;
        }
    return 0;
}

static int teddy_out(void *ctx, const hay_eo_match *m)
{
    const teddy_ctx *x = ctx;
    return x->emit(x->sink, m->val, x->base + m->end - x->set->len[m->val],
                   x->base + m->end);
}

static int teddy_filter(void *ctx, hay_eo *q, size_t min_end)
{
    teddy_ctx *x = ctx;
    (void)q;
    x->from = hay_eo_first_start(x->st->max_len, min_end);
    x->min_end = min_end;
    return x->st->loop(x->st, x);
}

static int teddy_direct(void *ctx, size_t lo, size_t hi)
{
    const teddy_ctx *x = ctx;
    return direct_ends(x->set, x->st, x->y, lo, hi, x->base, x->emit, x->sink);
}

static int teddy_scan(const hay_patterns *set, const void *state,
                      const uint8_t *y, size_t n, size_t min_end,
                      uint64_t base, hay_emit_fn emit, void *sink)
{
    teddy_ctx x = {
        .st = state, .y = y, .n = n, .base = base, .emit = emit, .sink = sink,
        .set = set,
    };
    return hay_eo_scan(&x.q, teddy_out, n, min_end, x.st->max_len, teddy_filter, teddy_direct,
                       &x);
}

static uint64_t teddy_count(const hay_patterns *set, const void *state,
                            const uint8_t *y, size_t n, size_t min_end)
{
    const teddy_state *st = state;
    if (min_end >= n)
        return 0;
    teddy_ctx x = {
        .st = st, .y = y, .n = n, .from = hay_eo_first_start(st->max_len, min_end),
        .min_end = min_end, .counting = true, .set = set,
    };
    st->loop(st, &x);
    return x.count;
}

const hay_engine hay_engine_teddy = {
    "teddy", true, teddy_build, teddy_destroy, teddy_scan, teddy_count,
};

/* ---- test hook -------------------------------------------------------------- */

hay_status hay_teddy_select_isa(hay_patterns *set, const char *isa)
{
    RETURN_ERROR_IF(!set || !isa || set->engine != &hay_engine_teddy || !set->state,
                    HAY_ERR_INVALID);
    for (size_t k = 0; k < sizeof loops / sizeof *loops; k++)
        if (strcmp(loops[k].isa, isa) == 0) {
            RETURN_ERROR_IF(!isa_usable(isa), HAY_ERR_UNSUPPORTED);
            use_isa(set->state, k);
            return HAY_OK;
        }
    return HAY_ERR_INVALID;
}

const char *hay_teddy_isa(const hay_patterns *set)
{
    if (!set || set->engine != &hay_engine_teddy || !set->state)
        return NULL;
    return ((const teddy_state *)set->state)->isa;
}
