/*
 * pfac.c - PFAC on CPU threads (pfac-opencl-mobile-energy.txt, section 3.1,
 * and its OpenMP version): one walk of the failureless trie per start
 * position, over the hay_pfac tables shared with the GPU backends (the
 * dense table when it fit its budget, else the compact edge lists).  The
 * chunk driver spreads the start positions over threads.
 *
 * PFAC finds matches in order of start; the engine contract wants them in
 * order of end.  Ends are therefore collected for a window of end
 * positions (lo, hi] and sorted there (a counting sort, stable, so matches
 * with the same end keep start order), then reported.  Starts before lo
 * whose walks reach past lo are walked again for each window, which costs
 * little because PFAC walks are short.  The window holds at most CAP
 * (end, state) pairs: when a window would hold more, the ends up to the
 * start being walked are complete and are reported, and the window starts
 * again there, smaller when it made no progress; a window of one end
 * reports straight from the walks (start order is then end order).  So
 * memory stays bounded whatever the density of matches.
 */
#include "../core/internal.h"
#include "cpu.h"

#define WIN ((size_t)1 << 15)    /* ends per window (at least 2 x longest) */
#define CAP ((size_t)1 << 16)    /* (end, state) pairs per window */
#define SMALL 256                /* the stack fallback when malloc fails */

/* The engine's state is the hay_pfac tables themselves, so that any
 * holder of PFAC tables (the CUDA backend's host fallback, streams on a
 * CUDA set) can run this engine's scan and count over them. */
static void pfac_destroy(const hay_patterns *set, void *state)
{
    hay_pfac_free(set, state);
}

static hay_status pfac_build(hay_patterns *set, void **state)
{
    hay_cpu_params prm;
    hay_cpu_params_get(set, &prm);
    hay_pfac *p;
    FORWARD_IF_ERROR(hay_pfac_build(set, prm.pfac_budget, &p));
    set->state_memory = p->memory;
    set->states = p->nstates;
    *state = p;
    return HAY_OK;
}

/* One transition; `dense` is a constant at every call site, so the walks
 * below are compiled once per table form. */
static inline __attribute__((always_inline)) uint32_t
step(const hay_pfac *p, bool dense, uint32_t s, uint8_t byte)
{
    uint8_t k = p->cls[byte];
    return dense ? p->next[(size_t)s * p->nclasses + k]
                 : hay_pfac_step_compact(p, s, k);
}

static inline uint32_t nout(const hay_pfac *p, uint32_t s)
{
    return p->out_first[s + 1] - p->out_first[s];
}

/* Reports the patterns of final state s for a match ending at `end`. */
static inline int report(const hay_pfac *p, uint32_t s, size_t end,
                         uint64_t base, hay_emit_fn emit, void *sink)
{
    uint64_t e = base + end, b = e - p->depth[s];
    for (uint32_t o = p->out_first[s]; o < p->out_first[s + 1]; o++)
        if (emit(sink, p->out_id[o], b, e))
            return 1;
    return 0;
}

/* Counting --------------------------------------------------------------- */

/* Matches of the walks from starts [j0, j1) ending in (min_end, n]. */
static inline __attribute__((always_inline)) uint64_t
count_walks(const hay_pfac *p, bool dense, const uint8_t *y, size_t n,
            size_t j0, size_t j1, size_t min_end)
{
    uint64_t c = 0;
    uint32_t nfinal = p->nfinal;
    for (size_t j = j0; j < j1; j++) {
        uint32_t s = p->root[y[j]];
        size_t k = j + 1;
        while (s) {
            if (s <= nfinal && k > min_end)
                c += nout(p, s);
            if (k == n)
                break;
            s = step(p, dense, s, y[k]);
            k++;
        }
    }
    return c;
}

static uint64_t pfac_count(const hay_patterns *set, const void *state,
                           const uint8_t *y, size_t n, size_t min_end)
{
    const hay_pfac *p = state;
    size_t from = min_end + 1 > set->max_len ? min_end + 1 - set->max_len : 0;
    if (p->next)
        return count_walks(p, true, y, n, from, n, min_end);
    return count_walks(p, false, y, n, from, n, min_end);
}

/* Scanning --------------------------------------------------------------- */

typedef struct pend {
    uint32_t end;     /* relative to the window's lo: 1 .. hi - lo */
    uint32_t state;
} pend;

typedef struct window {
    pend *ent, *sorted;
    uint32_t *cnt;       /* wmax + 1 */
    size_t cap, wmax;
} window;

/*
 * Walks starts [j0, hi), recording the final states reached at ends in
 * (lo, hi] (reporting them at once when `direct`).  Returns 0 when the
 * window is complete; 1 when emit asked to stop; 2 when the buffer filled
 * up during the walk from *full_at (the entries are then those of the
 * starts before it, plus some of its own).
 */
static inline __attribute__((always_inline)) int
walk_window(const hay_pfac *p, bool dense, const uint8_t *y, size_t j0,
            size_t lo, size_t hi, bool direct, uint64_t base, hay_emit_fn emit,
            void *sink, window *w, size_t *nent, size_t *full_at)
{
    uint32_t nfinal = p->nfinal;
    size_t ne = 0;
    for (size_t j = j0; j < hi; j++) {
        uint32_t s = p->root[y[j]];
        size_t k = j + 1;
        while (s) {
            if (s <= nfinal && k > lo) {
                if (direct) {
                    if (report(p, s, k, base, emit, sink))
                        return 1;
                } else {
                    if (ne == w->cap) {
                        *nent = ne;
                        *full_at = j;
                        return 2;
                    }
                    w->ent[ne].end = (uint32_t)(k - lo);
                    w->ent[ne].state = s;
                    ne++;
                }
            }
            if (k == hi)
                break;
            s = step(p, dense, s, y[k]);
            k++;
        }
    }
    *nent = ne;
    return 0;
}

/* Reports the recorded matches ending in (lo, upto], in order of end
 * (stable: same end, start order). */
static int flush_window(const hay_pfac *p, window *w, size_t ne, size_t lo,
                        size_t upto, uint64_t base, hay_emit_fn emit,
                        void *sink)
{
    uint32_t lim = (uint32_t)(upto - lo), mn = UINT32_MAX, mx = 0;
    size_t m = 0;
    for (size_t i = 0; i < ne; i++) {
        uint32_t e = w->ent[i].end;
        if (e > lim)
            continue;
        w->ent[m++] = w->ent[i];
        mn = e < mn ? e : mn;
        mx = e > mx ? e : mx;
    }
    if (m == 0)
        return 0;
    const pend *out = w->ent;
    if (m > 1) {
        uint32_t *cnt = w->cnt;
        memset(cnt, 0, ((size_t)(mx - mn) + 2) * sizeof *cnt);
        for (size_t i = 0; i < m; i++)
            cnt[w->ent[i].end - mn + 1]++;
        for (uint32_t v = 1; v <= mx - mn + 1; v++)
            cnt[v] += cnt[v - 1];
        for (size_t i = 0; i < m; i++)
            w->sorted[cnt[w->ent[i].end - mn]++] = w->ent[i];
        out = w->sorted;
    }
    for (size_t i = 0; i < m; i++)
        if (report(p, out[i].state, lo + out[i].end, base, emit, sink))
            return 1;
    return 0;
}

static inline __attribute__((always_inline)) int
scan_windows(const hay_patterns *set, const hay_pfac *p, bool dense,
             const uint8_t *y, size_t n, size_t min_end, uint64_t base,
             hay_emit_fn emit, void *sink, window *w)
{
    size_t back = set->max_len - 1;
    size_t size = w->wmax;
    size_t lo = min_end;
    while (lo < n) {
        size_t hi = n - lo > size ? lo + size : n;
        size_t j0 = lo > back ? lo - back : 0;
        size_t ne = 0, full_at = 0;
        bool direct = hi - lo == 1;
        int r = walk_window(p, dense, y, j0, lo, hi, direct, base, emit, sink,
                            w, &ne, &full_at);
        if (r == 1)
            return 1;
        if (r == 0) {
            if (!direct && flush_window(p, w, ne, lo, hi, base, emit, sink))
                return 1;
            lo = hi;
            if (size < w->wmax)
                size *= 2;
            continue;
        }
        /* Full: ends up to full_at are complete. */
        if (full_at > lo) {
            if (flush_window(p, w, ne, lo, full_at, base, emit, sink))
                return 1;
            lo = full_at;
        } else {
            size = size / 2 ? size / 2 : 1;
        }
    }
    return 0;
}

static int pfac_scan(const hay_patterns *set, const void *state,
                     const uint8_t *y, size_t n, size_t min_end, uint64_t base,
                     hay_emit_fn emit, void *sink)
{
    const hay_pfac *p = state;
    if (min_end >= n)
        return 0;
    const hay_allocator *a = &set->alloc;
    size_t span = n - min_end;
    size_t wmax = WIN > 2 * set->max_len ? WIN : 2 * set->max_len;
    if (wmax > span)
        wmax = span;
    size_t cap = CAP < 4 * span + 16 ? CAP : 4 * span + 16;
    pend small_ent[SMALL], small_sorted[SMALL];
    uint32_t small_cnt[SMALL / 2 + 1];
    window w;
    w.ent = hay_malloc(a, cap * sizeof *w.ent);
    w.sorted = hay_malloc(a, cap * sizeof *w.sorted);
    w.cnt = hay_malloc(a, (wmax + 1) * sizeof *w.cnt);
    w.cap = cap;
    w.wmax = wmax;
    bool heap = w.ent && w.sorted && w.cnt;
    if (!heap) {
        /* Slower but still complete: small windows on the stack. */
        hay_free(a, w.ent);
        hay_free(a, w.sorted);
        hay_free(a, w.cnt);
        w.ent = small_ent;
        w.sorted = small_sorted;
        w.cnt = small_cnt;
        w.cap = SMALL;
        w.wmax = wmax < SMALL / 2 ? wmax : SMALL / 2;
    }
    int r = p->next ? scan_windows(set, p, true, y, n, min_end, base, emit, sink, &w)
                    : scan_windows(set, p, false, y, n, min_end, base, emit, sink, &w);
    if (heap) {
        hay_free(a, w.ent);
        hay_free(a, w.sorted);
        hay_free(a, w.cnt);
    }
    return r;
}

const hay_engine hay_engine_pfac = {
    "pfac", true, pfac_build, pfac_destroy, pfac_scan, pfac_count,
};
