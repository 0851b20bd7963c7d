/*
 * list.c - hay_scan_list and hay_scan_buffer_list (the match list in the
 * caller's arrays, resumable) against hay_scan's list, on every backend:
 *
 *   every engine of the row x the conformance table: caps of 1 and 7 (on
 *   the cases with few matches), a few thousand and the whole list,
 *   resumed from done until done == len, serially and on 3 threads with
 *   7-byte chunks: the calls together give exactly hay_scan's sequence;
 *   each call's matches are those of (from, done], none split at an end;
 *   dense inputs with duplicate patterns (several matches at one end):
 *   HAY_ERR_TOO_LARGE with n = 0 and done = that end - 1 when cap cannot
 *   hold one end's matches, then a cap of the pattern count goes on; the
 *   leftmost modes; NULL starts or ends; buffers; len 0, from == len and
 *   bad arguments; and a long list through bounded memory (the arrays of
 *   one cap, resumed: 10^8 matches on the CPU, 10^9 on a GPU).
 *
 *   test_list [cpu|opencl|cuda|cuda-pieces|auto-gpu|auto-split|cuda-big ...]
 *
 * cuda-pieces runs the CUDA engines with pieces of 64 KiB (the smallest
 * chunk) over inputs of several pieces, and lists of 2,000, 3 and 20,000
 * slots (the overflow paths: parts listed again, ends searched on the host;
 * with 20,000 one 32 MiB piece overflows and the set's later calls start
 * with the pieces cut to fit, src/cuda/pipeline.c).  A
 * row whose backend is missing is named and skipped; the test exits 77
 * only when every row asked for was skipped.
 */
#include "cases.h"
#include "list_arrays.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    const char *name;
    hay_backend backend;   /* whose engines are listed; AUTO: one auto engine */
    const char *params;    /* added to every engine (NULL: none) */
    size_t dense_len;      /* the dense input's bytes */
    uint64_t bounded;      /* matches of the bounded-memory part (0: none) */
    bool table;            /* run the conformance table */
    int arrays;            /* the caller's arrays: ARR_* */
} row;

enum {
    ARR_MALLOC = 0,   /* malloc'd */
    ARR_ALLOC,        /* hay_match_list_alloc's (pinned on CUDA) */
    ARR_DEVICE        /* device memory (cuMemAlloc) */
};

static const row rows[] = {
    { "cpu", HAY_BACKEND_CPU, NULL, 30000, 100000001, true, ARR_MALLOC },
    { "opencl", HAY_BACKEND_OPENCL, NULL, 30000, 0, true, ARR_MALLOC },
    { "cuda", HAY_BACKEND_CUDA, NULL, 30000, 0, true, ARR_MALLOC },
    { "cuda-pieces", HAY_BACKEND_CUDA, "chunk=64K,streams=2", 150000, 0, false, ARR_MALLOC },
    { "cuda-pieces", HAY_BACKEND_CUDA, "chunk=64K,result_cap=2000", 150000, 0, false, ARR_MALLOC },
    { "cuda-pieces", HAY_BACKEND_CUDA, "result_cap=3", 300, 0, false, ARR_MALLOC },
    /* One piece overflows: later calls start with the pieces cut to fit. */
    { "cuda-pieces", HAY_BACKEND_CUDA, "result_cap=20000", 300000, 0, false, ARR_MALLOC },
    { "auto-gpu", HAY_BACKEND_AUTO, "gpu_min=0", 30000, 0, true, ARR_MALLOC },
    { "auto-split", HAY_BACKEND_AUTO, "split=emulate,split_piece=4K,chunk=3K", 30000, 0,
      true, ARR_MALLOC },
    { "cuda-big", HAY_BACKEND_CUDA, NULL, 0, 1000000001, false, ARR_MALLOC },
    /* The arrays of hay_match_list_alloc (cpu: malloc'd; cuda: pinned, filled
     * from the device), and device arrays: the CUDA rows' pieces as above. */
    { "cpu-alloc", HAY_BACKEND_CPU, NULL, 3000, 0, true, ARR_ALLOC },
    { "cuda-pinned", HAY_BACKEND_CUDA, NULL, 30000, 0, true, ARR_ALLOC },
    { "cuda-device", HAY_BACKEND_CUDA, NULL, 30000, 0, true, ARR_DEVICE },
    { "cuda-pinned-pieces", HAY_BACKEND_CUDA, "chunk=64K,streams=2", 150000, 0, false,
      ARR_ALLOC },
    { "cuda-pinned-pieces", HAY_BACKEND_CUDA, "chunk=64K,result_cap=2000", 150000, 0, false,
      ARR_ALLOC },
    { "cuda-pinned-pieces", HAY_BACKEND_CUDA, "result_cap=3", 300, 0, false, ARR_ALLOC },
    { "cuda-device-pieces", HAY_BACKEND_CUDA, "chunk=64K,streams=2", 150000, 0, false,
      ARR_DEVICE },
    { "cuda-device-pieces", HAY_BACKEND_CUDA, "chunk=64K,result_cap=2000", 150000, 0, false,
      ARR_DEVICE },
    { "cuda-device-pieces", HAY_BACKEND_CUDA, "result_cap=3", 300, 0, false, ARR_DEVICE },
    { "cuda-device-pieces", HAY_BACKEND_CUDA, "result_cap=20000", 300000, 0, false,
      ARR_DEVICE },
};
#define NROWS (sizeof rows / sizeof rows[0])

static tu_case *cases;   /* the conformance table (tests/common/cases.h) */
static size_t nc;

static uint64_t list_calls;   /* hay_scan_list calls of the row */
static const row *cur_row;    /* the row running */
/* The line every call must log (the CUDA driver's device conversion), or
 * NULL: the leftmost modes and host arrays take the host path. */
static const char *want_line;

typedef struct log_seen {
    const char *want;
    bool seen;
} log_seen;

static void log_cb(const char *line, void *ctx)
{
    log_seen *l = ctx;
    if (l->want && strstr(line, l->want))
        l->seen = true;
}

static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_mlist_push(ctx, id, start, end);
    return 0;
}

/* The caller's arrays (of the row's kind) and, for device ones, host
 * copies of what a call stored. */
typedef struct arrays {
    hay_match_list l;
    uint32_t *ids;
    uint64_t *starts, *ends;
    int kind;
    hay_match_list made;      /* ARR_ALLOC */
    uint32_t *h_ids;          /* ARR_DEVICE */
    uint64_t *h_starts, *h_ends;
} arrays;

static bool arrays_make(arrays *a, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->kind = cur_row ? cur_row->arrays : ARR_MALLOC;
    if (a->kind == ARR_ALLOC) {
        hay_status s = hay_match_list_alloc(cur_row->backend, cap,
                                            HAY_LIST_STARTS | HAY_LIST_ENDS, &a->made);
        a->ids = a->made.ids;
        a->starts = a->made.starts;
        a->ends = a->made.ends;
        return CHECK(s == HAY_OK, "hay_match_list_alloc of %zu: %s", cap, hay_strerror(s));
    }
    bool dev = a->kind == ARR_DEVICE;
    void *(*get)(size_t) = dev ? cu_alloc : malloc;
    a->ids = get(cap * sizeof *a->ids);
    a->starts = get(cap * sizeof *a->starts);
    a->ends = get(cap * sizeof *a->ends);
    if (dev) {
        a->h_ids = malloc(cap * sizeof *a->h_ids);
        a->h_starts = malloc(cap * sizeof *a->h_starts);
        a->h_ends = malloc(cap * sizeof *a->h_ends);
    }
    return CHECK(a->ids && a->starts && a->ends &&
                     (!dev || (a->h_ids && a->h_starts && a->h_ends)),
                 "arrays of %zu%s", cap, dev ? " (device)" : "");
}

static void arrays_free(arrays *a)
{
    if (a->kind == ARR_ALLOC) {
        hay_match_list_free(&a->made);
        return;
    }
    void (*put)(void *) = a->kind == ARR_DEVICE ? cu_free : free;
    put(a->ids);
    put(a->starts);
    put(a->ends);
    free(a->h_ids);
    free(a->h_starts);
    free(a->h_ends);
}

/* What the call stored, readable here: a->l itself, or (device arrays)
 * its first n entries copied into the host copies. */
static bool arrays_view(arrays *a, hay_match_list *v)
{
    *v = a->l;
    if (a->kind != ARR_DEVICE)
        return true;
    size_t n = a->l.n;
    v->ids = a->h_ids;
    v->starts = a->l.starts ? a->h_starts : NULL;
    v->ends = a->l.ends ? a->h_ends : NULL;
    return CHECK(cu_get(v->ids, a->l.ids, n * sizeof *v->ids) &&
                     (!v->starts || cu_get(v->starts, a->l.starts, n * sizeof *v->starts)) &&
                     (!v->ends || cu_get(v->ends, a->l.ends, n * sizeof *v->ends)),
                 "copying %zu matches from the device arrays", n);
}

/* One way of listing: which arrays, which call. */
typedef struct how {
    size_t cap;
    bool no_starts, no_ends;
    const hay_buffer *buf;   /* NULL: hay_scan_list over the host input */
    int threaded;
} how;

/* Calls hay_scan_list (or the buffer one) from 0 until done == len and
 * checks every call against ref, hay_scan's list (the whole, in order). */
static bool check_list(const char *label, const hay_patterns *set, hay_scratch *sc,
                       const uint8_t *hay, size_t len, const tu_mlist *ref, size_t npats,
                       const how *h)
{
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = h->threaded ? 3 : 1;
    o.chunk_size = h->threaded ? 7 : 0;
    log_seen seen = { want_line, false };
    o.log = log_cb;
    o.log_ctx = &seen;
    arrays a;
    size_t room = h->cap > npats ? h->cap : npats;   /* a retry takes npats */
    if (!arrays_make(&a, room))
        return false;
    char what[200];
    snprintf(what, sizeof what, "%s cap=%zu%s%s%s threads=%d", label, h->cap,
             h->no_starts ? " starts=NULL" : "", h->no_ends ? " ends=NULL" : "",
             h->buf ? " buffer" : "", o.threads);
    uint64_t from = 0;
    size_t at = 0, calls = 0, too_large = 0;
    bool ok = true;
    while (ok) {
        size_t cap = h->cap;
        hay_status s;
        for (;;) {
            a.l = (hay_match_list){ a.ids, h->no_starts ? NULL : a.starts,
                                    h->no_ends ? NULL : a.ends, cap, 99, 0 };
            seen.seen = false;
            s = h->buf ? hay_scan_buffer_list(set, sc, h->buf, from, &o, &a.l)
                       : hay_scan_list(set, sc, hay, len, from, &o, &a.l);
            calls++;
            list_calls++;
            /* (from == len: nothing to scan, no scan) */
            ok = CHECK(!want_line || seen.seen || from == len,
                       "%s: from %" PRIu64 ": no log line '%s'", what, from, want_line);
            if (!ok || s != HAY_ERR_TOO_LARGE || cap == npats)
                break;
            /* The matches of the end after done exceed cap. */
            uint64_t e = a.l.done + 1;
            size_t k = 0;
            while (at + k < ref->n && ref->m[at + k].end == e)
                k++;
            ok = CHECK(a.l.n == 0 && a.l.done >= from && at < ref->n &&
                           ref->m[at].end == e && k > cap,
                       "%s: from %" PRIu64 ": TOO_LARGE with n=%zu done=%" PRIu64
                       ", but %zu matches end at %" PRIu64, what, from, a.l.n, a.l.done, k, e);
            if (!ok)
                break;
            too_large++;
            cap = npats;   /* always enough */
        }
        if (!ok)
            break;
        if (!CHECK(s == HAY_OK, "%s: from %" PRIu64 ": %s", what, from, hay_strerror(s))) {
            ok = false;
            break;
        }
        hay_match_list view;
        if (!arrays_view(&a, &view)) {
            ok = false;
            break;
        }
        const hay_match_list *l = &view;
        ok = CHECK(l->n <= cap && l->done >= from && l->done <= len &&
                       (l->n > 0 || l->done == len) && at + l->n <= ref->n,
                   "%s: from %" PRIu64 ": n=%zu done=%" PRIu64 " (len %zu, %zu of %zu matches "
                   "before)", what, from, l->n, l->done, len, at, ref->n);
        for (size_t i = 0; ok && i < l->n; i++) {
            const tu_match *r = &ref->m[at + i];
            ok = CHECK(l->ids[i] == r->id && (!l->starts || l->starts[i] == r->start) &&
                           (!l->ends || l->ends[i] == r->end) && r->end > from &&
                           r->end <= l->done,
                       "%s: from %" PRIu64 ": match %zu: (%u, %" PRIu64 ", %" PRIu64
                       "), hay_scan gave (%u, %" PRIu64 ", %" PRIu64 "), done %" PRIu64,
                       what, from, at + i, l->ids[i], l->starts ? l->starts[i] : 0,
                       l->ends ? l->ends[i] : 0, r->id, r->start, r->end, l->done);
        }
        /* Every match up to done is stored: the next one ends after it. */
        if (ok && at + l->n < ref->n)
            ok = CHECK(ref->m[at + l->n].end > l->done,
                       "%s: from %" PRIu64 ": done %" PRIu64 " but match %zu ends at %" PRIu64
                       " and was not stored", what, from, l->done, at + l->n,
                       ref->m[at + l->n].end);
        at += l->n;
        if (!ok || l->done == len)
            break;
        from = l->done;
        if (!CHECK(calls <= ref->n + 2 * too_large + 2, "%s: %zu calls for %zu matches", what,
                   calls, ref->n)) {
            ok = false;
            break;
        }
    }
    if (ok)
        ok = CHECK(at == ref->n, "%s: %zu matches, hay_scan gave %zu", what, at, ref->n);
    /* The whole list in one call: n == all, done == len. */
    if (ok && h->cap >= ref->n)
        ok = CHECK(calls == 1, "%s: %zu calls with cap >= the %zu matches", what, calls,
                   ref->n);
    arrays_free(&a);
    return ok;
}

static void ref_list(const hay_patterns *set, hay_scratch *sc, const uint8_t *hay,
                     size_t len, tu_mlist *ref)
{
    memset(ref, 0, sizeof *ref);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = 1;
    CHECK_ST(hay_scan(set, sc, hay, len, &o, record_cb, ref), HAY_OK, "hay_scan");
}

/* The caps and ways of one set over one input. */
static void every_way(const char *label, const hay_patterns *set, const uint8_t *hay,
                      size_t len, size_t npats, hay_backend bufb, bool small_caps)
{
    hay_scratch *sc = NULL;
    if (!CHECK(hay_scratch_create(set, &sc) == HAY_OK, "%s: scratch", label))
        return;
    tu_mlist ref;
    ref_list(set, sc, hay, len, &ref);
    size_t whole = ref.n ? ref.n : 1;
    size_t caps[] = { 1, 7, 3000, whole };
    /* A cap of 1 costs a call per end: on the shortest lists only. */
    for (size_t c = !small_caps ? 2 : ref.n > 64 ? 1 : 0; c < 4; c++)
        for (int threaded = 0; threaded < 2; threaded++) {
            how h = { .cap = caps[c], .threaded = threaded };
            check_list(label, set, sc, hay, len, &ref, npats, &h);
        }
    how nulls[] = { { .cap = 7, .no_starts = true }, { .cap = whole, .no_ends = true },
                    { .cap = whole, .no_starts = true, .no_ends = true } };
    for (size_t i = 0; i < 3; i++)
        if (small_caps || nulls[i].cap == whole)
            check_list(label, set, sc, hay, len, &ref, npats, &nulls[i]);
    hay_buffer *buf = NULL;
    if (hay_buffer_create(bufb, hay, len, &buf) == HAY_OK) {
        how hb[] = { { .cap = small_caps ? 7 : 3000, .buf = buf },
                     { .cap = whole, .buf = buf, .threaded = 1 } };
        for (size_t i = 0; i < 2; i++)
            check_list(label, set, sc, hay, len, &ref, npats, &hb[i]);
        hay_buffer_free(buf);
    }
    tu_mlist_free(&ref);
    hay_scratch_free(sc);
}

/* ---- the conformance table and dense inputs ----------------------------------- */

static void case_engine(const tu_case *c, const tu_engine *e, hay_backend bufb)
{
    hay_patterns *set = NULL;
    hay_status s = tu_compile(e, c->pats, c->npats, c->caseless, &set);
    if (s == HAY_ERR_UNSUPPORTED || s == HAY_ERR_TOO_LARGE)
        return;
    if (!CHECK(s == HAY_OK, "compile '%s' on %s: %s", c->name, e->label, hay_strerror(s)))
        return;
    char label[160];
    snprintf(label, sizeof label, "%s '%s'", e->label, c->name);
    /* Caps of 1 and 7 cost a call per few matches: on the short lists. */
    every_way(label, set, c->hay, c->len, c->npats, bufb, c->exp.n <= 300);
    hay_patterns_free(set);
}

/* Duplicates ("ab" twice) and suffixes: up to 4 matches at one end. */
static void dense_engine(const tu_engine *e, hay_backend bufb, size_t len)
{
    uint8_t *hay = tu_dense_text(len);
    if (!CHECK(hay != NULL, "dense input"))
        return;
    for (int mode = HAY_MATCH_ALL; mode <= HAY_MATCH_LEFTMOST_LONGEST; mode++) {
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.backend = e->backend;
        co.algo = e->algo;
        co.params = e->params;
        co.mode = (hay_match_mode)mode;
        hay_patterns *set = NULL;
        hay_status s = hay_patterns_compile(tu_dense_pats, TU_NDENSE, &co, &set);
        if (s == HAY_ERR_UNSUPPORTED || s == HAY_ERR_TOO_LARGE)
            continue;
        if (!CHECK(s == HAY_OK, "compile dense on %s: %s", e->label, hay_strerror(s)))
            continue;
        char label[160];
        snprintf(label, sizeof label, "%s dense %zu mode %d", e->label, len, mode);
        const char *line = want_line;   /* the leftmost modes: the host path */
        want_line = mode == HAY_MATCH_ALL ? line : NULL;
        /* Caps of 1 and 7 on a short prefix: a call per few matches. */
        every_way(label, set, hay, len < 40 ? len : 40, TU_NDENSE, bufb, true);
        every_way(label, set, hay, len < 600 ? len : 600, TU_NDENSE, bufb, true);
        if (len > 600)
            every_way(label, set, hay, len, TU_NDENSE, bufb, false);
        want_line = line;
        hay_patterns_free(set);
    }
    free(hay);
}

/* ---- arguments, empty inputs --------------------------------------------------- */

/* CHECK_ST with a formatted label. */
#define ST_IS(got, want, ...)                                                   \
    do {                                                                        \
        hay_status g_ = (got);                                                  \
        char w_[160];                                                           \
        snprintf(w_, sizeof w_, __VA_ARGS__);                                   \
        CHECK(g_ == (want), "%s: got %s, want %s", w_, hay_strerror(g_),        \
              hay_strerror(want));                                              \
    } while (0)

static void edges(const tu_engine *e, hay_backend bufb)
{
    hay_patterns *set = NULL;
    hay_scratch *sc = NULL;
    if (tu_compile(e, tu_dense_pats, TU_NDENSE, false, &set) != HAY_OK ||
        hay_scratch_create(set, &sc) != HAY_OK) {
        hay_patterns_free(set);
        return;
    }
    uint32_t ids[8];
    uint64_t ends[8];
    hay_match_list l = { ids, NULL, ends, 8, 5, 5 };
    ST_IS(hay_scan_list(set, sc, NULL, 0, 0, NULL, &l), HAY_OK, "%s: len 0", e->label);
    CHECK(l.n == 0 && l.done == 0, "%s: len 0: n=%zu done=%" PRIu64, e->label, l.n, l.done);
    l.n = 5;
    ST_IS(hay_scan_list(set, sc, "abab", 4, 4, NULL, &l), HAY_OK, "%s: from == len",
             e->label);
    CHECK(l.n == 0 && l.done == 4, "%s: from == len: n=%zu done=%" PRIu64, e->label, l.n,
          l.done);
    ST_IS(hay_scan_list(set, sc, "cccc", 4, 0, NULL, &l), HAY_OK, "%s: no match", e->label);
    CHECK(l.n == 0 && l.done == 4, "%s: no match: n=%zu done=%" PRIu64, e->label, l.n, l.done);
    ST_IS(hay_scan_list(set, sc, "abab", 4, 5, NULL, &l), HAY_ERR_INVALID,
             "%s: from > len", e->label);
    l.cap = 0;
    ST_IS(hay_scan_list(set, sc, "abab", 4, 0, NULL, &l), HAY_ERR_INVALID, "%s: cap 0",
             e->label);
    l.cap = 8;
    l.ids = NULL;
    ST_IS(hay_scan_list(set, sc, "abab", 4, 0, NULL, &l), HAY_ERR_INVALID, "%s: no ids",
             e->label);
    l.ids = ids;
    ST_IS(hay_scan_list(set, sc, "abab", 4, 0, NULL, NULL), HAY_ERR_INVALID,
             "%s: no list", e->label);
    ST_IS(hay_scan_list(NULL, sc, "abab", 4, 0, NULL, &l), HAY_ERR_INVALID, "%s: no set",
             e->label);
    ST_IS(hay_scan_list(set, sc, NULL, 4, 0, NULL, &l), HAY_ERR_INVALID, "%s: no data",
             e->label);
    ST_IS(hay_scan_buffer_list(set, sc, NULL, 0, NULL, &l), HAY_ERR_INVALID,
             "%s: no buffer", e->label);
    hay_buffer *buf = NULL;
    if (hay_buffer_create(bufb, "abab", 4, &buf) == HAY_OK) {
        ST_IS(hay_scan_buffer_list(set, sc, buf, 5, NULL, &l), HAY_ERR_INVALID,
                 "%s: buffer, from > len", e->label);
        ST_IS(hay_scan_buffer_list(set, sc, buf, 4, NULL, &l), HAY_OK,
                 "%s: buffer, from == len", e->label);
        CHECK(l.n == 0 && l.done == 4, "%s: buffer, from == len: n=%zu", e->label, l.n);
        hay_buffer_free(buf);
    }
    /* "ab" ends at 2 with ab, b and ab again (3 matches): a cap of 2
     * cannot hold that end. */
    l.cap = 2;
    ST_IS(hay_scan_list(set, sc, "abab", 4, 1, NULL, &l), HAY_ERR_TOO_LARGE,
             "%s: 3 matches at one end, cap 2", e->label);
    CHECK(l.n == 0 && l.done == 1, "%s: too large: n=%zu done=%" PRIu64, e->label, l.n,
          l.done);
    hay_scratch_free(sc);
    hay_patterns_free(set);
}

/* ---- bounded memory ----------------------------------------------------------- */

/* "a" and "aa" over a run of 'a' (2 x bytes - 1 matches) listed into the
 * arrays of a 4M cap, resumed: every match once and in order, and memory
 * that grows with the cap, not with the matches. */
static void bounded(const row *rw, const tu_engine *e)
{
    uint64_t want = tu_scale() < 1 ? (uint64_t)((double)rw->bounded * tu_scale()) | 1
                                   : rw->bounded;
    size_t len = (size_t)(want + 1) / 2, cap = (size_t)1 << 22;
    uint8_t *hay = malloc(len);
    arrays a;
    if (!CHECK(hay != NULL, "bounded: %zu bytes", len) || !arrays_make(&a, cap)) {
        free(hay);
        return;
    }
    memset(hay, 'a', len);
    static const hay_pattern pats[] = { { "a", 1 }, { "aa", 2 } };
    hay_patterns *set = NULL;
    hay_scratch *sc = NULL;
    hay_status s = tu_compile(e, pats, 2, false, &set);
    if (CHECK(s == HAY_OK, "bounded: compile on %s: %s", e->label, hay_strerror(s)) &&
        hay_scratch_create(set, &sc) == HAY_OK) {
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 2;
        /* The first call makes what any call allocates. */
        a.l = (hay_match_list){ a.ids, a.starts, a.ends, cap, 0, 0 };
        s = hay_scan_list(set, sc, hay, len, 0, &o, &a.l);
        uint64_t rss0 = tu_peak_rss_kib(), got = a.l.n, from = a.l.done, calls = 1;
        uint32_t prev_id = 0;
        bool order = true;
        double t0 = tu_now();
        for (uint64_t before = 0;;) {
            /* Match g (0-based) of the whole list: "a" at end 1, then "a"
             * and "aa" (in either order) at every end from 2. */
            for (size_t i = 0; i < a.l.n && order; i++) {
                uint64_t g = before + i, end = g == 0 ? 1 : (g + 1) / 2 + 1;
                uint32_t id = a.ids[i];
                order = id <= 1 && a.ends[i] == end && a.starts[i] == end - 1 - id &&
                        (g % 2 == 1 || g == 0 || id != prev_id);
                prev_id = id;
            }
            before += a.l.n;
            if (s != HAY_OK || !order || a.l.done >= len || calls > want / cap + 3)
                break;
            a.l = (hay_match_list){ a.ids, a.starts, a.ends, cap, 0, 0 };
            s = hay_scan_list(set, sc, hay, len, from, &o, &a.l);
            got += a.l.n;
            from = a.l.done;
            calls++;
        }
        double t = tu_now() - t0;
        uint64_t peak = tu_peak_rss_kib();   /* VmHWM may lag the RSS by a few pages */
        uint64_t grew = peak > rss0 ? peak - rss0 : 0;
        CHECK(s == HAY_OK && got == want && order && a.l.done == len,
              "bounded %s: %s, %" PRIu64 " matches (want %" PRIu64 ") in %" PRIu64
              " calls%s, done %" PRIu64, e->label, hay_strerror(s), got, want, calls,
              order ? "" : ", out of order", a.l.done);
        CHECK(tu_scale() < 1 || rss0 == 0 || grew < 64 * 1024,
              "bounded %s: peak RSS grew by %" PRIu64 " KiB", e->label, grew);
        printf("bounded %s: %" PRIu64 " matches in %" PRIu64 " calls of at most %zu, %.2f s, "
               "peak RSS +%" PRIu64 " KiB\n", e->label, got, calls, cap, t, grew);
    }
    hay_scratch_free(sc);
    hay_patterns_free(set);
    arrays_free(&a);
    free(hay);
}

/* ---- device arrays refused ------------------------------------------------------ */

/* Device arrays on a set of another backend, or mixed with host memory:
 * HAY_ERR_INVALID with a line in the log, nothing written. */
static void refusals(void)
{
    uint32_t *d_ids = cu_alloc(64 * sizeof *d_ids);
    uint64_t *d_ends = cu_alloc(64 * sizeof *d_ends), h_ends[64];
    hay_backend bs[] = { HAY_BACKEND_CPU, HAY_BACKEND_AUTO, HAY_BACKEND_CUDA };
    for (size_t i = 0; d_ids && d_ends && i < 3; i++) {
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.backend = bs[i];
        hay_patterns *set = NULL;
        hay_scratch *sc = NULL;
        if (!CHECK(hay_patterns_compile(tu_dense_pats, TU_NDENSE, &co, &set) == HAY_OK &&
                       hay_scratch_create(set, &sc) == HAY_OK,
                   "refusals: compile on backend %d", (int)bs[i])) {
            hay_patterns_free(set);
            continue;
        }
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        log_seen seen = { "device memory", false };
        o.log = log_cb;
        o.log_ctx = &seen;
        /* CUDA: ends on the host beside device ids; others: all device. */
        bool cuda = bs[i] == HAY_BACKEND_CUDA;
        hay_match_list l = { d_ids, NULL, cuda ? h_ends : d_ends, 64, 5, 5 };
        hay_status s = hay_scan_list(set, sc, "abab", 4, 0, &o, &l);
        CHECK(s == HAY_ERR_INVALID && l.n == 0 && l.done == 0 && seen.seen,
              "refusals: backend %d, %s arrays: %s, n=%zu done=%" PRIu64 ", %s", (int)bs[i],
              cuda ? "mixed" : "device", hay_strerror(s), l.n, l.done,
              seen.seen ? "said why" : "nothing in the log");
        hay_scratch_free(sc);
        hay_patterns_free(set);
    }
    cu_free(d_ids);
    cu_free(d_ends);
}

/* ---- rows --------------------------------------------------------------------- */

static bool row_ready;   /* cur_row's set-up passed (row_setup) */

/* A row's set-up, before its first engine: the arrays' checks and the log
 * line its calls must give.  false: the row cannot run (said why). */
static bool row_setup(const row *rw)
{
    bool cuda = rw->backend == HAY_BACKEND_CUDA;
    if (rw->arrays == ARR_DEVICE && !CHECK(cu_ready(), "%s: no CUDA driver", rw->name))
        return false;
    want_line = !cuda                      ? NULL
                : rw->arrays == ARR_ALLOC  ? "cuda list arrays: pinned"
                : rw->arrays == ARR_DEVICE ? "cuda list arrays: device"
                                           : NULL;
    if (rw->arrays == ARR_ALLOC)
        alloc_api(rw->backend, cuda);
    if (rw->arrays == ARR_DEVICE && !rw->params)
        refusals();
    return true;
}

static void row_engine(const tu_engine *e, hay_backend bufb, const void *ctx)
{
    const row *rw = ctx;
    if (cur_row != rw) {
        cur_row = rw;
        row_ready = row_setup(rw);
    }
    if (!row_ready)
        return;
    for (size_t k = 0; rw->table && k < nc; k++)
        case_engine(&cases[k], e, bufb);
    if (e->multi && rw->dense_len) {
        dense_engine(e, bufb, rw->dense_len);
        edges(e, bufb);
    }
}

static void row_after(const tu_engine *choice, const void *ctx)
{
    const row *rw = ctx;
    if (rw->bounded && row_ready)
        bounded(rw, choice);
    printf("row %s %s: %" PRIu64 " list calls\n", rw->name, rw->params ? rw->params : "",
           list_calls);
    cur_row = NULL;
    want_line = NULL;
    list_calls = 0;
}

int main(int argc, char **argv)
{
    nc = tu_cases_build(&cases);
    bool ran = false;
    for (size_t i = 0; i < NROWS; i++)
        if (tu_part_wanted(argc, argv, rows[i].name))
            ran |= tu_row_run(rows[i].name, rows[i].backend, rows[i].params, row_engine,
                              row_after, &rows[i]);
    tu_cases_free(cases, nc);
    return tu_rows_exit(ran);
}
