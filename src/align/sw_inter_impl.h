/*
 * sw_inter_impl.h - the inter-sequence kernel (sw_inter.h), written once
 * and instantiated by sw_inter_avx2.c and sw_inter_avx512.c: define
 * SWI_BITS (8 or 16), SWI_W (256 or 512: AVX2, AVX-512BW) and SWI_FN (the
 * functions' target attribute) before including; it defines
 * hay_sw_inter_pass<bits>_<isa> (sw_inter.h).
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
#if SWI_W == 256
#define swi_v __m256i
#define SWI_ZERO() _mm256_setzero_si256()
#if SWI_BITS == 8
#define SWI_ADDS(a, b) _mm256_adds_epu8(a, b)
#define SWI_SUBS(a, b) _mm256_subs_epu8(a, b)
#define SWI_MAX(a, b) _mm256_max_epu8(a, b)
#define SWI_SET1(v) _mm256_set1_epi8((char)(uint8_t)(v))
#else
#define SWI_ADDS(a, b) _mm256_adds_epu16(a, b)
#define SWI_SUBS(a, b) _mm256_subs_epu16(a, b)
#define SWI_MAX(a, b) _mm256_max_epu16(a, b)
#define SWI_SET1(v) _mm256_set1_epi16((short)(uint16_t)(v))
#endif
#define SWI_ISA avx2
#else
#define swi_v __m512i
#define SWI_ZERO() _mm512_setzero_si512()
#if SWI_BITS == 8
#define SWI_ADDS(a, b) _mm512_adds_epu8(a, b)
#define SWI_SUBS(a, b) _mm512_subs_epu8(a, b)
#define SWI_MAX(a, b) _mm512_max_epu8(a, b)
#define SWI_SET1(v) _mm512_set1_epi8((char)(uint8_t)(v))
#else
#define SWI_ADDS(a, b) _mm512_adds_epu16(a, b)
#define SWI_SUBS(a, b) _mm512_subs_epu16(a, b)
#define SWI_MAX(a, b) _mm512_max_epu16(a, b)
#define SWI_SET1(v) _mm512_set1_epi16((short)(uint16_t)(v))
#endif
#define SWI_ISA avx512
#endif
#define SWI_LANES (SWI_W / SWI_BITS)
#define SWI_CAT2(a, b) a##b
#define SWI_CAT(a, b) SWI_CAT2(a, b)
#define SWI_F(name) SWI_CAT(SWI_CAT(SWI_CAT(name, SWI_BITS), _), SWI_ISA)

/*
 * The byte lookups: a column's SWI_LANES codes at c, one table row (32
 * bytes: lo, hi halves broadcast to every 128-bit lane) per query code.
 * 8 bits: the lookup is the vector; 16 bits: half as many codes, looked up
 * in a half-width vector and widened.
 */
#define SWI_ROW(p) _mm_loadu_si128((const __m128i *)(p))
#if SWI_BITS == 8 && SWI_W == 256
#define swi_t __m256i
#define SWI_TABLE(p) _mm256_broadcastsi128_si256(SWI_ROW(p))
#elif SWI_BITS == 16 && SWI_W == 256
#define swi_t __m128i
#define SWI_TABLE(p) SWI_ROW(p)
#elif SWI_BITS == 8
#define swi_t __m512i
#define SWI_TABLE(p) _mm512_broadcast_i32x4(SWI_ROW(p))
#else
#define swi_t __m256i
#define SWI_TABLE(p) _mm256_broadcastsi128_si256(SWI_ROW(p))
#endif

static SWI_FN void SWI_F(column_profile)(const sw_inter *x, const swi_t *lo,
                                  const swi_t *hi, const uint8_t *c,
                                  swi_v *prof)
{
#if SWI_BITS == 8 && SWI_W == 256
    __m256i tc = _mm256_loadu_si256((const __m256i *)c);
    __m256i sel = _mm256_slli_epi16(tc, 3);    /* bit 4 -> the byte's sign */
    for (int a = 0; a < x->alpha; a++) {
        __m256i v = _mm256_shuffle_epi8(lo[a], tc);
        if (x->alpha > 16)
            v = _mm256_blendv_epi8(v, _mm256_shuffle_epi8(hi[a], tc), sel);
        prof[a] = v;
    }
#elif SWI_BITS == 16 && SWI_W == 256
    __m128i tc = _mm_loadu_si128((const __m128i *)c);
    __m128i sel = _mm_slli_epi16(tc, 3);
    for (int a = 0; a < x->alpha; a++) {
        __m128i v = _mm_shuffle_epi8(lo[a], tc);
        if (x->alpha > 16)
            v = _mm_blendv_epi8(v, _mm_shuffle_epi8(hi[a], tc), sel);
        prof[a] = _mm256_cvtepu8_epi16(v);
    }
#elif SWI_BITS == 8
    __m512i tc = _mm512_loadu_si512((const void *)c);
    __mmask64 sel = _mm512_movepi8_mask(_mm512_slli_epi16(tc, 3));
    for (int a = 0; a < x->alpha; a++) {
        __m512i v = _mm512_shuffle_epi8(lo[a], tc);
        if (x->alpha > 16)
            v = _mm512_mask_blend_epi8(sel, v, _mm512_shuffle_epi8(hi[a], tc));
        prof[a] = v;
    }
#else
    __m256i tc = _mm256_loadu_si256((const __m256i *)c);
    __m256i sel = _mm256_slli_epi16(tc, 3);
    for (int a = 0; a < x->alpha; a++) {
        __m256i v = _mm256_shuffle_epi8(lo[a], tc);
        if (x->alpha > 16)
            v = _mm256_blendv_epi8(v, _mm256_shuffle_epi8(hi[a], tc), sel);
        prof[a] = _mm512_cvtepu8_epi16(v);
    }
#endif
}

SWI_FN hay_status SWI_F(hay_sw_inter_pass)(const sw_inter *x,
                                           const uint8_t *q, size_t m,
                                           const uint8_t *const *t,
                                           const size_t *n, size_t count,
                                           int32_t *scores, void *mem)
{
    size_t len = 0;
    for (size_t k = 0; k < count; k++)
        if (n[k] > len)
            len = n[k];
    len += len & 1;
    swi_v *hv = mem, *ev = hv + m;
    uint8_t *codes = (uint8_t *)(ev + m);
    memset(codes, HAY_SW_INTER_PAD, len * SWI_LANES + 64);
    for (size_t k = 0; k < count; k++)
        for (size_t j = 0; j < n[k]; j++)
            codes[j * SWI_LANES + k] = t[k][j];
    swi_t lo[HAY_ALIGN_MAX_ALPHA], hi[HAY_ALIGN_MAX_ALPHA];
    swi_v prof0[HAY_ALIGN_MAX_ALPHA], prof1[HAY_ALIGN_MAX_ALPHA];
    for (int a = 0; a < x->alpha; a++) {
        lo[a] = SWI_TABLE(x->table[a]);
        hi[a] = SWI_TABLE(x->table[a] + 16);
    }
    const swi_v vzero = SWI_ZERO();
    const swi_v vbias = SWI_SET1(x->bias);
#if SWI_BITS == 8
    const swi_v vopen = SWI_SET1(x->open8), vext = SWI_SET1(x->ext8);
#else
    const swi_v vopen = SWI_SET1(x->open16), vext = SWI_SET1(x->ext16);
#endif
    /* E floors at 0 like everything here: a gap below 0 never makes H. */
    for (size_t i = 0; i < m; i++) {
        hv[i] = vzero;
        ev[i] = vzero;
    }
    swi_v vmax = vzero;
    /* Two columns a pass down the query: H and E of the pair's first
     * column stay in registers for its second (half the loads and stores
     * of hv and ev).  An odd last column has a padding one beside it. */
    for (size_t j = 0; j < len; j += 2) {
        SWI_F(column_profile)(x, lo, hi, codes + j * SWI_LANES, prof0);
        SWI_F(column_profile)(x, lo, hi, codes + (j + 1) * SWI_LANES, prof1);
        /* up0, up1: H(i - 1, j), H(i - 1, j + 1); diag: H(i - 1, j - 1) */
        swi_v f0 = vzero, f1 = vzero, up0 = vzero, up1 = vzero;
        swi_v diag = vzero;
        for (size_t i = 0; i < m; i++) {
            swi_v left = hv[i];
            swi_v e = SWI_MAX(SWI_SUBS(ev[i], vext), SWI_SUBS(left, vopen));
            f0 = SWI_MAX(SWI_SUBS(f0, vext), SWI_SUBS(up0, vopen));
            swi_v h0 = SWI_SUBS(SWI_ADDS(diag, prof0[q[i]]), vbias);
            h0 = SWI_MAX(SWI_MAX(h0, e), f0);
            e = SWI_MAX(SWI_SUBS(e, vext), SWI_SUBS(h0, vopen));
            f1 = SWI_MAX(SWI_SUBS(f1, vext), SWI_SUBS(up1, vopen));
            swi_v h1 = SWI_SUBS(SWI_ADDS(up0, prof1[q[i]]), vbias);
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
    uint8_t best[SWI_LANES] __attribute__((aligned(64)));
    const int32_t limit = x->limit8;
#else
    uint16_t best[SWI_LANES] __attribute__((aligned(64)));
    const int32_t limit = x->limit16;
#endif
    memcpy(best, &vmax, sizeof vmax);
    for (size_t k = 0; k < count; k++)
        scores[k] = best[k] >= limit ? HAY_SW_INTER_SATURATED : best[k];
    return HAY_OK;
}

#undef SWI_ZERO
#undef SWI_ADDS
#undef SWI_SUBS
#undef SWI_MAX
#undef SWI_SET1
#undef SWI_ISA
#undef SWI_LANES
#undef SWI_CAT2
#undef SWI_CAT
#undef SWI_F
#undef SWI_ROW
#undef SWI_TABLE
#undef swi_t
#undef swi_v
