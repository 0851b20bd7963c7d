/*
 * simd.c - the default one-pattern engine.  Two bytes of the needle that are
 * rare in typical text are compared at 32 (AVX2) or 16 (SSE2) window
 * positions at once; only positions where both agree are verified.  The
 * vector width is chosen once, at build time, from the CPU's features.
 * Caseless: for a letter, OR-ing 0x20 into the haystack byte maps both cases
 * to the lower one and no other byte onto it, so one compare suffices.
 * Each verification is charged the pattern's length against a budget
 * proportional to the bytes scanned; past it KMP takes over for a stretch
 * (linear.h), so a periodic needle in a periodic haystack stays linear.
 */
#include "linear.h"

#include <immintrin.h>

/* Byte rank, 0 = rarest, 255 = most common, measured on English text and
 * system logs; NUL and 0xff are raised because binary data is full of them. */
static const uint8_t byte_rank[256] = {
    200,   1,   2,   3,   4,   5,   6,   7,   8,   9, 237,  10,  11, 226,  12,  13,
     14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  71,  24,  25,  26,  27,  28,
    255, 142, 209, 107, 106, 138,  93, 153, 186, 188, 121, 141, 232, 224, 239, 221,
    242, 241, 231, 222, 220, 223, 218, 217, 214, 215, 225, 197,  84, 166,  83, 162,
     95, 208, 173, 196, 179, 194, 182, 184, 180, 210, 158, 156, 185, 203, 199, 187,
    192,  94, 191, 207, 213, 155, 118, 181, 105, 120,  96, 177,  89, 176,  81, 174,
     88, 253, 235, 240, 245, 254, 234, 230, 246, 249, 147, 216, 244, 236, 250, 251,
    233, 134, 247, 248, 252, 238, 219, 229, 193, 228, 160,  86, 115,  87,  91,  72,
    211, 189, 200, 164, 139, 125, 126, 149, 169, 129, 114, 159, 163, 140, 132, 161,
    123, 148, 101, 100, 136,  97, 113, 119, 130, 152, 144, 112, 165, 157, 102, 137,
    128, 127, 111,  98, 104, 135, 110, 108, 117,  99, 103,  92, 109, 122, 116, 146,
    205, 151, 171, 150, 167, 204, 133, 145, 202, 154, 178, 190, 175, 201, 212, 168,
     29,  30,  82, 131,  77,  74,  79,  78,  31,  32,  33,  73,  34,  35,  80,  75,
    243, 227,  36,  37,  38,  39,  40,  41,  76,  42,  43,  44,  45,  46,  47,  48,
     49,  50, 183,  90, 195, 206, 198, 172, 170, 143,  51,  52,  53,  54,  85, 124,
     55,  56,  57,  58,  59,  60,  61,  62,  63,  64,  65,  66,  67,  68,  69,  200,
};

typedef struct simd_state simd_state;
typedef int (*simd_loop_fn)(const simd_state *st, const uint8_t *y, size_t n,
                            size_t j, uint64_t base, hay_emit_fn emit,
                            void *sink, hay_budget *bud);

struct simd_state {
    const uint8_t *pat;     /* the set's copy of the pattern */
    size_t m;
    size_t i1, i2;          /* offsets of the two rare bytes */
    uint8_t b1, b2;         /* their values (lower case when caseless) */
    uint8_t or1, or2;       /* 0x20 when the byte is a caseless letter */
    bool caseless;
    simd_loop_fn loop;
    const char *isa;
    hay_kmp kmp;            /* the worst-case fallback */
};

static inline bool verify(const simd_state *st, const uint8_t *p)
{
    return hay_eq(p, st->pat, st->m, st->caseless);
}

/* Verifies window at, reports it, charges the budget; returns from the
 * loop when emit stops or the budget is spent. */
#define VERIFY_AT(at)                                                        \
    do {                                                                     \
        size_t a_ = (at);                                                    \
        if (verify(st, y + a_) && emit(sink, 0, base + a_, base + a_ + st->m)) \
            return 1;                                                        \
        if (!hay_budget_spend(bud, a_ + 1, st->m))                           \
            return HAY_FILTER_SPENT;                                         \
    } while (0)

static int scalar_tail(const simd_state *st, const uint8_t *y, size_t n,
                       size_t j, uint64_t base, hay_emit_fn emit, void *sink,
                       hay_budget *bud)
{
    for (; j + st->m <= n; j++) {
        if ((uint8_t)(y[j + st->i1] | st->or1) == st->b1 &&
            (uint8_t)(y[j + st->i2] | st->or2) == st->b2)
            VERIFY_AT(j);
    }
    return 0;
}

#define EMIT_MASK(mask, off)                                                 \
    while (mask) {                                                           \
        VERIFY_AT((off) + (size_t)__builtin_ctz(mask));                      \
        mask &= mask - 1;                                                    \
    }

static int sse2_loop(const simd_state *st, const uint8_t *y, size_t n,
                     size_t j, uint64_t base, hay_emit_fn emit, void *sink,
                     hay_budget *bud)
{
    const __m128i v1 = _mm_set1_epi8((char)st->b1), v2 = _mm_set1_epi8((char)st->b2);
    const __m128i o1 = _mm_set1_epi8((char)st->or1), o2 = _mm_set1_epi8((char)st->or2);
    const uint8_t *p1 = y + st->i1, *p2 = y + st->i2;
    /* Positions j .. j+15 are windows that fit when j + 15 + m <= n. */
    while (j + 16 + st->m <= n + 1) {
        __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p1 + j)), o1);
        __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p2 + j)), o2);
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, v1), _mm_cmpeq_epi8(b, v2)));
        EMIT_MASK(mask, j);
        j += 16;
    }
    return scalar_tail(st, y, n, j, base, emit, sink, bud);
}

/* AVX2: 128 window positions per step.  The case-sensitive loop skips the
 * OR with the case mask; both are generated from one body. */
#define AVX2_LOOP(NAME, FOLD)                                                 \
__attribute__((target("avx2")))                                               \
static int NAME(const simd_state *st, const uint8_t *y, size_t n, size_t j,   \
                uint64_t base, hay_emit_fn emit, void *sink, hay_budget *bud) \
{                                                                             \
    const __m256i v1 = _mm256_set1_epi8((char)st->b1);                        \
    const __m256i v2 = _mm256_set1_epi8((char)st->b2);                        \
    const __m256i o1 = _mm256_set1_epi8((char)st->or1);                       \
    const __m256i o2 = _mm256_set1_epi8((char)st->or2);                       \
    const uint8_t *p1 = y + st->i1, *p2 = y + st->i2;                         \
    (void)o1; (void)o2;                                                       \
    while (j + 128 + st->m <= n + 1) {                                        \
        __m256i e[4];                                                         \
        for (int k = 0; k < 4; k++) {                                         \
            __m256i a = _mm256_loadu_si256((const __m256i *)(p1 + j + 32 * k)); \
            __m256i b = _mm256_loadu_si256((const __m256i *)(p2 + j + 32 * k)); \
            if (FOLD) {                                                       \
                a = _mm256_or_si256(a, o1);                                   \
                b = _mm256_or_si256(b, o2);                                   \
            }                                                                 \
            e[k] = _mm256_and_si256(_mm256_cmpeq_epi8(a, v1),                 \
                                    _mm256_cmpeq_epi8(b, v2));                \
        }                                                                     \
        __m256i any = _mm256_or_si256(_mm256_or_si256(e[0], e[1]),            \
                                      _mm256_or_si256(e[2], e[3]));           \
        if (!_mm256_testz_si256(any, any)) {                                  \
            for (int k = 0; k < 4; k++) {                                     \
                unsigned mk = (unsigned)_mm256_movemask_epi8(e[k]);           \
                EMIT_MASK(mk, j + 32 * (size_t)k);                            \
            }                                                                 \
        }                                                                     \
        j += 128;                                                             \
    }                                                                         \
    return sse2_loop(st, y, n, j, base, emit, sink, bud);                    \
}

AVX2_LOOP(avx2_loop, 0)
AVX2_LOOP(avx2_loop_caseless, 1)

static int rank_of(uint8_t c, bool caseless)
{
    if (caseless && hay_is_alpha(c)) {
        int lo = byte_rank[c | 0x20], up = byte_rank[c & ~0x20];
        return lo > up ? lo : up;
    }
    return byte_rank[c];
}

static hay_status simd_build(hay_patterns *set, void **state)
{
    simd_state *st = hay_calloc(&set->alloc, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    hay_status s = hay_kmp_build(set, &st->kmp);
    if (s < 0) {
        hay_free(&set->alloc, st);
        return s;
    }
    st->pat = hay_pat(set, 0);
    st->m = set->len[0];
    st->caseless = set->flags & HAY_CASELESS;
    /* The rarest byte, then the rarest other byte value (or another
     * position of the same byte when the needle has only one value). */
    size_t i1 = 0;
    for (size_t i = 1; i < st->m; i++)
        if (rank_of(st->pat[i], st->caseless) < rank_of(st->pat[i1], st->caseless))
            i1 = i;
    size_t i2 = st->m > 1 ? (i1 == 0 ? 1 : 0) : 0;
    for (size_t i = 0; i < st->m; i++) {
        if (i == i1)
            continue;
        bool same_i = hay_fold(st->pat[i]) == hay_fold(st->pat[i1]);
        bool same_2 = hay_fold(st->pat[i2]) == hay_fold(st->pat[i1]);
        if ((same_2 && !same_i) ||
            (same_2 == same_i &&
             rank_of(st->pat[i], st->caseless) < rank_of(st->pat[i2], st->caseless)))
            i2 = i;
    }
    st->i1 = i1;
    st->i2 = i2;
    uint8_t c1 = st->pat[i1], c2 = st->pat[i2];
    bool l1 = st->caseless && hay_is_alpha(c1), l2 = st->caseless && hay_is_alpha(c2);
    st->or1 = l1 ? 0x20 : 0;
    st->or2 = l2 ? 0x20 : 0;
    st->b1 = l1 ? (uint8_t)(c1 | 0x20) : c1;
    st->b2 = l2 ? (uint8_t)(c2 | 0x20) : c2;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        st->loop = (st->or1 | st->or2) ? avx2_loop_caseless : avx2_loop;
        st->isa = "avx2";
    } else {
        st->loop = sse2_loop;
        st->isa = "sse2";
    }
    set->state_memory = sizeof *st + hay_kmp_memory(&st->kmp);
    *state = st;
    return HAY_OK;
}

static void simd_destroy(const hay_patterns *set, void *state)
{
    simd_state *st = state;
    if (!st)
        return;
    hay_kmp_free(set, &st->kmp);
    hay_free(&set->alloc, st);
}

static int simd_filter(const void *state, const uint8_t *y, size_t n, size_t j,
                       uint64_t base, hay_emit_fn emit, void *sink,
                       hay_budget *bud)
{
    const simd_state *st = state;
    return st->loop(st, y, n, j, base, emit, sink, bud);
}

static int simd_scan(const hay_patterns *set, const void *state,
                     const uint8_t *y, size_t n, size_t min_end,
                     uint64_t base, hay_emit_fn emit, void *sink)
{
    (void)set;
    const simd_state *st = state;
    if (n < st->m)
        return 0;
    size_t j = min_end + 1 > st->m ? min_end + 1 - st->m : 0;
    return hay_guarded_scan(&st->kmp, simd_filter, st, y, n, j, base, emit, sink);
}

const hay_engine hay_engine_simd = {
    "simd", false, simd_build, simd_destroy, simd_scan, NULL,
};
