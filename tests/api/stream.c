/*
 * stream.c - the conformance table (cases.c) fed through hay_stream_open /
 * write / close on every engine: one write, every two-way split, three-way
 * splits, 1-byte writes, 0-length writes between pieces, random pieces,
 * padding before the case, two streams of one set interleaved, and stops.
 * Every match must come exactly once, with offsets counted from the
 * opening of the stream, in order of end.
 */
#include "cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENGINES 32
#define MAX_PIECES 4096
#define ALL_PAIRS_MAX_LEN 48
#define RANDOM_SPLITS 24

typedef struct feed {
    size_t cut[MAX_PIECES];   /* piece i is [cut[i], cut[i + 1]), the last */
    size_t n;                 /* [cut[n - 1], len); n pieces */
    bool empties;             /* 0-length writes (NULL and not) between pieces */
} feed;

static void feed_init(feed *f)
{
    f->n = 0;
    f->empties = false;
    f->cut[f->n++] = 0;
}

static void feed_cut(feed *f, size_t at)
{
    if (f->n < MAX_PIECES)
        f->cut[f->n++] = at;
}

static const char *describe(const feed *f, char *buf, size_t cap)
{
    size_t k = (size_t)snprintf(buf, cap, "pieces at");
    for (size_t i = 0; i < f->n && k + 16 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, " %zu", f->cut[i]);
    if (k + 16 >= cap)
        snprintf(buf + cap - 5, 5, "...");
    return buf;
}

typedef struct sctx {
    const tu_case *c;
    const tu_engine *e;
    const hay_patterns *set;
} sctx;

/*
 * Writes data[0, len) in the pieces of f.  With stop_after = k the
 * callback stops at the k-th match: the write that saw it and every later
 * one must return HAY_STOPPED, with no further callbacks.  When record is
 * given, the reported matches are appended to it.
 */
static void feed_run(const sctx *x, const uint8_t *data, size_t len,
                     uint64_t shift, const feed *f, uint64_t stop_after,
                     const tu_mlist *ref, tu_mlist *record, const char *what)
{
    tu_checker ck;
    tu_checker_init(&ck, &x->c->exp, shift, x->c->pats, x->c->npats);
    ck.stop_after = stop_after;
    ck.ref = ref;
    ck.ref_shift = shift;
    ck.record = record;
    hay_stream *st = TU_NOT_NULL;
    hay_status s = hay_stream_open(x->set, tu_check_cb, &ck, &st);
    char buf[256];
    if (!CHECK(s == HAY_OK && st, "stream_open '%s' %s: %s", x->c->name,
               x->e->label, hay_strerror(s)))
        return;
    bool stopped = false, ok = true;
    hay_status bad = HAY_OK;
    for (size_t i = 0; i < f->n; i++) {
        size_t a = f->cut[i], b = i + 1 < f->n ? f->cut[i + 1] : len;
        if (b < a)
            b = a;
        if (f->empties) {
            hay_status e1 = hay_stream_write(st, data + a, 0);
            hay_status e2 = hay_stream_write(st, NULL, 0);
            hay_status want = stopped ? HAY_STOPPED : HAY_OK;
            if (e1 != want || e2 != want) {
                ok = false;
                bad = e1 != want ? e1 : e2;
            }
        }
        uint64_t before = ck.calls;
        s = hay_stream_write(st, data + a, b - a);
        if (stopped) {
            if (s != HAY_STOPPED || ck.calls != before) {
                ok = false;
                bad = s;
            }
        } else if (s == HAY_STOPPED && stop_after && ck.calls == stop_after) {
            stopped = true;
        } else if (s != HAY_OK) {
            ok = false;
            bad = s;
        }
    }
    if (stop_after && !stopped) {
        /* Not stopped: every match came first, so fewer than k exist. */
        ok = ok && ck.calls < stop_after && ck.calls == x->c->exp.n;
    }
    hay_status cs = hay_stream_close(st);
    hay_stream_free(st);
    bool agree = tu_checker_done(&ck, stopped);
    CHECK(ok && cs == HAY_OK && agree,
          "stream '%s' %s %s (%s%s): %s%s, close %s; %s", x->c->name,
          x->e->label, what, describe(f, buf, sizeof buf),
          f->empties ? ", with empty writes" : "",
          ok ? "writes ok" : "write returned ", ok ? "" : hay_strerror(bad),
          hay_strerror(cs), agree ? "matches agree" : ck.err);
    tu_checker_free(&ck);
}

static void run_case_engine(const tu_case *c, const tu_engine *e)
{
    hay_patterns *set = NULL;
    hay_status s = tu_compile(e, c->pats, c->npats, c->caseless, &set);
    if (s == HAY_ERR_UNSUPPORTED && (c->npats > 1 || e->backend != HAY_BACKEND_CPU))
        return;   /* one-pattern engines; conformance checks the status */
    if (s == HAY_ERR_TOO_LARGE && c->npats > 64 && e->algo && strcmp(e->algo, "teddy") == 0)
        return;   /* teddy's limit (src/cpu/teddy.h); conformance checks it too */
    if (!CHECK(s == HAY_OK, "compile '%s' on %s: %s", c->name, e->label,
               hay_strerror(s)))
        return;
    sctx x = { c, e, set };
    {
        /* A backend without streams must say so cleanly. */
        hay_stream *st = NULL;
        s = hay_stream_open(set, tu_check_cb, NULL, &st);
        hay_stream_close(st);
        hay_stream_free(st);
        if (s == HAY_ERR_UNSUPPORTED && e->backend != HAY_BACKEND_CPU &&
            e->backend != HAY_BACKEND_AUTO) {
            CHECK(st == NULL, "stream_open unsupported but set the stream");
            hay_patterns_free(set);
            return;
        }
    }
    const size_t len = c->len;
    size_t maxlen = 0;
    for (size_t i = 0; i < c->npats; i++)
        if (c->pats[i].len > maxlen)
            maxlen = c->pats[i].len;
    feed *f = malloc(sizeof *f);

    /* One write; it is also the reference for the stop tests. */
    tu_mlist ref = { 0 };
    feed_init(f);
    feed_run(&x, c->hay, len, 0, f, 0, NULL, &ref, "one write");

    /* Every two-way split. */
    for (size_t p = 0; p <= len; p++) {
        feed_init(f);
        feed_cut(f, p);
        f->empties = p % 5 == 0;
        feed_run(&x, c->hay, len, 0, f, 0, &ref, NULL, "two writes");
    }
    /* Three-way splits: all of them for short cases, else the middle
     * piece 0..3 bytes or about the longest pattern long. */
    for (size_t p = 0; p <= len; p++) {
        static const int near[] = { 0, 1, 2, 3, -2, -1, 0, 1 };
        size_t nq = len <= ALL_PAIRS_MAX_LEN ? len - p + 1 : 8;
        for (size_t k = 0; k < nq; k++) {
            size_t q;
            if (len <= ALL_PAIRS_MAX_LEN)
                q = p + k;
            else if (k < 4)
                q = p + (size_t)near[k];
            else
                q = p + maxlen + (size_t)(ptrdiff_t)near[k];
            if (q < p || q > len)
                continue;
            feed_init(f);
            feed_cut(f, p);
            feed_cut(f, q);
            feed_run(&x, c->hay, len, 0, f, 0, &ref, NULL, "three writes");
        }
    }
    /* 1-byte writes, with and without empty writes between them. */
    for (int empties = 0; empties < 2; empties++) {
        feed_init(f);
        for (size_t p = 1; p < len; p++)
            feed_cut(f, p);
        f->empties = empties;
        feed_run(&x, c->hay, len, 0, f, 0, &ref, NULL, "1-byte writes");
    }
    /* Random pieces, up to twice the longest pattern. */
    tu_rng r = { 0x5eed + len };
    for (int k = 0; k < RANDOM_SPLITS; k++) {
        feed_init(f);
        for (size_t p = 0; p < len;) {
            p += tu_below(&r, 2 * maxlen + 2);
            feed_cut(f, p < len ? p : len);
        }
        f->empties = k % 2;
        feed_run(&x, c->hay, len, 0, f, 0, &ref, NULL, "random writes");
    }
    /* Padding before (offsets shift) and after, cut in the middle. */
    for (size_t pb = 0; pb <= 34; pb++) {
        size_t pa = 34 - pb;
        uint8_t *buf = tu_case_padded(c, pb, pa);
        feed_init(f);
        feed_cut(f, pb + len / 2);
        feed_run(&x, buf, pb + len + pa, pb, f, 0, &ref, NULL, "padded");
        feed_init(f);
        feed_cut(f, pb);
        feed_cut(f, pb + len);
        feed_run(&x, buf, pb + len + pa, pb, f, 0, &ref, NULL, "padded, case alone");
        free(buf);
    }
    /* Stops: at the first, a middle and the last match. */
    if (c->exp.n) {
        uint64_t ks[3] = { 1, (c->exp.n + 1) / 2, c->exp.n };
        for (int i = 0; i < 3; i++) {
            feed_init(f);
            feed_run(&x, c->hay, len, 0, f, ks[i], &ref, NULL, "stop, one write");
            feed_init(f);
            for (size_t p = 1; p < len; p++)
                feed_cut(f, p);
            f->empties = true;
            feed_run(&x, c->hay, len, 0, f, ks[i], &ref, NULL, "stop, 1-byte writes");
        }
    }
    /* Two streams of one set, written in turns. */
    {
        tu_checker a, b;
        tu_checker_init(&a, &c->exp, 0, c->pats, c->npats);
        tu_checker_init(&b, &c->exp, 0, c->pats, c->npats);
        hay_stream *sa = NULL, *sb = NULL;
        hay_status s1 = hay_stream_open(set, tu_check_cb, &a, &sa);
        hay_status s2 = hay_stream_open(set, tu_check_cb, &b, &sb);
        bool ok = s1 == HAY_OK && s2 == HAY_OK;
        for (size_t p = 0; ok && p < len; p += 3) {
            size_t n = len - p < 3 ? len - p : 3;
            ok = hay_stream_write(sa, c->hay + p, n) == HAY_OK &&
                 hay_stream_write(sb, c->hay + p, 1) == HAY_OK &&
                 hay_stream_write(sb, c->hay + p + 1, n - 1) == HAY_OK;
        }
        ok = hay_stream_close(sa) == HAY_OK && ok;
        hay_stream_free(sa);
        ok = hay_stream_close(sb) == HAY_OK && ok;
        hay_stream_free(sb);
        bool da = tu_checker_done(&a, false), db = tu_checker_done(&b, false);
        CHECK(ok && da && db, "two streams '%s' %s: %s; %s; %s", c->name,
              e->label, ok ? "calls ok" : "a call failed", da ? "a ok" : a.err,
              db ? "b ok" : b.err);
        tu_checker_free(&a);
        tu_checker_free(&b);
    }
    free(f);
    tu_mlist_free(&ref);
    hay_patterns_free(set);
}

static int count_one(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id;
    (void)start;
    (void)end;
    ++*(size_t *)ctx;
    return 0;
}

/* A stream after hay_stream_close: what the header promises
 * (HAY_ERR_STATE), in every match mode. */
static void after_close(void)
{
    static const hay_match_mode modes[] = { HAY_MATCH_ALL,
                                            HAY_MATCH_LEFTMOST_FIRST,
                                            HAY_MATCH_LEFTMOST_LONGEST };
    const hay_pattern pat = { (const uint8_t *)"abc", 3 };
    for (size_t m = 0; m < 3; m++) {
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.mode = modes[m];
        hay_patterns *set = NULL;
        if (!CHECK(hay_patterns_compile(&pat, 1, &co, &set) == HAY_OK,
                   "after_close: compile, mode %zu", m))
            continue;
        hay_stream *st = NULL;
        size_t n = 0;
        CHECK_ST(hay_stream_open(set, count_one, &n, &st), HAY_OK,
                 "after_close: open");
        CHECK_ST(hay_stream_write(st, "xxab", 4), HAY_OK, "write");
        CHECK_ST(hay_stream_write(st, "cxx", 3), HAY_OK, "write");
        CHECK_ST(hay_stream_close(st), HAY_OK, "close");
        CHECK(n == 1, "after_close: %zu matches before the close", n);
        CHECK_ST(hay_stream_write(st, "abc", 3), HAY_ERR_STATE,
                 "write after close");
        CHECK_ST(hay_stream_write(st, NULL, 0), HAY_ERR_STATE,
                 "empty write after close");
        CHECK_ST(hay_stream_close(st), HAY_ERR_STATE, "close after close");
        CHECK(n == 1, "after_close: %zu matches after the close", n);
        hay_stream_free(st);
        /* Freed unclosed: the pending leftmost match is not reported. */
        st = NULL;
        n = 0;
        CHECK_ST(hay_stream_open(set, count_one, &n, &st), HAY_OK, "open");
        CHECK_ST(hay_stream_write(st, "abc", 3), HAY_OK, "write");
        hay_stream_free(st);
        CHECK(n == (modes[m] == HAY_MATCH_ALL), "after_close: %zu matches "
              "from a stream freed unclosed", n);
        hay_patterns_free(set);
    }
}

int main(void)
{
    after_close();
    static const hay_backend backends[] = { HAY_BACKEND_CPU, HAY_BACKEND_CUDA,
                                            HAY_BACKEND_OPENCL };
    tu_engine engines[MAX_ENGINES];
    size_t ne = 0;
    for (size_t b = 0; b < 3; b++) {
        hay_status av = hay_backend_available(backends[b]);
        if (av != HAY_OK) {
            printf("SKIP: backend %s: %s\n", hay_backend_name(backends[b]),
                   hay_strerror(av));
            continue;
        }
        ne += tu_engines(backends[b], engines + ne, MAX_ENGINES - ne);
    }
    tu_case *cases;
    size_t nc = tu_cases_build(&cases);
    for (size_t i = 0; i < nc; i++) {
        double t0 = tu_now();
        for (size_t k = 0; k < ne; k++)
            run_case_engine(&cases[i], &engines[k]);
        printf("case %-44s %7.3f s\n", cases[i].name, tu_now() - t0);
        fflush(stdout);
    }
    printf("%zu cases x %zu engines\n", nc, ne);
    tu_cases_free(cases, nc);
    return tu_finish();
}
