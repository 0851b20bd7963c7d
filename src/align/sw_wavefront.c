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
 * schedule: one anti-diagonal of tiles after another, the tiles of one
 * diagonal shared among the threads (omp for, dynamic).  CPUs without AVX2 run the tiles row by
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

static const char *const db_kernel_words[] = {
    "auto", "inter", "striped", "inter_avx2", "inter_avx512", NULL
};

static const hay_param wavefront_keys[] = {
    HAY_PARAM_SZ(hay_sw_wavefront_params, min_cells, "wavefront_cells", 1,
                 UINT64_MAX, "256M",
                 "one pair of at least this many cells (query x target) runs "
                 "on all the threads, in tiles along anti-diagonals"),
    HAY_PARAM_U(hay_sw_wavefront_params, tile, "wavefront_tile", 8,
                (uint64_t)1 << 20, 0, NULL,
                "tile side in cells, score passes and traceback (default: "
                "each side's length / 6 threads, 256 to 2048; the "
                "traceback's from the shorter side)"),
    HAY_PARAM_SZ(hay_sw_wavefront_params, split_cells, "traceback_cells", 1,
                 UINT64_MAX, "16M",
                 "the linear-space traceback of a pair on the wavefront "
                 "splits rectangles of at least this many cells on all the "
                 "threads (sw_hirschberg.c), smaller ones on one thread"),
    HAY_PARAM_E(hay_sw_wavefront_params, db_kernel, "db_kernel",
                db_kernel_words, "auto",
                "a database search's CPU score pass: many targets a vector "
                "(inter: AVX2, as inter_avx2; inter_avx512: AVX-512BW; "
                "sw_inter.h), the striped engines, or by the sizes (auto)"),
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
    size_t m, n, th, tw, nbi, nbj;  /* tiles of th rows, tw columns */
    int32_t *hrow, *frow, *hcol, *ecol, *corner;
    int bits;                   /* 16, 32: AVX2 tiles; 0: scalar rows */
    int *failed;                /* 1: saturated (16 bits), -1: no memory */
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

#define WT_BITS 16
#include "sw_wavefront_tile.h"
#undef WT_BITS
#define WT_BITS 32
#include "sw_wavefront_tile.h"
#undef WT_BITS

static void tile_run(const wave *w, size_t bi, size_t bj, cell *best)
{
    size_t r0 = bi * w->th, r1 = r0 + w->th < w->m ? r0 + w->th : w->m;
    size_t c0 = bj * w->tw, c1 = c0 + w->tw < w->n ? c0 + w->tw : w->n;
    int32_t corner = w->corner[bi];
    w->corner[bi] = w->hrow[c1 - 1];
    cell b = { 0, 0, 0 };
    int bad;
#pragma omp atomic read
    bad = *w->failed;
    if (bad)
        return;                 /* saturated or out of memory: all redone */
    if (w->bits) {
        bad = w->bits == 16 ? tile16(w, r0, r1, c0, c1, corner, &b)
                            : tile32(w, r0, r1, c0, c1, corner, &b);
        if (bad) {
#pragma omp atomic write
            *w->failed = bad;
        }
    }
    for (size_t r = r0; !w->bits && r < r1; r++) {
        int32_t next = w->hcol[r];
        row_scalar(w, r, c0, c1, corner, &b);
        corner = next;
    }
    if (b.score > 0 && better(&b, best))
        *best = b;
}

/* A tile side for a side of len cells: 6 tiles a thread or more, so that
 * the wavefront fills the threads soon; 256 to 2,048, whose arrays stay in
 * the first cache levels (16 cores of a Xeon, 100 kbp pairs: 32-bit tiles
 * of 1,024 and 2,048 rows ran at 2.3 GCUPS a core, of 4,096 at 1.5; 16-bit
 * tiles of 2,048 at 8.8, of 1,024 at 7.6). */
size_t hay_sw_wavefront_tile(size_t len, int threads)
{
    size_t side = len / (6 * (size_t)threads);
    return side < 256 ? 256 : side > 2048 ? 2048 : side;
}

int hay_sw_wavefront_simd(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

hay_status hay_sw_wavefront_score(const hay_align_scoring *s, const uint8_t *q,
                                  size_t m, const uint8_t *t, size_t n,
                                  int threads, size_t tile, int bits,
                                  sw_end *e)
{
    memset(e, 0, sizeof *e);
    if (m == 0 || n == 0)
        return HAY_OK;
    if (threads < 1)
        threads = 1;
    size_t th = tile ? tile : hay_sw_wavefront_tile(m, threads);
    size_t tw = tile ? tile : hay_sw_wavefront_tile(n, threads);
    wave w = { .s = s, .q = q, .t = t, .m = m, .n = n, .th = th, .tw = tw,
               .nbi = (m + th - 1) / th, .nbj = (n + tw - 1) / tw };
    /* 16 bits as the striped engine allows them (its usable test) */
    if (bits == 16 && (s->max_score > 8192 || s->min_score < -8192 ||
                       s->open > 8192))
        bits = 32;
    w.bits = hay_sw_wavefront_simd() ? bits : 0;
    int failed = 0;
    w.failed = &failed;
    w.hrow = malloc(n * sizeof *w.hrow);
    w.frow = malloc(n * sizeof *w.frow);
    w.hcol = malloc(m * sizeof *w.hcol);
    w.ecol = malloc(m * sizeof *w.ecol);
    w.corner = calloc(w.nbi, sizeof *w.corner);
    cell *best = calloc((size_t)threads, sizeof *best);
    hay_status st = HAY_ERR_NOMEM;
    if (!w.hrow || !w.frow || !w.hcol || !w.ecol || !w.corner ||
        !best)
        goto out;
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
        /* One anti-diagonal of tiles at a time: a tile needs the one above
         * and the one to its left, both on the diagonal before, and the
         * tiles of one diagonal touch disjoint rows and columns.  (Tasks
         * with depend clauses overlapped the diagonals, but libgomp keeps
         * their dependence tables past the region: LeakSanitizer reports
         * them.) */
        const wave *wp = &w;
        const size_t nbi = w.nbi, nbj = w.nbj;
#pragma omp parallel num_threads(threads)
        for (size_t d = 0; d < nbi + nbj - 1; d++) {
            size_t lo = d < nbj ? 0 : d - nbj + 1;
            size_t hi = d < nbi ? d : nbi - 1;
#pragma omp for schedule(dynamic, 1)
            for (size_t bi = lo; bi <= hi; bi++)
                tile_run(wp, bi, d - bi, &best[omp_get_thread_num()]);
        }
    }
    if (failed < 0)
        goto out;
    if (failed) {
        e->saturated = 1;
        st = HAY_OK;
        goto out;
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
    free(w.hrow);
    free(w.frow);
    free(w.hcol);
    free(w.ecol);
    free(w.corner);
    free(best);
    return st;
}
