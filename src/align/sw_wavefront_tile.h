/*
 * sw_wavefront_tile.h - one tile of sw_wavefront.c as Farrar's striped
 * pass (sw_striped_impl.h) in AVX2, written once for 16- and 32-bit lanes:
 * define WT_BITS (16 or 32) before including; it defines
 * tile16 / tile32(w, r0, r1, c0, c1, corner, best), which returns 0, 1
 * (16 bits: a score may have saturated; the pass is redone in 32 bits) or
 * -1 (out of memory).
 *
 * Rows [r0, r1) over columns [c0, c1); vector k holds rows k, seg + k, ...
 * of the tile.  The top row (H and F of row r0 - 1 for every column) comes
 * from w->hrow / w->frow and the corner H(r0 - 1, c0 - 1) as an argument;
 * the left column (H and E of column c0 - 1) from w->hcol / w->ecol; the
 * tile writes back its bottom row and right column in their place.  The
 * pass keeps F per row (fv) for the bottom row's F.  Where the lazy F loop
 * stops early, an F it did not raise is at most 0: the values that stay
 * wrong are all at most 0 and never reach an H (H is at least 0, and F and
 * E only fall along a gap), so every H is exact.
 */
#if WT_BITS == 16
#define wt_elem int16_t
#define WT_NEG INT16_MIN
#define WT_ADD(a, b) _mm256_adds_epi16(a, b)
#define WT_SUB(a, b) _mm256_subs_epi16(a, b)
#define WT_MAX(a, b) _mm256_max_epi16(a, b)
#define WT_GT(a, b) _mm256_cmpgt_epi16(a, b)
#define WT_EQ(a, b) _mm256_cmpeq_epi16(a, b)
#define WT_SET1(x) _mm256_set1_epi16((short)(x))
#define WT_LOW(x) ((int)(uint16_t)(x))
#else
#define wt_elem int32_t
#define WT_NEG NEG
#define WT_ADD(a, b) _mm256_add_epi32(a, b)
#define WT_SUB(a, b) _mm256_sub_epi32(a, b)
#define WT_MAX(a, b) _mm256_max_epi32(a, b)
#define WT_GT(a, b) _mm256_cmpgt_epi32(a, b)
#define WT_EQ(a, b) _mm256_cmpeq_epi32(a, b)
#define WT_SET1(x) _mm256_set1_epi32(x)
#define WT_LOW(x) (x)
#endif
#define WT_L (32 / (int)sizeof(wt_elem))
/* x in lane 0, zero elsewhere */
#define WT_FILL(x) _mm256_setr_m128i(_mm_cvtsi32_si128(WT_LOW(x)), \
                                     _mm_setzero_si128())
/* Lanes up by one element, lane 0 from fill (WT_FILL). */
#define WT_SHIFT1(v, fill) _mm256_or_si256(_mm256_alignr_epi8((v), \
    _mm256_permute2x128_si256((v), (v), 0x08), 16 - (int)sizeof(wt_elem)), (fill))
#define WT_CAT2(a, b) a##b
#define WT_CAT(a, b) WT_CAT2(a, b)
#define WT_TILE WT_CAT(tile, WT_BITS)

/* An int32 value in the lane type (16 bits: clamped). */
static inline wt_elem WT_CAT(narrow, WT_BITS)(int32_t v)
{
#if WT_BITS == 16
    return (wt_elem)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
#else
    return v;
#endif
}
#define WT_NARROW WT_CAT(narrow, WT_BITS)

AVX2 static int WT_TILE(const wave *w, size_t r0, size_t r1, size_t c0,
                        size_t c1, int32_t corner, cell *best)
{
    const hay_align_scoring *s = w->s;
    const size_t rows = r1 - r0, seg = (rows + WT_L - 1) / WT_L;
    __m256i *prof = aligned_alloc(32, ((size_t)s->alpha + 4) * seg * 32);
    if (!prof)
        return -1;
    __m256i *ha = prof + (size_t)s->alpha * seg, *hb = ha + seg;
    __m256i *ev = hb + seg, *fv = ev + seg;
    wt_elem *pe = (wt_elem *)prof;
    for (int c = 0; c < s->alpha; c++)
        for (size_t k = 0; k < seg; k++)
            for (int l = 0; l < WT_L; l++) {
                size_t i = (size_t)l * seg + k;
                *pe++ = i < rows ? (wt_elem)s->matrix[w->q[r0 + i] * s->alpha + c]
                                 : WT_NEG;
            }
    const int32_t open = s->open, ext = s->extend;
    wt_elem *h0 = (wt_elem *)ha, *e0 = (wt_elem *)ev;
    for (size_t k = 0; k < seg; k++)
        for (int l = 0; l < WT_L; l++) {
            size_t i = (size_t)l * seg + k;
            int32_t hl = i < rows ? w->hcol[r0 + i] : 0;
            int32_t el = i < rows ? w->ecol[r0 + i] : NEG;
            h0[k * WT_L + (size_t)l] = WT_NARROW(hl);
            e0[k * WT_L + (size_t)l] = WT_NARROW(max32(el - ext, hl - open));
        }
    const __m256i zero = _mm256_setzero_si256(), vneg = WT_SET1(WT_NEG);
    const __m256i vopen = WT_SET1(open), vext = WT_SET1(ext);
    const __m256i fill_neg = WT_FILL(WT_NEG), lane0 = WT_FILL(-1);
    const int update_e = s->min_score + 2 * ext < 0;
    const int strict_stop = open > ext;
    const size_t kb = (rows - 1) % seg, lb = (rows - 1) / seg;
    __m256i *hstore = ha, *hload = hb;
    int32_t bestv = 0, prev_top = corner;
    size_t bi = 0;
    __m256i vthr = zero;
    for (size_t j = c0; j < c1; j++) {
        if (j + 1 == c1)        /* E(., c1 - 1): the right column's E */
            for (size_t i = 0; i < rows; i++)
                w->ecol[r0 + i] = ((wt_elem *)ev)[(i % seg) * WT_L + i / seg];
        const int32_t htop = w->hrow[j], ftop = w->frow[j];
        const __m256i *vp = prof + (size_t)w->t[j] * seg;
        __m256i vf = _mm256_or_si256(_mm256_andnot_si256(lane0, vneg),
            WT_FILL(WT_NARROW(max32(ftop - ext, htop - open))));
        __m256i vh = WT_SHIFT1(hstore[seg - 1], WT_FILL(WT_NARROW(prev_top)));
        prev_top = htop;
        __m256i *sw = hload;
        hload = hstore;
        hstore = sw;
        __m256i vmax = zero;
        for (size_t k = 0; k < seg; k++) {
            vh = WT_ADD(vh, vp[k]);
            __m256i ve = ev[k];
            fv[k] = vf;
            vh = WT_MAX(vh, zero);
            vh = WT_MAX(vh, ve);
            vh = WT_MAX(vh, vf);
            hstore[k] = vh;
            vmax = WT_MAX(vmax, vh);
            vh = WT_SUB(vh, vopen);
            ev[k] = WT_MAX(WT_SUB(ve, vext), vh);
            vf = WT_MAX(WT_SUB(vf, vext), vh);
            vh = hload[k];
        }
        /* Lazy F, as in sw_striped_impl.h, F kept in fv too. */
        vf = WT_SHIFT1(vf, fill_neg);
        for (int round = 0; round < WT_L; round++) {
            for (size_t k = 0; k < seg; k++) {
                fv[k] = WT_MAX(fv[k], vf);
                vh = WT_MAX(hstore[k], vf);
                hstore[k] = vh;
                vh = WT_SUB(vh, vopen);
                if (update_e)
                    ev[k] = WT_MAX(ev[k], vh);
                vf = WT_SUB(vf, vext);
                __m256i go = strict_stop
                    ? WT_GT(vf, WT_MAX(vh, zero))
                    : _mm256_andnot_si256(WT_GT(vh, vf), WT_GT(vf, zero));
                if (!_mm256_movemask_epi8(go))
                    goto lazy_done;
            }
            vf = WT_SHIFT1(vf, fill_neg);
        }
lazy_done:
        w->hrow[j] = ((const wt_elem *)hstore)[kb * WT_L + lb];
        w->frow[j] = ((const wt_elem *)fv)[kb * WT_L + lb];
        if (!_mm256_movemask_epi8(WT_GT(vmax, vthr)))
            continue;
        /* The column's maximum and its smallest row (the tie rule): it
         * lies in the lowest lane whose maximum is cmax; a tie matters
         * only above the best row so far. */
        wt_elem tmp[WT_L] __attribute__((aligned(32)));
        _mm256_store_si256((__m256i *)tmp, vmax);
        int32_t cmax = tmp[0];
        for (int l = 1; l < WT_L; l++)
            cmax = max32(cmax, tmp[l]);
        unsigned mask = (unsigned)_mm256_movemask_epi8(WT_EQ(vmax, WT_SET1(cmax)));
        size_t lane = (size_t)__builtin_ctz(mask) / sizeof(wt_elem), limit = seg;
        if (cmax == bestv) {
            if (lane > bi / seg)
                continue;
            if (lane == bi / seg)
                limit = bi % seg;
        }
        const wt_elem *col = (const wt_elem *)hstore;
        size_t i = SIZE_MAX;
        for (size_t k = 0; k < limit && i == SIZE_MAX; k++)
            if (col[k * WT_L + lane] == cmax)
                i = lane * seg + k;
        if (i >= rows && cmax > bestv)      /* a padding row: search all */
            for (size_t r = 0; r < rows && i >= rows; r++)
                if (col[(r % seg) * WT_L + r / seg] == cmax)
                    i = r;
        if (i < rows && (cmax > bestv || i < bi)) {
            bestv = cmax;
            bi = i;
            best->score = cmax;
            best->i = r0 + i;
            best->j = j;
            vthr = WT_SET1(bestv - 1);
        }
    }
    const wt_elem *hlast = (const wt_elem *)hstore;
    for (size_t i = 0; i < rows; i++)
        w->hcol[r0 + i] = hlast[(i % seg) * WT_L + i / seg];
    free(prof);
#if WT_BITS == 16
    /* A score within the largest entry of 2^15 may have saturated. */
    return bestv >= INT16_MAX - (s->max_score > 0 ? s->max_score : 0);
#else
    return 0;
#endif
}

#undef wt_elem
#undef WT_NEG
#undef WT_ADD
#undef WT_SUB
#undef WT_MAX
#undef WT_GT
#undef WT_EQ
#undef WT_SET1
#undef WT_LOW
#undef WT_L
#undef WT_FILL
#undef WT_SHIFT1
#undef WT_TILE
#undef WT_NARROW
