/*
 * batch.c - the batch interface (hay_scan_batch, hay_scan_buffer_batch,
 * hay_stream_open_batch) against the per-match calls and the oracle, on
 * every backend:
 *
 *   every engine of the row x the conformance table (cases.c): the batches,
 *   serially and on 3 threads with 7-byte chunks, give exactly the sequence
 *   hay_scan gives (ties included) and the oracle's matches; the same
 *   through a buffer and (CPU engines) a stream written in 3-byte pieces;
 *   stops at the 1st, 2nd and 7th batch of a dense input: HAY_STOPPED, no
 *   batch after, and what came is a prefix of hay_scan's list; the leftmost
 *   modes; no matches, empty input, bad arguments, a scan from a batch
 *   callback on the same scratch (the last batch included); and 10^8
 *   matches through bounded memory (peak RSS and every batch's size).
 *
 *   test_batch [cpu|opencl|cuda|auto-gpu|auto-split ...]  (default: all)
 *
 * A row whose backend is missing is named and skipped; the test exits 77
 * only when every row asked for was skipped.
 */
#include "cases.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    const char *name;
    hay_backend backend;   /* whose engines are listed; AUTO: one auto engine */
    const char *params;
    uint64_t bounded;      /* matches of the bounded-memory part (0: none) */
} row;

static const row rows[] = {
    { "cpu", HAY_BACKEND_CPU, NULL, 100000001 },
    { "opencl", HAY_BACKEND_OPENCL, NULL, 10000001 },
    { "cuda", HAY_BACKEND_CUDA, NULL, 100000001 },
    /* Auto sent to the GPU for every input (the CPU without one). */
    { "auto-gpu", HAY_BACKEND_AUTO, "gpu_min=0", 0 },
    /* The split with a host thread in the GPU's place. */
    { "auto-split", HAY_BACKEND_AUTO, "split=emulate,split_piece=4K,chunk=3K", 0 },
};
#define NROWS (sizeof rows / sizeof rows[0])

static tu_case *cases;   /* the conformance table (tests/common/cases.h) */
static size_t nc;

/* ---- the batch callback ---------------------------------------------------- */

typedef struct bctx {
    tu_mlist got;          /* every match received */
    uint64_t batches;
    uint64_t stop_at;      /* return 1 on this batch (1-based); 0: never */
    bool stopped;
    bool bad;              /* a batch after the stop, or a malformed one */
    char err[160];
    size_t max_n;
    /* With scratch set: a scan from inside the callback must be refused. */
    const hay_patterns *set;
    hay_scratch *scratch;
    uint64_t reentered;
} bctx;

static int refuse_cb(const hay_match *m, size_t n, void *ctx)
{
    (void)m; (void)n; (void)ctx;
    return 0;
}

static int batch_cb(const hay_match *m, size_t n, void *ctx)
{
    bctx *b = ctx;
    b->batches++;
    if (!b->bad && (b->stopped || !m || n == 0 || n > HAY_BATCH_MAX)) {
        b->bad = true;
        snprintf(b->err, sizeof b->err, "batch %" PRIu64 " of %zu matches%s",
                 b->batches, n, b->stopped ? " after the stop" : "");
    }
    if (n > b->max_n)
        b->max_n = n;
    for (size_t i = 0; m && i < n && i <= HAY_BATCH_MAX; i++) {
        if (m[i].reserved != 0 && !b->bad) {
            b->bad = true;
            snprintf(b->err, sizeof b->err, "reserved = %u", m[i].reserved);
        }
        tu_mlist_push(&b->got, m[i].id, m[i].start, m[i].end);
    }
    if (b->scratch) {
        hay_status s = hay_scan_batch(b->set, b->scratch, "x", 1, NULL, refuse_cb, NULL);
        b->reentered += s == HAY_ERR_SCRATCH_IN_USE;
    }
    if (b->stop_at && b->batches == b->stop_at) {
        b->stopped = true;
        return 1;
    }
    return 0;
}

static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_mlist_push(ctx, id, start, end);
    return 0;
}

/* Whether got is ref's first got->n matches (all of them when whole). */
static bool prefix_of(const tu_mlist *got, const tu_mlist *ref, bool whole, char *why,
                      size_t cap)
{
    if (got->n > ref->n || (whole && got->n != ref->n)) {
        snprintf(why, cap, "%zu matches, the per-match call gave %zu", got->n, ref->n);
        return false;
    }
    for (size_t i = 0; i < got->n; i++) {
        const tu_match *a = &got->m[i], *r = &ref->m[i];
        if (a->id != r->id || a->start != r->start || a->end != r->end) {
            snprintf(why, cap, "match %zu: (%u, %" PRIu64 ", %" PRIu64 "), per-match gave "
                     "(%u, %" PRIu64 ", %" PRIu64 ")", i, a->id, a->start, a->end, r->id,
                     r->start, r->end);
            return false;
        }
    }
    return true;
}

/* got against the oracle's list (ALL mode), through the shared checker. */
static bool oracle_agrees(const tu_case *c, const tu_mlist *got, char *why, size_t cap)
{
    tu_checker ck;
    tu_checker_init(&ck, &c->exp, 0, c->pats, c->npats);
    for (size_t i = 0; i < got->n; i++)
        tu_check_cb(got->m[i].id, got->m[i].start, got->m[i].end, &ck);
    bool ok = tu_checker_done(&ck, false);
    if (!ok)
        snprintf(why, cap, "oracle: %.150s", ck.err);
    tu_checker_free(&ck);
    return ok;
}

/* ---- one set, several ways ------------------------------------------------- */

typedef struct run {
    const char *label;          /* engine */
    const hay_patterns *set;
    hay_scratch *sc;
    const uint8_t *hay;
    size_t len;
    tu_mlist ref;               /* hay_scan, serial */
    tu_mlist sref;              /* hay_stream_open, one write: a stream may
                                 * run another engine than the scan (a GPU
                                 * set's streams run on the CPU), so ties
                                 * may come in another order */
} run;

static hay_scan_opts opts_of(int threaded)
{
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threaded ? 3 : 1;
    o.chunk_size = threaded ? 7 : 0;
    return o;
}

/* hay_scan_batch (or, with buf, hay_scan_buffer_batch) stopping at batch
 * stop_at (0: never): the status, the batches and what came. */
static void check_batch(const run *r, const char *what, const hay_buffer *buf,
                        int threaded, uint64_t stop_at, const tu_case *c)
{
    hay_scan_opts o = opts_of(threaded);
    bctx b = { .stop_at = stop_at };
    hay_status s = buf ? hay_scan_buffer_batch(r->set, r->sc, buf, &o, batch_cb, &b)
                       : hay_scan_batch(r->set, r->sc, r->hay, r->len, &o, batch_cb, &b);
    /* Stopping at batch k of fewer batches is no stop; batches hold at most
     * HAY_BATCH_MAX matches, so there are at least this many. */
    uint64_t batches_min = (r->ref.n + HAY_BATCH_MAX - 1) / HAY_BATCH_MAX;
    bool stops = b.stopped;
    CHECK(!stop_at || stops == (b.batches >= stop_at) || stop_at > batches_min,
          "%s: %" PRIu64 " batches, stop_at %" PRIu64 " not honoured", r->label, b.batches,
          stop_at);
    char why[600] = "";
    bool ok = prefix_of(&b.got, &r->ref, !stops, why, sizeof why);
    if (ok && c)
        ok = oracle_agrees(c, &b.got, why, sizeof why);
    if (ok && b.bad)
        snprintf(why, sizeof why, "%s", b.err);
    CHECK(ok && !b.bad && s == (stops ? HAY_STOPPED : HAY_OK) &&
              (!stops || b.batches == stop_at) && (b.batches > 0) == (r->ref.n > 0),
          "%s %s %s threads=%d stop_at=%" PRIu64 ": %s, %" PRIu64 " batches, %s", r->label,
          c ? c->name : "", what, threaded ? 3 : 1, stop_at, hay_strerror(s), b.batches,
          why[0] ? why : "same matches");
    tu_mlist_free(&b.got);
}

/* A batched stream written in `piece`-byte writes: after each write, the
 * matches ending in what was written have come (ALL mode); a stop at
 * batch stop_at makes that write and every later one HAY_STOPPED. */
static void check_stream(const run *r, size_t piece, uint64_t stop_at, bool all_mode,
                         const tu_case *c)
{
    bctx b = { .stop_at = stop_at };
    hay_stream *st = TU_NOT_NULL;
    hay_status s = hay_stream_open_batch(r->set, batch_cb, &b, &st);
    if (s == HAY_ERR_UNSUPPORTED) {
        CHECK(st == NULL, "%s: stream unsupported but *out set", r->label);
        return;
    }
    if (!CHECK(s == HAY_OK && st, "%s: stream_open_batch: %s", r->label, hay_strerror(s)))
        return;
    bool ok = true, stopped = false;
    size_t ref_at = 0;
    for (size_t p = 0; p < r->len && ok; p += piece) {
        size_t n = r->len - p < piece ? r->len - p : piece;
        uint64_t before = b.batches;
        s = hay_stream_write(st, r->hay + p, n);
        if (stopped) {
            ok = s == HAY_STOPPED && b.batches == before;
            continue;
        }
        stopped = s == HAY_STOPPED;
        ok = s == HAY_OK || (stopped && b.stopped);
        while (ref_at < r->sref.n && r->sref.m[ref_at].end <= p + n)
            ref_at++;
        if (all_mode && !stopped)
            ok = ok && b.got.n == ref_at;   /* nothing held back past a write */
    }
    hay_status cs = hay_stream_close(st);
    hay_stream_free(st);
    char why[600] = "";
    ok = ok && cs == HAY_OK && !b.bad;
    if (ok && !prefix_of(&b.got, &r->sref, !stopped, why, sizeof why))
        ok = false;
    if (ok && c && !oracle_agrees(c, &b.got, why, sizeof why))
        ok = false;
    CHECK(ok && stopped == (stop_at && b.batches >= stop_at),
          "%s %s stream piece=%zu stop_at=%" PRIu64 ": write %s close %s, %" PRIu64
          " batches %s%s", r->label, c ? c->name : "", piece, stop_at, hay_strerror(s),
          hay_strerror(cs), b.batches, why, b.bad ? b.err : "");
    tu_mlist_free(&b.got);
}

static bool run_open(run *r, const char *label, const hay_patterns *set, const uint8_t *hay,
                     size_t len)
{
    memset(r, 0, sizeof *r);
    r->label = label;
    r->set = set;
    r->hay = hay;
    r->len = len;
    if (!CHECK(hay_scratch_create(set, &r->sc) == HAY_OK, "%s: scratch", label))
        return false;
    hay_scan_opts o = opts_of(0);
    hay_status s = hay_scan(set, r->sc, hay, len, &o, record_cb, &r->ref);
    hay_stream *st = NULL;
    if (hay_stream_open(set, record_cb, &r->sref, &st) == HAY_OK) {
        hay_stream_write(st, hay, len);
        hay_stream_close(st);
    }
    hay_stream_free(st);
    return CHECK(s == HAY_OK, "%s: hay_scan: %s", label, hay_strerror(s));
}

static void run_close(run *r)
{
    hay_scratch_free(r->sc);
    tu_mlist_free(&r->ref);
    tu_mlist_free(&r->sref);
}

/* Every way on one case of the table. */
static void case_engine(const tu_case *c, const tu_engine *e, hay_backend bufb)
{
    hay_patterns *set = NULL;
    hay_status s = tu_compile(e, c->pats, c->npats, c->caseless, &set);
    if (s == HAY_ERR_UNSUPPORTED || s == HAY_ERR_TOO_LARGE)
        return;   /* one-pattern engines, teddy's limit: conformance checks those */
    if (!CHECK(s == HAY_OK, "compile '%s' on %s: %s", c->name, e->label, hay_strerror(s)))
        return;
    run r;
    if (run_open(&r, e->label, set, c->hay, c->len)) {
        for (int threaded = 0; threaded < 2; threaded++)
            check_batch(&r, "scan", NULL, threaded, 0, c);
        hay_buffer *buf = NULL;
        if (hay_buffer_create(bufb, c->hay, c->len, &buf) == HAY_OK) {
            check_batch(&r, "buffer", buf, 0, 0, c);
            hay_buffer_free(buf);
        }
        check_stream(&r, 3, 0, true, c);
    }
    run_close(&r);
    hay_patterns_free(set);
}

/* ---- dense inputs: several batches ------------------------------------------ */

static hay_status compile_mode(const tu_engine *e, const hay_pattern *p, size_t n,
                               hay_match_mode mode, hay_patterns **set)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = e->backend;
    o.algo = e->algo;
    o.params = e->params;
    o.mode = mode;
    return hay_patterns_compile(p, n, &o, set);
}

/* Stops, the leftmost modes and the scratch held through the last batch,
 * on one multi-pattern engine. */
static void dense_engine(const tu_engine *e, hay_backend bufb)
{
    size_t len = 30000;   /* about 40,000 matches: ten batches */
    uint8_t *hay = tu_dense_text(len);
    for (int mode = HAY_MATCH_ALL; mode <= HAY_MATCH_LEFTMOST_LONGEST; mode++) {
        hay_patterns *set = NULL;
        hay_status s = compile_mode(e, tu_dense_pats, TU_NDENSE, (hay_match_mode)mode, &set);
        if (s == HAY_ERR_UNSUPPORTED || s == HAY_ERR_TOO_LARGE)
            continue;
        if (!CHECK(s == HAY_OK, "compile dense on %s: %s", e->label, hay_strerror(s)))
            continue;
        char label[96];
        snprintf(label, sizeof label, "%s dense mode %d", e->label, mode);
        run r;
        if (run_open(&r, label, set, hay, len)) {
            CHECK(mode != HAY_MATCH_ALL || r.ref.n > 4 * HAY_BATCH_MAX,
                  "%s: %zu matches, want several batches", label, r.ref.n);
            static const uint64_t stops[] = { 0, 1, 2, 7 };
            for (size_t k = 0; k < 4; k++)
                for (int threaded = 0; threaded < 2; threaded++)
                    check_batch(&r, "scan", NULL, threaded, stops[k], NULL);
            hay_buffer *buf = NULL;
            if (hay_buffer_create(bufb, hay, len, &buf) == HAY_OK) {
                check_batch(&r, "buffer", buf, 1, 0, NULL);
                check_batch(&r, "buffer", buf, 1, 2, NULL);
                hay_buffer_free(buf);
            }
            check_stream(&r, 1000, 0, mode == HAY_MATCH_ALL, NULL);
            check_stream(&r, 1000, 3, mode == HAY_MATCH_ALL, NULL);
            check_stream(&r, 7, 2, mode == HAY_MATCH_ALL, NULL);
        }
        run_close(&r);
        hay_patterns_free(set);
    }

    /* A scan from inside a batch callback, on the scratch of the scan that
     * calls it, is refused: for the full batches and for the last one,
     * handed over after the engine is done. */
    hay_patterns *set = NULL;
    if (compile_mode(e, tu_dense_pats, TU_NDENSE, HAY_MATCH_ALL, &set) == HAY_OK) {
        hay_scratch *sc = NULL;
        hay_scratch_create(set, &sc);
        for (size_t n = 100; n <= len; n += len - 100) {
            bctx b = { .set = set, .scratch = sc };
            hay_status s = hay_scan_batch(set, sc, hay, n, NULL, batch_cb, &b);
            CHECK(s == HAY_OK && b.batches > 0 && b.reentered == b.batches,
                  "%s: scan from the callback: %s, %" PRIu64 " of %" PRIu64 " refused",
                  e->label, hay_strerror(s), b.reentered, b.batches);
            tu_mlist_free(&b.got);
        }
        /* No matches, and an empty input: no batch at all. */
        bctx b = { 0 };
        CHECK_ST(hay_scan_batch(set, sc, "cccccccc", 8, NULL, batch_cb, &b), HAY_OK,
                 "no matches");
        CHECK_ST(hay_scan_batch(set, sc, NULL, 0, NULL, batch_cb, &b), HAY_OK, "empty");
        CHECK(b.batches == 0, "%s: %" PRIu64 " batches without matches", e->label,
              b.batches);
        hay_scratch_free(sc);
    }
    hay_patterns_free(set);
    free(hay);
}

/* ---- bounded memory --------------------------------------------------------- */

typedef struct bound_ctx {
    uint64_t matches, batches, last_end;
    size_t max_n;
    bool disorder;
} bound_ctx;

static int bound_cb(const hay_match *m, size_t n, void *ctx)
{
    bound_ctx *b = ctx;
    b->batches++;
    b->matches += n;
    if (n > b->max_n)
        b->max_n = n;
    for (size_t i = 0; i < n; i++) {
        b->disorder |= m[i].end < b->last_end || m[i].end - m[i].start != 1 + m[i].id;
        b->last_end = m[i].end;
    }
    return 0;
}

/* "a" and "aa" over a run of 'a': want matches (2 x bytes - 1) on two
 * threads, in batches of at most HAY_BATCH_MAX, and peak memory that does
 * not grow with the matches (held, 10^8 would be 2.4 GB). */
static void bounded(const row *rw, const tu_engine *e)
{
    uint64_t want = tu_scale() < 1 ? (uint64_t)((double)rw->bounded * tu_scale()) | 1
                                   : rw->bounded;
    size_t len = (size_t)(want + 1) / 2;
    uint8_t *hay = malloc(len);
    if (!CHECK(hay != NULL, "bounded: %zu bytes", len))
        return;
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
        /* A first scan of an eighth of the input makes what any scan
         * allocates (match buffers, a GPU's pipeline and pinned staging):
         * the whole input may then add nothing that grows with matches. */
        bound_ctx b = { 0 };
        s = hay_scan_batch(set, sc, hay, len / 8, &o, bound_cb, &b);
        CHECK(s == HAY_OK && b.matches == len / 8 * 2 - 1, "bounded %s: warm-up: %s, %"
              PRIu64 " matches", e->label, hay_strerror(s), b.matches);
        memset(&b, 0, sizeof b);
        uint64_t rss0 = tu_peak_rss_kib();
        double t0 = tu_now();
        s = hay_scan_batch(set, sc, hay, len, &o, bound_cb, &b);
        double t = tu_now() - t0;
        uint64_t peak = tu_peak_rss_kib();   /* VmHWM may lag the RSS by a few pages */
        uint64_t grew = peak > rss0 ? peak - rss0 : 0;
        CHECK(s == HAY_OK && b.matches == want && !b.disorder && b.max_n <= HAY_BATCH_MAX &&
                  b.batches >= want / HAY_BATCH_MAX,
              "bounded %s: %s, %" PRIu64 " matches (want %" PRIu64 ") in %" PRIu64
              " batches of at most %zu%s", e->label, hay_strerror(s), b.matches, want,
              b.batches, b.max_n, b.disorder ? ", out of order" : "");
        /* RSS is meaningless under AddressSanitizer (scale < 1). */
        CHECK(tu_scale() < 1 || rss0 == 0 || grew < 64 * 1024,
              "bounded %s: peak RSS grew by %" PRIu64 " KiB", e->label, grew);
        printf("bounded %s: %" PRIu64 " matches in %" PRIu64 " batches, %.2f s, peak RSS "
               "+%" PRIu64 " KiB\n", e->label, b.matches, b.batches, t, grew);
    }
    hay_scratch_free(sc);
    hay_patterns_free(set);
    free(hay);
}

/* ---- rows ------------------------------------------------------------------- */

static void bad_arguments(void)
{
    static const hay_pattern p = { "a", 1 };
    hay_patterns *set = NULL;
    hay_scratch *sc = NULL;
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_CPU;
    if (hay_patterns_compile(&p, 1, &o, &set) != HAY_OK || hay_scratch_create(set, &sc))
        return;
    CHECK_ST(hay_scan_batch(set, sc, "a", 1, NULL, NULL, NULL), HAY_ERR_INVALID,
             "scan_batch without a callback");
    CHECK_ST(hay_scan_batch(NULL, sc, "a", 1, NULL, refuse_cb, NULL), HAY_ERR_INVALID,
             "scan_batch without a set");
    CHECK_ST(hay_scan_buffer_batch(set, sc, NULL, NULL, refuse_cb, NULL), HAY_ERR_INVALID,
             "scan_buffer_batch without a buffer");
    hay_stream *st = TU_NOT_NULL;
    CHECK_ST(hay_stream_open_batch(set, NULL, NULL, &st), HAY_ERR_INVALID,
             "stream_open_batch without a callback");
    CHECK(st == NULL, "stream_open_batch failed but set *out");
    hay_scratch_free(sc);
    hay_patterns_free(set);
}

static void row_engine(const tu_engine *e, hay_backend bufb, const void *ctx)
{
    (void)ctx;
    for (size_t k = 0; k < nc; k++)
        case_engine(&cases[k], e, bufb);
    if (e->multi)
        dense_engine(e, bufb);
}

static void row_after(const tu_engine *choice, const void *ctx)
{
    const row *rw = ctx;
    if (rw->bounded)
        bounded(rw, choice);
}

int main(int argc, char **argv)
{
    nc = tu_cases_build(&cases);
    bad_arguments();
    bool ran = false;
    for (size_t i = 0; i < NROWS; i++)
        if (tu_part_wanted(argc, argv, rows[i].name))
            ran |= tu_row_run(rows[i].name, rows[i].backend, rows[i].params, row_engine,
                              row_after, &rows[i]);
    tu_cases_free(cases, nc);
    return tu_rows_exit(ran);
}
