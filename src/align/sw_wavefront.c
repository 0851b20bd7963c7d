/*
 * sw_wavefront.c - one long pair's score pass on many cores: the matrix in
 * tiles, a wavefront of tiles on OpenMP threads, each tile in strips of 8
 * rows computed along anti-diagonals in AVX2 vectors (32-bit lanes).  The
 * scheme of the CUDA paper in ../shared/papers (cuda-smith-waterman-
 * wavefront): blocks along anti-diagonals, parallel inside.
 *
 * Tiles.  Rows (query) in blocks of `tile` rows, columns (target) in blocks
 * of `tile` columns.  Tile (bi, bj) needs, as inputs, the bottom row of
 * (bi - 1, bj) (H and F for each of its columns), the right column of
 * (bi, bj - 1) (H and E for each of its rows) and one corner H, and it
 * leaves the same for the tiles below and to the right.  They live in four
 * arrays that every tile updates in place: hrow/frow (one entry a target
 * column: the bottom row of the last tile done in that column block),
 * hcol/ecol (one a query row: the right column of the last tile in that row
 * block); corner[bi] carries H(r0 - 1, c0 - 1) from a tile to the next one
 * in its row block (each tile saves hrow[c1 - 1] before its first strip
 * overwrites it).  The tiles of a column block run in order of bi and those
 * of a row block in order of bj, so no entry is written while another tile
 * reads it.  The schedule: OpenMP tasks, made in anti-diagonal order, each
 * depending on its upper and left neighbour.
 *
 * Strips.  Eight rows r .. r + 7 at once, lane l holding row r + 7 - l:
 * at step j lane l computes column j - 7 + l, so the row above (lane l + 1)
 * computed the same column one step before and the cell up-left two steps
 * before.  Up values come in by a lane permutation, the top lane from the
 * row above the strip; the bottom lane's H and F go out to hrow/frow and
 * become the next strip's top.  Lanes outside [c0, c1) at the ramps keep
 * their state (the left column before they start, the right column after).
 * Scores: one gather from a strip profile of 8 x alpha entries; the target
 * codes t[j - 7 .. j] come in as 8 bytes (the target is copied with 8
 * bytes of padding either side).  Rows left over (fewer than 8) and CPUs
 * without AVX2 take a scalar row loop with the same inputs and outputs.
 *
 * Best cell: the first one in row-major order (sw_device.h's tie rule):
 * per row the first column reaching the row's maximum (a strictly greater
 * value replaces), per tile the first row, and across tiles the smallest
 * (row, column) among the tiles holding the largest score.
 *
 * Values are exact 32-bit integers (align.c keeps scores below 2^30);
 * minus infinity is -2^29 and no value goes far below -open.
 */
#include "align_internal.h"
#include "../core/params.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#define NEG (-(1 << 29))
#define LANES 8

static const hay_param wavefront_keys[] = {
    HAY_PARAM_SZ(hay_sw_wavefront_params, min_cells, "wavefront_cells", 1,
                 UINT64_MAX, "256M",
                 "one pair of at least this many cells (query x target) runs "
                 "on all the threads, in tiles along anti-diagonals"),
    HAY_PARAM_U(hay_sw_wavefront_params, tile, "wavefront_tile", 8,
                (uint64_t)1 << 20, 8, NULL,
                "tile side in cells, a multiple of 8 (default: from the "
                "pair's size and the threads, 256 to 4096)"),
};
const hay_param_table hay_sw_wavefront_param_table =
    HAY_PARAM_TABLE("cpu align", hay_sw_wavefront_params, wavefront_keys);

hay_status hay_sw_wavefront_params_get(const char *text,
                                       hay_sw_wavefront_params *out)
{
    const hay_param_table *t = &hay_sw_wavefront_param_table;
    void *v = out;
    return hay_params_parse(text, &t, 1, &v, false, NULL);
}

typedef struct cell {
    int32_t score;
    uint64_t i, j;
} cell;

/* a before b in the result: a larger score, then the smaller row, then the
 * smaller column. */
static int better(const cell *a, const cell *b)
{
    if (a->score != b->score)
        return a->score > b->score;
    if (a->i != b->i)
        return a->i < b->i;
    return a->j < b->j;
}

typedef struct wave {
    const hay_align_scoring *s;
    const uint8_t *q, *t;       /* t: padded, t[-8 .. n + 8) readable */
    size_t m, n, tile, nbi, nbj;
    int32_t *hrow, *frow, *hcol, *ecol, *corner;
    int simd;
} wave;

static inline int32_t max32(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

/* Row i over columns [c0, c1); diag is H(i - 1, c0 - 1). */
static void row_scalar(const wave *w, size_t i, size_t c0, size_t c1,
                       int32_t diag, cell *best)
{
    const int32_t *row = w->s->matrix + w->q[i] * w->s->alpha;
    const int32_t open = w->s->open, ext = w->s->extend;
    int32_t *hrow = w->hrow, *frow = w->frow;
    int32_t left = w->hcol[i], e = w->ecol[i], rowbest = 0;
    size_t rowj = 0;
    for (size_t j = c0; j < c1; j++) {
        int32_t up = hrow[j];
        int32_t f = max32(frow[j] - ext, up - open);
        e = max32(e - ext, left - open);
        int32_t h = max32(max32(diag + row[w->t[j]], 0), max32(e, f));
        diag = up;
        hrow[j] = h;
        frow[j] = f;
        left = h;
        if (h > rowbest) {
            rowbest = h;
            rowj = j;
        }
    }
    w->hcol[i] = left;
    w->ecol[i] = e;
    if (rowbest > best->score) {
        best->score = rowbest;
        best->i = i;
        best->j = rowj;
    }
}

#define AVX2 __attribute__((target("avx2")))

/* One step of a strip at step j (see the top of the file); masked: lanes
 * outside the tile's columns keep their state. */
#define STRIP_STEP(MASKED)                                                    \
    do {                                                                      \
        int32_t th = NEG, tf = NEG;                                           \
        if (!(MASKED) || j < c1) {                                            \
            th = hrow[j];                                                     \
            tf = frow[j];                                                     \
        }                                                                     \
        __m256i up = _mm256_blend_epi32(                                      \
            _mm256_permutevar8x32_epi32(h, down), _mm256_set1_epi32(th), 0x80); \
        __m256i fu = _mm256_blend_epi32(                                      \
            _mm256_permutevar8x32_epi32(f, down), _mm256_set1_epi32(tf), 0x80); \
        __m256i tv = _mm256_cvtepu8_epi32(                                    \
            _mm_loadl_epi64((const __m128i *)(w->t + j - 7)));                \
        __m256i sc = _mm256_i32gather_epi32(                                  \
            prof, _mm256_add_epi32(_mm256_slli_epi32(tv, 3), iota), 4);       \
        __m256i fn = _mm256_max_epi32(_mm256_sub_epi32(fu, vext),             \
                                      _mm256_sub_epi32(up, vopen));           \
        __m256i en = _mm256_max_epi32(_mm256_sub_epi32(e, vext),              \
                                      _mm256_sub_epi32(h, vopen));            \
        __m256i hn = _mm256_max_epi32(                                        \
            _mm256_max_epi32(_mm256_add_epi32(diag, sc), zero),               \
            _mm256_max_epi32(en, fn));                                        \
        diag = up;                                                            \
        __m256i upd = _mm256_cmpgt_epi32(hn, bh);                             \
        if (MASKED) {                                                         \
            __m256i rel = _mm256_add_epi32(                                   \
                _mm256_set1_epi32((int32_t)(j - c0) - 7), iota);              \
            __m256i act = _mm256_and_si256(                                   \
                _mm256_cmpgt_epi32(rel, _mm256_set1_epi32(-1)),               \
                _mm256_cmpgt_epi32(width, rel));                              \
            hn = _mm256_blendv_epi8(h, hn, act);                              \
            en = _mm256_blendv_epi8(e, en, act);                              \
            upd = _mm256_and_si256(upd, act);                                 \
        }                                                                     \
        bh = _mm256_blendv_epi8(bh, hn, upd);                                 \
        bj = _mm256_blendv_epi8(bj, _mm256_set1_epi32((int32_t)(j - c0)), upd); \
        h = hn;                                                               \
        e = en;                                                               \
        f = fn;                                                               \
        if (!(MASKED) || j >= c0 + 7) {                                       \
            hrow[j - 7] = _mm256_cvtsi256_si32(hn);                           \
            frow[j - 7] = _mm256_cvtsi256_si32(fn);                           \
        }                                                                     \
    } while (0)

/* Rows r .. r + 7 over columns [c0, c1); diag is H(r - 1, c0 - 1). */
AVX2 static void strip_avx2(const wave *w, size_t r, size_t c0, size_t c1,
                            int32_t corner, cell *best)
{
    const hay_align_scoring *s = w->s;
    int32_t prof[HAY_ALIGN_MAX_ALPHA * LANES] __attribute__((aligned(32)));
    for (int c = 0; c < s->alpha; c++)
        for (int l = 0; l < LANES; l++)
            prof[c * LANES + l] = s->matrix[w->q[r + 7 - l] * s->alpha + c];
    int32_t *hrow = w->hrow, *frow = w->frow;
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    const __m256i down = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i vopen = _mm256_set1_epi32(s->open);
    const __m256i vext = _mm256_set1_epi32(s->extend);
    const __m256i width = _mm256_set1_epi32((int32_t)(c1 - c0));
    __m256i h = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256((const __m256i *)(w->hcol + r)), rev);
    __m256i e = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256((const __m256i *)(w->ecol + r)), rev);
    __m256i f = _mm256_set1_epi32(NEG);
    __m256i diag = _mm256_blend_epi32(zero, _mm256_set1_epi32(corner), 0x80);
    __m256i bh = zero, bj = zero;
    size_t j = c0;
    size_t ramp = c0 + 7 < c1 ? c0 + 7 : c1;
    for (; j < ramp; j++)
        STRIP_STEP(1);
    for (; j < c1; j++)
        STRIP_STEP(0);
    for (; j < c1 + 7; j++)
        STRIP_STEP(1);
    _mm256_storeu_si256((__m256i *)(w->hcol + r),
                        _mm256_permutevar8x32_epi32(h, rev));
    _mm256_storeu_si256((__m256i *)(w->ecol + r),
                        _mm256_permutevar8x32_epi32(e, rev));
    int32_t vb[LANES] __attribute__((aligned(32)));
    int32_t vj[LANES] __attribute__((aligned(32)));
    _mm256_store_si256((__m256i *)vb, bh);
    _mm256_store_si256((__m256i *)vj, bj);
    for (int l = LANES - 1; l >= 0; l--)
        if (vb[l] > best->score) {
            best->score = vb[l];
            best->i = r + 7 - (size_t)l;
            best->j = c0 + (size_t)vj[l] - 7 + (size_t)l;
        }
}

static void tile_run(const wave *w, size_t bi, size_t bj, cell *best)
{
    size_t r0 = bi * w->tile, r1 = r0 + w->tile < w->m ? r0 + w->tile : w->m;
    size_t c0 = bj * w->tile, c1 = c0 + w->tile < w->n ? c0 + w->tile : w->n;
    int32_t corner = w->corner[bi];
    w->corner[bi] = w->hrow[c1 - 1];
    cell b = { 0, 0, 0 };
    size_t r = r0;
    if (w->simd)
        for (; r + LANES <= r1; r += LANES) {
            int32_t next = w->hcol[r + LANES - 1];
            strip_avx2(w, r, c0, c1, corner, &b);
            corner = next;
        }
    for (; r < r1; r++) {
        int32_t next = w->hcol[r];
        row_scalar(w, r, c0, c1, corner, &b);
        corner = next;
    }
    if (b.score > 0 && better(&b, best))
        *best = b;
}

static size_t auto_tile(size_t m, size_t n, int threads)
{
    size_t side = (m < n ? m : n) / (4 * (size_t)threads);
    side = side < 256 ? 256 : side > 4096 ? 4096 : side;
    return side / LANES * LANES;
}

int hay_sw_wavefront_simd(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

hay_status hay_sw_wavefront_score(const hay_align_scoring *s, const uint8_t *q,
                                  size_t m, const uint8_t *t, size_t n,
                                  int threads, size_t tile, int simd,
                                  sw_end *e)
{
    memset(e, 0, sizeof *e);
    if (m == 0 || n == 0)
        return HAY_OK;
    if (threads < 1)
        threads = 1;
    if (tile == 0)
        tile = auto_tile(m, n, threads);
    wave w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.q = q;
    w.m = m;
    w.n = n;
    w.tile = tile;
    w.nbi = (m + tile - 1) / tile;
    w.nbj = (n + tile - 1) / tile;
    w.simd = simd && hay_sw_wavefront_simd();
    uint8_t *tpad = malloc(n + 2 * LANES);
    w.hrow = malloc(n * sizeof *w.hrow);
    w.frow = malloc(n * sizeof *w.frow);
    /* hcol/ecol: 8 more entries, so that an 8-row load never passes them */
    w.hcol = malloc((m + LANES) * sizeof *w.hcol);
    w.ecol = malloc((m + LANES) * sizeof *w.ecol);
    w.corner = calloc(w.nbi, sizeof *w.corner);
    cell *best = calloc((size_t)threads, sizeof *best);
    char *dep = calloc((w.nbi + 1) * (w.nbj + 1), 1);
    hay_status st = HAY_ERR_NOMEM;
    if (!tpad || !w.hrow || !w.frow || !w.hcol || !w.ecol || !w.corner ||
        !best || !dep)
        goto out;
    memset(tpad, 0, LANES);
    memcpy(tpad + LANES, t, n);
    memset(tpad + LANES + n, 0, LANES);
    w.t = tpad + LANES;
    for (size_t j = 0; j < n; j++) {
        w.hrow[j] = 0;
        w.frow[j] = NEG;
    }
    for (size_t i = 0; i < m + LANES; i++) {
        w.hcol[i] = 0;
        w.ecol[i] = NEG;
    }
    if (threads == 1 || w.nbi * w.nbj == 1) {
        for (size_t bi = 0; bi < w.nbi; bi++)
            for (size_t bj = 0; bj < w.nbj; bj++)
                tile_run(&w, bi, bj, &best[0]);
    } else {
        const wave *wp = &w;
        const size_t nbi = w.nbi, nbj = w.nbj, stride = nbj + 1;
#pragma omp parallel num_threads(threads)
#pragma omp single
        for (size_t d = 0; d < nbi + nbj - 1; d++) {
            size_t lo = d < nbj ? 0 : d - nbj + 1;
            size_t hi = d < nbi ? d : nbi - 1;
            for (size_t bi = lo; bi <= hi; bi++) {
                size_t bj = d - bi;
                char *out = &dep[(bi + 1) * stride + bj + 1];
                char *up = &dep[bi * stride + bj + 1];
                char *left = &dep[(bi + 1) * stride + bj];
#pragma omp task firstprivate(bi, bj) depend(in: *up, *left) depend(out: *out)
                tile_run(wp, bi, bj, &best[omp_get_thread_num()]);
            }
        }
    }
    cell b = { 0, 0, 0 };
    for (int k = 0; k < threads; k++)
        if (best[k].score > 0 && better(&best[k], &b))
            b = best[k];
    e->score = b.score;
    e->q_end = b.i;
    e->t_end = b.j;
    st = HAY_OK;
out:
    free(tpad);
    free(w.hrow);
    free(w.frow);
    free(w.hcol);
    free(w.ecol);
    free(w.corner);
    free(best);
    free(dep);
    return st;
}
