/*
 * sw_global.c - the traceback: the optimal global alignment of the
 * rectangle that the local alignment spans (its score is the local score;
 * see align.c), as one op per column.
 *
 * Costs are minimised here (cost = -score), with Myers and Miller's names
 * (CABIOS 4(1), 1988): a gap of k residues costs g + h k, g = open - extend,
 * h = extend, and w(a, b) = -matrix[a][b].  Arrays: C the best cost, V a
 * path ending with a vertical gap (query residue against a gap, op 'I'),
 * Z one ending with a horizontal gap (target residue against a gap, 'D').
 *
 * A sub-rectangle small enough for the budget is solved with the full
 * direction matrix (one byte a cell); a larger one is split at its middle
 * row by a forward and a reverse pass in linear space, through the column
 * and the gap state (type 1: any; type 2: inside a vertical gap crossing
 * the middle) of the cheapest path, and both halves are solved the same
 * way.  tb and te are what a vertical gap at the top and at the bottom of a
 * sub-rectangle costs to open: g, or 0 when it continues a gap of the
 * neighbour.  Costs are 64-bit.  When the direction matrix of a
 * rectangle within the budget cannot be allocated after all (the budget
 * is the caller's guess; a memory limit has the last word), the rectangle
 * is split as a larger one would be and the budget lowered below it.
 *
 * The half passes and the split choice are sw_hirschberg.c's, which also
 * runs the same recursion on several threads (a long pair's traceback);
 * this file is the one-thread recursion, and the leaves of that one.
 * Should an allocation fail there, only that thread's budget is lowered,
 * so the ops may then differ from this file's (they stay optimal).
 */
#include "sw_hirschberg.h"

#include <stdlib.h>
#include <string.h>

#define INF (INT64_MAX / 4)

typedef struct mm {
    const hay_align_scoring *s;
    const uint8_t *a, *b;
    int64_t g, h;
    int64_t *cc, *dd, *rr, *ss;     /* linear-space rows, n + 1 each */
    size_t n;
    char *ops;
    size_t len;
    uint64_t budget;
    int linear;
    hay_status st;
} mm;

static inline char rep(uint8_t qa, uint8_t tb)
{
    return qa == tb ? '=' : 'X';
}

/* Full direction matrix: bits 0-1 C's source (0 diagonal, 1 V, 2 Z),
 * bit 2 V extends V above, bit 3 Z extends Z to the left.  Returns 0, or
 * -1 when the direction matrix cannot be allocated (nothing done). */
static int full(mm *x, size_t ai, size_t m, size_t bj, size_t n, int64_t tb,
                int64_t te)
{
    const int64_t g = x->g, h = x->h;
    size_t cols = n + 1;
    uint8_t *dir = malloc((m + 1) * cols);
    if (!dir)
        return -1;
    int64_t *c = malloc(cols * sizeof *c), *v = malloc(cols * sizeof *v);
    char *rev = malloc(m + n + 1);
    if (!c || !v || !rev) {
        x->st = HAY_ERR_NOMEM;
        goto out;
    }
    c[0] = 0;
    v[0] = INF;
    dir[0] = 0;
    for (size_t j = 1; j <= n; j++) {
        c[j] = g + h * (int64_t)j;
        v[j] = INF;
        dir[j] = (uint8_t)(2 | (j > 1 ? 8 : 0));
    }
    for (size_t i = 1; i <= m; i++) {
        uint8_t *d = dir + i * cols;
        const uint8_t qa = x->a[ai + i - 1];
        const int32_t *row = x->s->matrix + qa * x->s->alpha;
        int64_t diag = c[0];
        c[0] = tb + h * (int64_t)i;
        v[0] = c[0];
        d[0] = (uint8_t)(1 | (i > 1 ? 4 : 0));
        int64_t z = INF;
        for (size_t j = 1; j <= n; j++) {
            int64_t ve = v[j] + h, vo = c[j] + g + h;
            int64_t vv = ve <= vo ? ve : vo;
            int64_t ze = z + h, zo = c[j - 1] + g + h;
            int64_t zz = ze <= zo ? ze : zo;
            int64_t cv = diag - row[x->b[bj + j - 1]];
            uint8_t src = 0;
            if (vv < cv) {
                cv = vv;
                src = 1;
            }
            if (zz < cv) {
                cv = zz;
                src = 2;
            }
            diag = c[j];
            c[j] = cv;
            v[j] = vv;
            z = zz;
            d[j] = (uint8_t)(src | (ve <= vo ? 4 : 0) | (ze <= zo ? 8 : 0));
        }
    }
    int state = 0;                            /* 0 C, 1 V, 2 Z */
    if (m > 0 && n > 0 && v[n] - g + te < c[n])
        state = 1;
    size_t i = m, j = n, k = 0;
    while (i > 0 || j > 0) {
        if (i == 0) {
            rev[k++] = 'D';
            j--;
            continue;
        }
        if (j == 0) {
            rev[k++] = 'I';
            i--;
            continue;
        }
        uint8_t d = dir[i * cols + j];
        if (state == 0) {
            state = d & 3;
            if (state == 0) {
                rev[k++] = rep(x->a[ai + i - 1], x->b[bj + j - 1]);
                i--;
                j--;
            }
            continue;
        }
        if (state == 1) {
            rev[k++] = 'I';
            state = (d & 4) ? 1 : 0;
            i--;
        } else {
            rev[k++] = 'D';
            state = (d & 8) ? 2 : 0;
            j--;
        }
    }
    while (k > 0)
        x->ops[x->len++] = rev[--k];
out:
    free(dir);
    free(c);
    free(v);
    free(rev);
    return 0;
}

/* The four rows of the linear-space passes, allocated at the first split. */
static int rows(mm *x)
{
    if (x->cc)
        return 0;
    x->cc = malloc((x->n + 1) * sizeof(int64_t));
    x->dd = malloc((x->n + 1) * sizeof(int64_t));
    x->rr = malloc((x->n + 1) * sizeof(int64_t));
    x->ss = malloc((x->n + 1) * sizeof(int64_t));
    if (x->cc && x->dd && x->rr && x->ss)
        return 0;
    x->st = HAY_ERR_NOMEM;
    return -1;
}

int hay_mm_fits(uint64_t budget, size_t m, size_t n)
{
    if (m <= 1 || n == 0)
        return 1;
    uint64_t r = (uint64_t)m + 1, c = (uint64_t)n + 1;
    return r <= budget / c;
}

static void diff(mm *x, size_t ai, size_t m, size_t bj, size_t n, int64_t tb,
                 int64_t te)
{
    if (x->st != HAY_OK)
        return;
    if (hay_mm_fits(x->budget, m, n)) {
        if (full(x, ai, m, bj, n, tb, te) == 0)
            return;
        if (m <= 1) {
            x->st = HAY_ERR_NOMEM;
            return;
        }
        x->budget = (uint64_t)(m + 1) * (n + 1) / 2;
    }
    if (rows(x))
        return;
    x->linear = 1;
    const int64_t g = x->g;
    int64_t *cc = x->cc, *dd = x->dd, *rr = x->rr, *ss = x->ss;
    size_t mid = m / 2;
    /* Forward: A[0, mid) against prefixes of B; reverse: A[mid, m)
     * against suffixes of B, from the bottom right. */
    hay_mm_half(x->s, x->a + ai, x->b + bj, 0, mid, n, tb, 0, cc, dd);
    hay_mm_half(x->s, x->a + ai + m - 1, x->b + bj + n - 1, 1, m - mid, n,
                te, 0, rr, ss);
    size_t bjm;
    int type;
    hay_mm_split(cc, dd, rr, ss, n, g, &bjm, &type);
    if (type == 1) {
        diff(x, ai, mid, bj, bjm, tb, g);
        diff(x, ai + mid, m - mid, bj + bjm, n - bjm, g, te);
    } else {
        diff(x, ai, mid - 1, bj, bjm, tb, 0);
        x->ops[x->len++] = 'I';
        x->ops[x->len++] = 'I';
        diff(x, ai + mid + 1, m - mid - 1, bj + bjm, n - bjm, 0, te);
    }
}

hay_status hay_mm_serial(const hay_align_scoring *s, const uint8_t *a,
                         size_t m, const uint8_t *b, size_t n, int64_t tb,
                         int64_t te, uint64_t budget, char *ops, size_t *len,
                         int *linear)
{
    mm x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.a = a;
    x.b = b;
    x.g = s->open - s->extend;
    x.h = s->extend;
    x.ops = ops;
    x.budget = budget;
    x.n = n;
    x.st = HAY_OK;
    diff(&x, 0, m, 0, n, tb, te);
    free(x.cc);
    free(x.dd);
    free(x.rr);
    free(x.ss);
    *len = x.len;
    *linear = x.linear;
    return x.st;
}

hay_status hay_sw_global_ops(const hay_align_scoring *s, const uint8_t *q,
                             size_t m, const uint8_t *t, size_t n,
                             const sw_global_par *par, uint64_t budget,
                             char *ops, size_t *len, int64_t *score,
                             int *linear)
{
    const int64_t g = s->open - s->extend;
    size_t nops = 0;
    hay_status st;
    if (!par || par->threads <= 1) {
        st = hay_mm_serial(s, q, m, t, n, g, g, budget, ops, &nops, linear);
    } else {
        /* The ops come back where they lie on the path, with zero bytes
         * between sub-rectangles (sw_hirschberg.c). */
        memset(ops, 0, m + n);
        st = hay_mm_parallel(s, q, m, t, n, budget, par->threads,
                             par->split_cells, par->tile, ops, linear);
        for (size_t k = 0; st == HAY_OK && k < m + n; k++)
            if (ops[k])
                ops[nops++] = ops[k];
    }
    if (st != HAY_OK)
        return st;
    /* The score of the ops, the cost model undone. */
    int64_t sc = 0;
    size_t i = 0, j = 0;
    char prev = 0;
    for (size_t k = 0; k < nops; k++) {
        char op = ops[k];
        if (op == 'I' || op == 'D') {
            sc -= (op == prev ? 0 : s->open - s->extend) + s->extend;
            if (op == 'I')
                i++;
            else
                j++;
        } else {
            sc += s->matrix[q[i] * s->alpha + t[j]];
            i++;
            j++;
        }
        prev = op;
    }
    if (i != m || j != n)
        return HAY_ERR_STATE;
    *len = nops;
    *score = sc;
    return HAY_OK;
}
