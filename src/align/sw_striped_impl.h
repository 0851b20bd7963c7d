/*
 * sw_striped_impl.h - Farrar's striped Smith-Waterman (Bioinformatics 23(2),
 * 2007), written once and instantiated per instruction set and lane width
 * by sw_striped_sse2.c and sw_striped_avx2.c.  Before including, define
 * SW_ISA_AVX2 (or not) and SW_BITS (16 or 32); the file defines the engine
 * SW_ENGINE_NAME as a const sw_engine.
 *
 * Layout: the query, padded to seg * LANES, is split into LANES stripes of
 * seg consecutive rows; vector k holds rows k, seg + k, 2 seg + k, ...  The
 * profile holds, for every target code c, the seg vectors of
 * matrix[q[i]][c]; padding rows score PAD so that they never matter.
 *
 * Per target column j: one pass computes H and E from the previous column
 * and F down each stripe; then the "lazy F" loop carries F across stripes
 * (at most LANES rounds) until no vector changes.
 *
 * The best cell follows the tie rule of sw_device.h (smallest query end,
 * then smallest target end): the column's maximum is checked against the
 * best so far with one compare; only when it reaches it (>=) is the
 * column searched for its smallest row holding that value.
 *
 * 16 bits: saturating arithmetic.  If the best score comes within the
 * largest matrix entry of INT16_MAX, a cell could have saturated, and the
 * result is flagged (e->saturated) for the 32-bit engine to redo.
 */
#include <immintrin.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if defined(SW_ISA_AVX2)
#define SW_FN static __attribute__((target("avx2")))
#define SW_VBYTES 32
typedef __m256i sw_vec;
#define V_LOAD(p) _mm256_load_si256(p)
#define V_STORE(p, v) _mm256_store_si256(p, v)
#define V_ZERO() _mm256_setzero_si256()
#define V_ANDNOT(a, b) _mm256_andnot_si256(a, b)
#define V_ANY(v) (_mm256_movemask_epi8(v) != 0)
#define V_MOVEMASK(v) _mm256_movemask_epi8(v)
/* Lanes move up by one element; lane 0 comes from fill (zero elsewhere). */
#define V_SHIFT_BYTES(v, b, fill) _mm256_or_si256(_mm256_alignr_epi8((v), \
    _mm256_permute2x128_si256((v), (v), 0x08), 16 - (b)), (fill))
#if SW_BITS == 16
#define V_SET1(x) _mm256_set1_epi16((short)(x))
#define V_ADD(a, b) _mm256_adds_epi16(a, b)
#define V_SUB(a, b) _mm256_subs_epi16(a, b)
#define V_MAX(a, b) _mm256_max_epi16(a, b)
#define V_GT(a, b) _mm256_cmpgt_epi16(a, b)
#define V_EQ(a, b) _mm256_cmpeq_epi16(a, b)
#define V_FILL(x) _mm256_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (short)(x))
#else
#define V_SET1(x) _mm256_set1_epi32(x)
#define V_ADD(a, b) _mm256_add_epi32(a, b)
#define V_SUB(a, b) _mm256_sub_epi32(a, b)
#define V_MAX(a, b) _mm256_max_epi32(a, b)
#define V_GT(a, b) _mm256_cmpgt_epi32(a, b)
#define V_EQ(a, b) _mm256_cmpeq_epi32(a, b)
#define V_FILL(x) _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (x))
#endif
#else
#define SW_FN static
#define SW_VBYTES 16
typedef __m128i sw_vec;
#define V_LOAD(p) _mm_load_si128(p)
#define V_STORE(p, v) _mm_store_si128(p, v)
#define V_ZERO() _mm_setzero_si128()
#define V_ANDNOT(a, b) _mm_andnot_si128(a, b)
#define V_ANY(v) (_mm_movemask_epi8(v) != 0)
#define V_MOVEMASK(v) _mm_movemask_epi8(v)
#define V_SHIFT_BYTES(v, b, fill) _mm_or_si128(_mm_slli_si128((v), (b)), (fill))
#if SW_BITS == 16
#define V_SET1(x) _mm_set1_epi16((short)(x))
#define V_ADD(a, b) _mm_adds_epi16(a, b)
#define V_SUB(a, b) _mm_subs_epi16(a, b)
#define V_MAX(a, b) _mm_max_epi16(a, b)
#define V_GT(a, b) _mm_cmpgt_epi16(a, b)
#define V_EQ(a, b) _mm_cmpeq_epi16(a, b)
#define V_FILL(x) _mm_set_epi16(0, 0, 0, 0, 0, 0, 0, (short)(x))
#else
#define V_SET1(x) _mm_set1_epi32(x)
#define V_ADD(a, b) _mm_add_epi32(a, b)
#define V_SUB(a, b) _mm_sub_epi32(a, b)
/* SSE2 has no 32-bit max: select by compare. */
static inline __m128i sw_max32(__m128i a, __m128i b)
{
    __m128i gt = _mm_cmpgt_epi32(a, b);
    return _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, b));
}
#define V_MAX(a, b) sw_max32(a, b)
#define V_GT(a, b) _mm_cmpgt_epi32(a, b)
#define V_EQ(a, b) _mm_cmpeq_epi32(a, b)
#define V_FILL(x) _mm_set_epi32(0, 0, 0, (x))
#endif
#endif

#if SW_BITS == 16
#define sw_elem int16_t
#define SW_NEG INT16_MIN
#define SW_PAD (-16384)
#else
#define sw_elem int32_t
/* Scores stay within [0, 2^30] (align.c refuses larger pairs); the lazy F
 * loop may take 2^30 more off a lane before it stops, so minus infinity is
 * -2^29 to stay clear of wrapping. */
#define SW_NEG (-(1 << 29))
#define SW_PAD (-(1 << 29))
#endif
#define LANES (SW_VBYTES / (int)sizeof(sw_elem))
#define V_SHIFT1(v, fill) V_SHIFT_BYTES(v, (int)sizeof(sw_elem), fill)

#define SW_CAT2(a, b) a##b
#define SW_CAT(a, b) SW_CAT2(a, b)
#define SW_F(x) SW_CAT(SW_CAT(x, SW_BITS), SW_CAT(_, SW_ISA_SUFFIX))

typedef struct SW_F(sw_prof) {
    size_t m, seg;
    int alpha;
    int usable;        /* 16 bits: the scoring's values fit */
    sw_vec *v;         /* alpha * seg vectors */
} SW_F(sw_prof);

static void *SW_F(sw_valloc)(size_t nvec)
{
    size_t bytes = nvec * SW_VBYTES;
    if (nvec > SIZE_MAX / SW_VBYTES / 2)
        return NULL;
    return aligned_alloc(SW_VBYTES, bytes ? bytes : SW_VBYTES);
}

static hay_status SW_F(sw_profile)(const hay_align_scoring *s,
                                   const uint8_t *q, size_t m, void **out)
{
    SW_F(sw_prof) *p = calloc(1, sizeof *p);
    if (!p)
        return HAY_ERR_NOMEM;
    p->m = m;
    p->seg = (m + LANES - 1) / LANES;
    p->alpha = s->alpha;
    p->usable = SW_BITS == 32 ||
                (s->max_score <= 8192 && s->min_score >= -8192 &&
                 s->open <= 8192);
    p->v = SW_F(sw_valloc)((size_t)s->alpha * p->seg);
    if (!p->v) {
        free(p);
        return HAY_ERR_NOMEM;
    }
    sw_elem *e = (sw_elem *)p->v;
    for (int c = 0; c < s->alpha; c++)
        for (size_t k = 0; k < p->seg; k++)
            for (int l = 0; l < LANES; l++) {
                size_t i = (size_t)l * p->seg + k;
                int32_t v = SW_PAD;
                if (i < m && p->usable)
                    v = s->matrix[q[i] * s->alpha + c];
                *e++ = (sw_elem)v;
            }
    *out = p;
    return HAY_OK;
}

static void SW_F(sw_profile_free)(void *prof)
{
    SW_F(sw_prof) *p = prof;
    if (p) {
        free(p->v);
        free(p);
    }
}

/* The smallest real row of the column holding value v (SIZE_MAX: none). */
SW_FN size_t SW_F(sw_first_row)(const sw_vec *h, size_t seg, size_t m,
                                sw_elem v)
{
    sw_vec vv = V_SET1(v);
    size_t best = SIZE_MAX;
    sw_elem tmp[LANES] __attribute__((aligned(SW_VBYTES)));
    for (size_t k = 0; k < seg; k++) {
        sw_vec x = V_LOAD(h + k);
        if (!V_ANY(V_EQ(x, vv)))
            continue;
        V_STORE((sw_vec *)tmp, x);
        for (int l = 0; l < LANES; l++) {
            size_t i = (size_t)l * seg + k;
            if (tmp[l] == v && i < m) {
                if (i < best)
                    best = i;
                break;
            }
        }
    }
    return best;
}

SW_FN hay_status SW_F(sw_score)(const void *prof, const hay_align_scoring *s,
                                const uint8_t *q, size_t m, const uint8_t *t,
                                size_t n, sw_end *e)
{
    const SW_F(sw_prof) *p = prof;
    memset(e, 0, sizeof *e);
    if (!p->usable) {
        e->saturated = 1;
        return HAY_OK;
    }
    const size_t seg = p->seg;
    sw_vec *ha = SW_F(sw_valloc)(seg), *hb = SW_F(sw_valloc)(seg);
    sw_vec *ev = SW_F(sw_valloc)(seg);
    if (!ha || !hb || !ev) {
        free(ha);
        free(hb);
        free(ev);
        return HAY_ERR_NOMEM;
    }
    const sw_vec vzero = V_ZERO(), vneg = V_SET1(SW_NEG);
    const sw_vec vopen = V_SET1(s->open), vext = V_SET1(s->extend);
    const sw_vec fill_neg = V_FILL(SW_NEG);
    for (size_t k = 0; k < seg; k++) {
        V_STORE(ha + k, vzero);
        V_STORE(hb + k, vzero);
        V_STORE(ev + k, vneg);
    }
    sw_vec *hstore = ha, *hload = hb;
    /* A gap down a column followed at once by a gap along the row can beat
     * a substitution in their place only if min + 2 extend < 0; otherwise
     * E need not see the cells the lazy F loop raises (parasail never
     * updates it; we must when that sum is negative, e.g. BLOSUM62 with
     * extend 1). */
    const int update_e = s->min_score + 2 * s->extend < 0;
    const int strict_stop = s->open > s->extend;
#if SW_BITS == 16
    const int32_t sat_limit = INT16_MAX - (s->max_score > 0 ? s->max_score : 0);
#endif
    int32_t best = 0;
    size_t bi = 0, bj = 0;
    sw_vec vthr = V_ZERO();            /* best or 1, minus 1 */
    sw_elem tmp[LANES] __attribute__((aligned(SW_VBYTES)));

    for (size_t j = 0; j < n; j++) {
        const sw_vec *vp = p->v + (size_t)t[j] * seg;
        sw_vec vf = vneg;
        sw_vec vh = V_SHIFT1(V_LOAD(hstore + seg - 1), vzero);
        sw_vec *sw = hload;
        hload = hstore;
        hstore = sw;
        sw_vec vmax = vzero;
        for (size_t k = 0; k < seg; k++) {
            /* F last: the loop-carried chain through vf is then three
             * operations long (max, subtract, max), not four. */
            vh = V_ADD(vh, V_LOAD(vp + k));
            sw_vec ve = V_LOAD(ev + k);
            vh = V_MAX(vh, vzero);
            vh = V_MAX(vh, ve);
            vh = V_MAX(vh, vf);
            V_STORE(hstore + k, vh);
            vmax = V_MAX(vmax, vh);
            vh = V_SUB(vh, vopen);
            ve = V_MAX(V_SUB(ve, vext), vh);
            V_STORE(ev + k, ve);
            vf = V_MAX(V_SUB(vf, vext), vh);
            vh = V_LOAD(hload + k);
        }
        /* Lazy F: carry F from each stripe's end into the next stripe.
         * After row k, the F going on is vf - ext; it can change row k + 1
         * only if it exceeds H(k) - open (the main pass already carried
         * that; when open == extend, equal is not enough to stop, as a
         * raised H(k) - open is then vf - ext itself) and exceeds 0 (H is
         * never below 0, and F only falls as it goes down): stop when no
         * lane can.  Cells raised here hold a gap's score, below the cell
         * the gap opened from, so the column maximum is not affected. */
        vf = V_SHIFT1(vf, fill_neg);
        for (int round = 0; round < LANES; round++) {
            for (size_t k = 0; k < seg; k++) {
                vh = V_MAX(V_LOAD(hstore + k), vf);
                V_STORE(hstore + k, vh);
                vh = V_SUB(vh, vopen);
                if (update_e)
                    V_STORE(ev + k, V_MAX(V_LOAD(ev + k), vh));
                vf = V_SUB(vf, vext);
                if (strict_stop
                        ? !V_ANY(V_GT(vf, V_MAX(vh, vzero)))
                        : !V_ANY(V_ANDNOT(V_GT(vh, vf), V_GT(vf, vzero))))
                    goto lazy_done;
            }
            vf = V_SHIFT1(vf, fill_neg);
        }
lazy_done:
        if (V_ANY(V_GT(vmax, vthr))) {
            V_STORE((sw_vec *)tmp, vmax);
            sw_elem cmax = tmp[0];
            for (int l = 1; l < LANES; l++)
                if (tmp[l] > cmax)
                    cmax = tmp[l];
            /* The smallest row holding cmax lies in the lowest lane whose
             * maximum is cmax (a lane is a block of seg consecutive rows). */
            unsigned mask = (unsigned)V_MOVEMASK(V_EQ(vmax, V_SET1(cmax)));
            size_t lane = (size_t)__builtin_ctz(mask) / sizeof(sw_elem);
            /* A tie matters only above the best row so far: in a lower
             * lane, or higher up in the same one (ties are common with low
             * scores, so they must cost next to nothing). */
            size_t limit = seg;
            if (cmax == best) {
                if (lane > bi / seg)
                    continue;
                if (lane == bi / seg)
                    limit = bi % seg;
            }
            const sw_elem *col = (const sw_elem *)hstore;
            size_t i = SIZE_MAX;
            for (size_t k = 0; k < limit; k++)
                if (col[k * LANES + lane] == cmax) {
                    i = lane * seg + k;
                    break;
                }
            if (i >= m && cmax > best)
                i = SW_F(sw_first_row)(hstore, seg, m, cmax);
            if (i != SIZE_MAX && (cmax > best || i < bi)) {
                best = cmax;
                bi = i;
                bj = j;
                vthr = V_SET1(best - 1);
#if SW_BITS == 16
                if (best >= sat_limit)
                    break;          /* no use going on: 32 bits will redo it */
#endif
            }
        }
    }
    free(ha);
    free(hb);
    free(ev);
#if SW_BITS == 16
    if (best >= sat_limit) {
        e->saturated = 1;
        return HAY_OK;
    }
#endif
    e->score = best;
    e->q_end = bi;
    e->t_end = bj;
    return HAY_OK;
}

#undef SW_FN
#undef SW_VBYTES
#undef V_LOAD
#undef V_STORE
#undef V_ZERO
#undef V_ANDNOT
#undef V_ANY
#undef V_MOVEMASK
#undef V_SHIFT_BYTES
#undef V_SET1
#undef V_ADD
#undef V_SUB
#undef V_MAX
#undef V_GT
#undef V_EQ
#undef V_FILL
#undef SW_NEG
#undef SW_PAD
#undef LANES
#undef V_SHIFT1
#undef sw_elem
