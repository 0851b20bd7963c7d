/*
 * sw_wavefront.c - one long pair's score pass on many cores: the matrix in
 * tiles, a wavefront of tiles on OpenMP threads, each tile a striped SIMD
 * pass (Farrar's, as sw_striped_impl.h; AVX2, 32-bit lanes).  The scheme
 * of the CUDA paper in ../shared/papers (cuda-smith-waterman-wavefront):
 * blocks along anti-diagonals, parallel inside.
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
 * in its row block (each tile saves hrow[c1 - 1] before it overwrites it).
 * The tiles of a column block run in order of bi and those of a row block
 * in order of bj, so no entry is written while another tile reads it.  The
 * schedule: OpenMP tasks, made in anti-diagonal order, each depending on
 * its upper and left neighbours.  CPUs without AVX2 run the tiles row by
 * row in scalar code (the same inputs and outputs).
 *
 * Best cell: the first one in row-major order (sw_device.h's tie rule):
 * per tile as the striped engine finds it (smallest row, then smallest
 * column), across tiles the smallest (row, column) among the tiles holding
 * the largest score.
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
                (uint64_t)1 << 20, 0, NULL,
                "tile side in cells (default: from the pair's size and the "
                "threads, 256 to 4096)"),
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
    const uint8_t *q, *t;
    size_t m, n, tile, nbi, nbj;
    int32_t *hrow, *frow, *hcol, *ecol, *corner;
    int simd;
    char *failed;
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

/* Rows [r0, r1) over columns [c0, c1) as Farrar's striped pass
 * (sw_striped_impl.h) with the tile's inputs and outputs: vector k holds
 * rows k, seg + k, ..., 7 seg + k of the tile.  The pass also keeps F per
 * row (fv), for the bottom row's F that goes out.  Where the lazy F loop
 * stops early, an F it did not raise is at most 0: the values that stay
 * wrong there are all at most 0 and never reach an H (H is at least 0,
 * and F and E only fall along a gap), so every H is exact. */
AVX2 static hay_status tile_striped_avx2(const wave *w, size_t r0, size_t r1,
                                         size_t c0, size_t c1, int32_t corner,
                                         cell *best)
{
    const hay_align_scoring *s = w->s;
    const size_t rows = r1 - r0, seg = (rows + LANES - 1) / LANES;
    __m256i *prof = aligned_alloc(32, ((size_t)s->alpha + 4) * seg * 32);
    if (!prof)
        return HAY_ERR_NOMEM;
    __m256i *ha = prof + (size_t)s->alpha * seg, *hb = ha + seg;
    __m256i *ev = hb + seg, *fv = ev + seg;
    int32_t *pe = (int32_t *)prof;
    for (int c = 0; c < s->alpha; c++)
        for (size_t k = 0; k < seg; k++)
            for (int l = 0; l < LANES; l++) {
                size_t i = (size_t)l * seg + k;
                *pe++ = i < rows ? s->matrix[w->q[r0 + i] * s->alpha + c] : NEG;
            }
    const int32_t open = s->open, ext = s->extend;
    int32_t *h0 = (int32_t *)ha, *e0 = (int32_t *)ev;
    for (size_t k = 0; k < seg; k++)
        for (int l = 0; l < LANES; l++) {
            size_t i = (size_t)l * seg + k;
            int32_t hl = i < rows ? w->hcol[r0 + i] : 0;
            int32_t el = i < rows ? w->ecol[r0 + i] : NEG;
            h0[k * LANES + (size_t)l] = hl;
            e0[k * LANES + (size_t)l] = max32(el - ext, hl - open);
        }
    const __m256i zero = _mm256_setzero_si256(), vneg = _mm256_set1_epi32(NEG);
    const __m256i vopen = _mm256_set1_epi32(open), vext = _mm256_set1_epi32(ext);
    const __m256i up1 = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
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
                w->ecol[r0 + i] = ((int32_t *)ev)[(i % seg) * LANES + i / seg];
        const int32_t htop = w->hrow[j], ftop = w->frow[j];
        const __m256i *vp = prof + (size_t)w->t[j] * seg;
        __m256i vf = _mm256_blend_epi32(
            vneg, _mm256_set1_epi32(max32(ftop - ext, htop - open)), 1);
        __m256i vh = _mm256_blend_epi32(
            _mm256_permutevar8x32_epi32(hstore[seg - 1], up1),
            _mm256_set1_epi32(prev_top), 1);
        prev_top = htop;
        __m256i *sw = hload;
        hload = hstore;
        hstore = sw;
        __m256i vmax = zero;
        for (size_t k = 0; k < seg; k++) {
            vh = _mm256_add_epi32(vh, vp[k]);
            __m256i ve = ev[k];
            fv[k] = vf;
            vh = _mm256_max_epi32(vh, zero);
            vh = _mm256_max_epi32(vh, ve);
            vh = _mm256_max_epi32(vh, vf);
            hstore[k] = vh;
            vmax = _mm256_max_epi32(vmax, vh);
            vh = _mm256_sub_epi32(vh, vopen);
            ev[k] = _mm256_max_epi32(_mm256_sub_epi32(ve, vext), vh);
            vf = _mm256_max_epi32(_mm256_sub_epi32(vf, vext), vh);
            vh = hload[k];
        }
        /* Lazy F, as in sw_striped_impl.h, F kept in fv too. */
        vf = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(vf, up1), vneg, 1);
        for (int round = 0; round < LANES; round++) {
            for (size_t k = 0; k < seg; k++) {
                fv[k] = _mm256_max_epi32(fv[k], vf);
                vh = _mm256_max_epi32(hstore[k], vf);
                hstore[k] = vh;
                vh = _mm256_sub_epi32(vh, vopen);
                if (update_e)
                    ev[k] = _mm256_max_epi32(ev[k], vh);
                vf = _mm256_sub_epi32(vf, vext);
                __m256i go = strict_stop
                    ? _mm256_cmpgt_epi32(vf, _mm256_max_epi32(vh, zero))
                    : _mm256_andnot_si256(_mm256_cmpgt_epi32(vh, vf),
                                          _mm256_cmpgt_epi32(vf, zero));
                if (!_mm256_movemask_epi8(go))
                    goto lazy_done;
            }
            vf = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(vf, up1), vneg, 1);
        }
lazy_done:
        w->hrow[j] = ((const int32_t *)hstore)[kb * LANES + lb];
        w->frow[j] = ((const int32_t *)fv)[kb * LANES + lb];
        if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(vmax, vthr))) {
            /* The column's maximum and its smallest row (tie rule). */
            int32_t tmp[LANES] __attribute__((aligned(32)));
            _mm256_store_si256((__m256i *)tmp, vmax);
            int32_t cmax = tmp[0];
            for (int l = 1; l < LANES; l++)
                cmax = max32(cmax, tmp[l]);
            /* The smallest row holding cmax lies in the lowest lane whose
             * maximum is cmax; a tie matters only above the best row. */
            unsigned mask = (unsigned)_mm256_movemask_epi8(
                _mm256_cmpeq_epi32(vmax, _mm256_set1_epi32(cmax)));
            size_t lane = (size_t)__builtin_ctz(mask) / 4, limit = seg;
            if (cmax == bestv) {
                if (lane > bi / seg)
                    continue;
                if (lane == bi / seg)
                    limit = bi % seg;
            }
            const int32_t *col = (const int32_t *)hstore;
            size_t i = SIZE_MAX;
            for (size_t k = 0; k < limit; k++)
                if (col[k * LANES + lane] == cmax) {
                    i = lane * seg + k;
                    break;
                }
            if (i >= rows)
                i = SIZE_MAX;
            if (i != SIZE_MAX && (cmax > bestv || i < bi)) {
                bestv = cmax;
                bi = i;
                best->score = cmax;
                best->i = r0 + i;
                best->j = j;
                vthr = _mm256_set1_epi32(bestv - 1);
            }
        }
    }
    const int32_t *hlast = (const int32_t *)hstore;
    for (size_t i = 0; i < rows; i++)
        w->hcol[r0 + i] = hlast[(i % seg) * LANES + i / seg];
    free(prof);
    return HAY_OK;
}

static void tile_run(const wave *w, size_t bi, size_t bj, cell *best)
{
    size_t r0 = bi * w->tile, r1 = r0 + w->tile < w->m ? r0 + w->tile : w->m;
    size_t c0 = bj * w->tile, c1 = c0 + w->tile < w->n ? c0 + w->tile : w->n;
    int32_t corner = w->corner[bi];
    w->corner[bi] = w->hrow[c1 - 1];
    cell b = { 0, 0, 0 };
    if (w->simd && tile_striped_avx2(w, r0, r1, c0, c1, corner, &b) != HAY_OK) {
#pragma omp atomic write
        w->failed[0] = 1;
    }
    for (size_t r = r0; !w->simd && r < r1; r++) {
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
    return side < 256 ? 256 : side > 4096 ? 4096 : side;
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
    char failed = 0;
    w.failed = &failed;
    w.hrow = malloc(n * sizeof *w.hrow);
    w.frow = malloc(n * sizeof *w.frow);
    w.hcol = malloc(m * sizeof *w.hcol);
    w.ecol = malloc(m * sizeof *w.ecol);
    w.corner = calloc(w.nbi, sizeof *w.corner);
    cell *best = calloc((size_t)threads, sizeof *best);
    char *dep = calloc((w.nbi + 1) * (w.nbj + 1), 1);
    hay_status st = HAY_ERR_NOMEM;
    if (!w.hrow || !w.frow || !w.hcol || !w.ecol || !w.corner ||
        !best || !dep)
        goto out;
    w.t = t;
    for (size_t j = 0; j < n; j++) {
        w.hrow[j] = 0;
        w.frow[j] = NEG;
    }
    for (size_t i = 0; i < m; i++) {
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
    if (failed)
        goto out;
    cell b = { 0, 0, 0 };
    for (int k = 0; k < threads; k++)
        if (best[k].score > 0 && better(&best[k], &b))
            b = best[k];
    e->score = b.score;
    e->q_end = b.i;
    e->t_end = b.j;
    st = HAY_OK;
out:
    free(w.hrow);
    free(w.frow);
    free(w.hcol);
    free(w.ecol);
    free(w.corner);
    free(best);
    free(dep);
    return st;
}
