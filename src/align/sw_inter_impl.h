/*
 * sw_inter_impl.h - the inter-sequence kernel (sw_inter.h), written once
 * and instantiated for 8- and 16-bit lanes by sw_inter_avx2.c: define
 * SWI_BITS (8 or 16) before including.
 *
 * Layout: lane k holds target k.  The outer loop walks the target columns
 * (0 .. the batch's longest - 1) two at a time, the inner loop the query
 * rows i, as SWIPE does; hv[i] and ev[i] carry H and E of row i from one
 * pair of columns to the next, F and H(i - 1, .) go down the columns in
 * registers.  (Two columns a pass were 1.6x faster than one on the E. coli
 * search, four no faster than two: docs/notes/2026-11-26-sw-inter.md.)
 * Per column, prof[a] is the vector of matrix[a][t_k[j]] + bias over the
 * lanes, looked up for every query code a from the 32-byte rows of
 * x->table with byte shuffles (codes 0..15 from one half, 16..31 from the
 * other; the padding code 0x80 gives 0 from both).  A lane past its
 * target's end so scores -bias <= 0 at every row: nothing there can rise
 * above the cells before it, so the lane's maximum is its target's score.
 */
#if SWI_BITS == 8
#define SWI_LANES HAY_SW_INTER_LANES8
#define SWI_ADDS(a, b) _mm256_adds_epu8(a, b)
#define SWI_SUBS(a, b) _mm256_subs_epu8(a, b)
#define SWI_MAX(a, b) _mm256_max_epu8(a, b)
#define SWI_SET1(v) _mm256_set1_epi8((char)(uint8_t)(v))
#else
#define SWI_LANES HAY_SW_INTER_LANES16
#define SWI_ADDS(a, b) _mm256_adds_epu16(a, b)
#define SWI_SUBS(a, b) _mm256_subs_epu16(a, b)
#define SWI_MAX(a, b) _mm256_max_epu16(a, b)
#define SWI_SET1(v) _mm256_set1_epi16((short)(uint16_t)(v))
#endif
#define SWI_CAT2(a, b) a##b
#define SWI_CAT(a, b) SWI_CAT2(a, b)
#define SWI_F(name) SWI_CAT(name, SWI_BITS)

/* prof[a] for the column whose lane codes are at c (SWI_LANES bytes). */
SWI_FN void SWI_F(column_profile)(const sw_inter *x, const __m256i *lo,
                                  const __m256i *hi, const uint8_t *c,
                                  __m256i *prof)
{
#if SWI_BITS == 8
    __m256i tc = _mm256_loadu_si256((const __m256i *)c);
    __m256i sel = _mm256_slli_epi16(tc, 3);    /* bit 4 -> the byte's sign */
    for (int a = 0; a < x->alpha; a++) {
        __m256i v = _mm256_shuffle_epi8(lo[a], tc);
        if (x->alpha > 16)
            v = _mm256_blendv_epi8(v, _mm256_shuffle_epi8(hi[a], tc), sel);
        prof[a] = v;
    }
#else
    __m128i tc = _mm_loadu_si128((const __m128i *)c);
    __m128i sel = _mm_slli_epi16(tc, 3);
    for (int a = 0; a < x->alpha; a++) {
        __m128i v = _mm_shuffle_epi8(_mm256_castsi256_si128(lo[a]), tc);
        if (x->alpha > 16)
            v = _mm_blendv_epi8(v, _mm_shuffle_epi8(
                                       _mm256_castsi256_si128(hi[a]), tc), sel);
        prof[a] = _mm256_cvtepu8_epi16(v);
    }
#endif
}

SWI_FN hay_status SWI_F(inter_pass)(const sw_inter *x, const uint8_t *q,
                                    size_t m, const uint8_t *const *t,
                                    const size_t *n, size_t count,
                                    int32_t *scores)
{
    size_t len = 0;
    for (size_t k = 0; k < count; k++)
        if (n[k] > len)
            len = n[k];
    if (m > SIZE_MAX / 64 || len > SIZE_MAX / SWI_LANES - 1)
        return HAY_ERR_INVALID;
    len += len & 1;
    uint8_t *codes = malloc(len * SWI_LANES + 32);
    __m256i *hv = aligned_alloc(32, m * 32), *ev = aligned_alloc(32, m * 32);
    if (!codes || !hv || !ev) {
        free(codes);
        free(hv);
        free(ev);
        return HAY_ERR_NOMEM;
    }
    memset(codes, SWI_PAD_CODE, len * SWI_LANES + 32);
    for (size_t k = 0; k < count; k++)
        for (size_t j = 0; j < n[k]; j++)
            codes[j * SWI_LANES + k] = t[k][j];
    __m256i lo[HAY_ALIGN_MAX_ALPHA], hi[HAY_ALIGN_MAX_ALPHA];
    __m256i prof0[HAY_ALIGN_MAX_ALPHA], prof1[HAY_ALIGN_MAX_ALPHA];
    for (int a = 0; a < x->alpha; a++) {
        lo[a] = _mm256_broadcastsi128_si256(
            _mm_loadu_si128((const __m128i *)x->table[a]));
        hi[a] = _mm256_broadcastsi128_si256(
            _mm_loadu_si128((const __m128i *)(x->table[a] + 16)));
    }
    const __m256i vzero = _mm256_setzero_si256();
    const __m256i vbias = SWI_SET1(x->bias);
#if SWI_BITS == 8
    const __m256i vopen = SWI_SET1(x->open8), vext = SWI_SET1(x->ext8);
#else
    const __m256i vopen = SWI_SET1(x->open16), vext = SWI_SET1(x->ext16);
#endif
    /* E floors at 0 like everything here: a gap below 0 never makes H. */
    for (size_t i = 0; i < m; i++) {
        hv[i] = vzero;
        ev[i] = vzero;
    }
    __m256i vmax = vzero;
    /* Two columns a pass down the query: H and E of the pair's first
     * column stay in registers for its second (half the loads and stores
     * of hv and ev).  An odd last column has a padding one beside it. */
    for (size_t j = 0; j < len; j += 2) {
        SWI_F(column_profile)(x, lo, hi, codes + j * SWI_LANES, prof0);
        SWI_F(column_profile)(x, lo, hi, codes + (j + 1) * SWI_LANES, prof1);
        /* up0, up1: H(i - 1, j), H(i - 1, j + 1); diag: H(i - 1, j - 1) */
        __m256i f0 = vzero, f1 = vzero, up0 = vzero, up1 = vzero;
        __m256i diag = vzero;
        for (size_t i = 0; i < m; i++) {
            __m256i left = hv[i];
            __m256i e = SWI_MAX(SWI_SUBS(ev[i], vext), SWI_SUBS(left, vopen));
            f0 = SWI_MAX(SWI_SUBS(f0, vext), SWI_SUBS(up0, vopen));
            __m256i h0 = SWI_SUBS(SWI_ADDS(diag, prof0[q[i]]), vbias);
            h0 = SWI_MAX(SWI_MAX(h0, e), f0);
            e = SWI_MAX(SWI_SUBS(e, vext), SWI_SUBS(h0, vopen));
            f1 = SWI_MAX(SWI_SUBS(f1, vext), SWI_SUBS(up1, vopen));
            __m256i h1 = SWI_SUBS(SWI_ADDS(up0, prof1[q[i]]), vbias);
            h1 = SWI_MAX(SWI_MAX(h1, e), f1);
            vmax = SWI_MAX(vmax, SWI_MAX(h0, h1));
            hv[i] = h1;
            ev[i] = e;
            diag = left;
            up0 = h0;
            up1 = h1;
        }
    }
#if SWI_BITS == 8
    uint8_t best[SWI_LANES] __attribute__((aligned(32)));
    const int32_t limit = x->limit8;
#else
    uint16_t best[SWI_LANES] __attribute__((aligned(32)));
    const int32_t limit = x->limit16;
#endif
    _mm256_store_si256((__m256i *)best, vmax);
    for (size_t k = 0; k < count; k++)
        scores[k] = best[k] >= limit ? HAY_SW_INTER_SATURATED : best[k];
    free(codes);
    free(hv);
    free(ev);
    return HAY_OK;
}

#undef SWI_LANES
#undef SWI_ADDS
#undef SWI_SUBS
#undef SWI_MAX
#undef SWI_SET1
#undef SWI_CAT2
#undef SWI_CAT
#undef SWI_F
