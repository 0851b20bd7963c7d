/*
 * sw_hirschberg.c - the linear-space traceback of sw_global.c on many
 * threads, and the half pass and split choice that both use.
 *
 * Myers and Miller split a rectangle at its middle row: a forward pass over
 * the upper half and a reverse pass over the lower half give the last row
 * of each (C and D), the cheapest crossing of the middle row is the split,
 * and the two sub-rectangles are solved the same way.  Here:
 *  - the two half passes of a split run at the same time, each as OpenMP
 *    tasks of tiles along anti-diagonals when it is large (the scheme of
 *    sw_wavefront.c, on 64-bit costs with the sub-rectangle's boundary);
 *  - the two sub-rectangles after a split are tasks of their own;
 *  - a rectangle that fits the direction-matrix budget, or has fewer than
 *    split_cells cells (the `cpu align` key traceback_cells), goes to the
 *    serial code (hay_mm_serial).
 * The splits are sw_global.c's: the same middle row, the same costs (every
 * cost is an exact integer, whatever the order of the tiles), the same
 * hay_mm_split, so the alignment is the serial one, op for op.  Each
 * sub-rectangle writes its ops where they belong in the end: the ops of a
 * path from (0, 0) to (i, j) number at most i + j, so the ones of the
 * sub-rectangle at (i, j) start at ops[i + j] and stop before the next
 * sub-rectangle's; the caller removes the zero bytes between them.
 * Tasks have no depend clauses (libgomp keeps dependence tables that
 * LeakSanitizer reports, see sw_wavefront.c): each anti-diagonal of tiles
 * is a taskgroup, and a split waits for its two passes.
 */
#include "sw_hirschberg.h"

#include <stdlib.h>
#include <string.h>

#include <omp.h>

/* Row i over columns [c0, c1) (1-based): c, e the left C and E on entry,
 * the row's last ones on return; s = C(i - 1, c0 - 1).  rev is a constant
 * at each call, so the two directions compile apart. */
static inline void mm_row(const int32_t *row, const uint8_t *b, int rev,
                          size_t c0, size_t c1, int64_t *cc, int64_t *dd,
                          int64_t *cl, int64_t *el, int64_t s, int64_t g,
                          int64_t h)
{
    int64_t c = *cl, e = *el;
    for (size_t j = c0; j < c1; j++) {
        int64_t ec = c + g;
        e = (e < ec ? e : ec) + h;
        int64_t dc = cc[j] + g;
        dd[j] = (dd[j] < dc ? dd[j] : dc) + h;
        c = dd[j] < e ? dd[j] : e;
        int64_t sv = s - row[rev ? b[-(ptrdiff_t)(j - 1)] : b[j - 1]];
        if (sv < c)
            c = sv;
        s = cc[j];
        cc[j] = c;
    }
    *cl = c;
    *el = e;
}

/* The tiles of one half pass: as sw_wavefront.c's, cc/dd carry the bottom
 * row of the last tile done in each column, ccol/ecol (row i at i - 1) the
 * right column of the last tile done in each row, corner[bi]
 * C(r0 - 1, c0 - 1) from a tile to the next in its row block. */
typedef struct tiles {
    const hay_align_scoring *s;
    const uint8_t *a, *b;
    int rev;
    size_t rows, n, side, nbi, nbj;
    int64_t g, h;
    int64_t *cc, *dd, *ccol, *ecol, *corner;
} tiles;

static void tile_run(const tiles *w, size_t bi, size_t bj)
{
    size_t r0 = bi * w->side + 1, r1 = r0 + w->side;
    size_t c0 = bj * w->side + 1, c1 = c0 + w->side;
    if (r1 > w->rows + 1)
        r1 = w->rows + 1;
    if (c1 > w->n + 1)
        c1 = w->n + 1;
    int64_t corner = w->corner[bi];
    w->corner[bi] = w->cc[c1 - 1];
    for (size_t i = r0; i < r1; i++) {
        const uint8_t qa = w->rev ? w->a[-(ptrdiff_t)(i - 1)] : w->a[i - 1];
        const int32_t *row = w->s->matrix + qa * w->s->alpha;
        int64_t next = w->ccol[i - 1];
        if (w->rev)
            mm_row(row, w->b, 1, c0, c1, w->cc, w->dd, &w->ccol[i - 1],
                   &w->ecol[i - 1], corner, w->g, w->h);
        else
            mm_row(row, w->b, 0, c0, c1, w->cc, w->dd, &w->ccol[i - 1],
                   &w->ecol[i - 1], corner, w->g, w->h);
        corner = next;
    }
}

int hay_mm_half(const hay_align_scoring *s, const uint8_t *a, const uint8_t *b,
                int rev, size_t rows, size_t n, int64_t t0, size_t tile,
                int64_t *cc, int64_t *dd)
{
    const int64_t g = s->open - s->extend, h = s->extend;
    int64_t t = g;
    cc[0] = 0;
    for (size_t j = 1; j <= n; j++) {
        t += h;
        cc[j] = t;
        dd[j] = t + g;
    }
    size_t nbi = tile ? (rows + tile - 1) / tile : 1;
    size_t nbj = tile ? (n + tile - 1) / tile : 1;
    if (nbi < 2 || nbj < 2) {
        t = t0;
        for (size_t i = 1; i <= rows; i++) {
            const uint8_t qa = rev ? a[-(ptrdiff_t)(i - 1)] : a[i - 1];
            const int32_t *row = s->matrix + qa * s->alpha;
            int64_t diag = cc[0];
            t += h;
            int64_t c = t, e = t + g;
            cc[0] = c;
            if (rev)
                mm_row(row, b, 1, 1, n + 1, cc, dd, &c, &e, diag, g, h);
            else
                mm_row(row, b, 0, 1, n + 1, cc, dd, &c, &e, diag, g, h);
        }
        dd[0] = cc[0];
        return 0;
    }
    tiles w = { .s = s, .a = a, .b = b, .rev = rev, .rows = rows, .n = n,
                .side = tile, .nbi = nbi, .nbj = nbj, .g = g, .h = h,
                .cc = cc, .dd = dd };
    w.ccol = malloc((2 * rows + nbi) * sizeof *w.ccol);
    if (!w.ccol)
        return -1;
    w.ecol = w.ccol + rows;
    w.corner = w.ecol + rows;
    for (size_t i = 1; i <= rows; i++) {
        w.ccol[i - 1] = t0 + h * (int64_t)i;
        w.ecol[i - 1] = w.ccol[i - 1] + g;
    }
    w.corner[0] = cc[0];
    for (size_t bi = 1; bi < nbi; bi++)
        w.corner[bi] = t0 + h * (int64_t)(bi * tile);
    const tiles *wp = &w;
    for (size_t d = 0; d < nbi + nbj - 1; d++) {
        size_t lo = d < nbj ? 0 : d - nbj + 1;
        size_t hi = d < nbi ? d : nbi - 1;
#pragma omp taskgroup
        {
            for (size_t bi = lo; bi < hi; bi++) {
#pragma omp task firstprivate(bi, d) shared(wp)
                tile_run(wp, bi, d - bi);
            }
            tile_run(wp, hi, d - hi);
        }
    }
    cc[0] = t0 + h * (int64_t)rows;
    dd[0] = cc[0];
    free(w.ccol);
    return 0;
}

void hay_mm_split(const int64_t *cc, const int64_t *dd, const int64_t *rr,
                  const int64_t *ss, size_t n, int64_t g, size_t *bjm,
                  int *type)
{
    int64_t best = cc[0] + rr[n];
    *bjm = 0;
    *type = 1;
    for (size_t j = 0; j <= n; j++) {
        int64_t c1 = cc[j] + rr[n - j];
        if (c1 < best) {
            best = c1;
            *bjm = j;
            *type = 1;
        }
        int64_t c2 = dd[j] + ss[n - j] - g;
        if (c2 < best) {
            best = c2;
            *bjm = j;
            *type = 2;
        }
    }
}

/* ------------------------------------------------------------------------
 * The recursion on many threads
 * ---------------------------------------------------------------------- */
typedef struct par {
    const hay_align_scoring *s;
    const uint8_t *a, *b;
    char *ops;
    int64_t g;
    uint64_t budget, split_cells;
    size_t tile;
    int threads;
    int linear;                 /* atomic: a rectangle was split */
    int st;                     /* atomic: the first error, HAY_OK if none */
} par;

static void fail(par *p, hay_status st)
{
    int expect = HAY_OK;
    __atomic_compare_exchange_n(&p->st, &expect, (int)st, 0,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* A tile side for a pass of rows x n on the threads: as sw_wavefront.c's
 * (6 tiles a thread along the shorter side, 256 to 2,048), or the key. */
static size_t pass_tile(const par *p, size_t rows, size_t n)
{
    if (p->tile)
        return p->tile;
    return hay_sw_wavefront_tile(rows < n ? rows : n, p->threads);
}

static void node(par *p, size_t ai, size_t m, size_t bj, size_t n, int64_t tb,
                 int64_t te)
{
    if (__atomic_load_n(&p->st, __ATOMIC_RELAXED) != HAY_OK)
        return;
    if (hay_mm_fits(p->budget, m, n) || (uint64_t)m * n < p->split_cells) {
        size_t len;
        int lin = 0;
        hay_status st = hay_mm_serial(p->s, p->a + ai, m, p->b + bj, n, tb,
                                      te, p->budget, p->ops + ai + bj, &len,
                                      &lin);
        if (st != HAY_OK)
            fail(p, st);
        if (lin)
            __atomic_store_n(&p->linear, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&p->linear, 1, __ATOMIC_RELAXED);
    int64_t *cc = malloc(4 * (n + 1) * sizeof *cc);
    if (!cc) {
        fail(p, HAY_ERR_NOMEM);
        return;
    }
    int64_t *dd = cc + n + 1, *rr = dd + n + 1, *ss = rr + n + 1;
    size_t mid = m / 2;
    const uint8_t *a = p->a + ai, *b = p->b + bj;
    size_t tf = pass_tile(p, mid, n), tr = pass_tile(p, m - mid, n);
    int bad = 0;
    /* Both passes as tasks: a pass's taskgroups then wait for its own
     * tiles only, and a thread waiting here runs either pass. */
#pragma omp task shared(bad)
    {
        if (hay_mm_half(p->s, a, b, 0, mid, n, tb, tf, cc, dd))
            __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
    }
#pragma omp task shared(bad)
    {
        if (hay_mm_half(p->s, a + m - 1, b + n - 1, 1, m - mid, n, te, tr,
                        rr, ss))
            __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
    }
#pragma omp taskwait
    if (bad) {
        free(cc);
        fail(p, HAY_ERR_NOMEM);
        return;
    }
    size_t bjm;
    int type;
    hay_mm_split(cc, dd, rr, ss, n, p->g, &bjm, &type);
    free(cc);
    if (type == 1) {
#pragma omp task
        node(p, ai, mid, bj, bjm, tb, p->g);
        node(p, ai + mid, m - mid, bj + bjm, n - bjm, p->g, te);
    } else {
#pragma omp task
        node(p, ai, mid - 1, bj, bjm, tb, 0);
        p->ops[ai + mid - 1 + bj + bjm] = 'I';
        p->ops[ai + mid + bj + bjm] = 'I';
        node(p, ai + mid + 1, m - mid - 1, bj + bjm, n - bjm, 0, te);
    }
}

hay_status hay_mm_parallel(const hay_align_scoring *s, const uint8_t *a,
                           size_t m, const uint8_t *b, size_t n,
                           uint64_t budget, int threads, uint64_t split_cells,
                           size_t tile, char *ops, int *linear)
{
    par p = { .s = s, .a = a, .b = b, .ops = ops,
              .g = s->open - s->extend, .budget = budget,
              .split_cells = split_cells, .tile = tile, .threads = threads,
              .st = HAY_OK };
#pragma omp parallel num_threads(threads)
#pragma omp single
    node(&p, 0, m, 0, n, p.g, p.g);
    *linear = p.linear;
    return (hay_status)p.st;
}
