/*
 * allocators.c - custom allocators through the public API, on every CPU
 * engine: every allocation of compile, scratch, scans (one and three
 * threads) and streams comes through the caller's functions with the
 * caller's ctx and is freed; an allocation failing at each k-th call (or
 * from it on) gives HAY_ERR_NOMEM with *out NULL, never a leak or a crash.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENGINES 32

static tu_engine engines[MAX_ENGINES];
static size_t nengines;

/* ---- allocators --------------------------------------------------------------------------- */

#define ALLOC_MAGIC 0x68617973u

typedef struct alloc_ctx {
    unsigned magic;        /* the ctx given is the ctx received */
    atomic_llong calls, allocs, frees, live_bytes;
    long long fail_at;     /* 1-based call that fails; 0 = none */
    bool fail_after;       /* ... and every call after it */
    atomic_bool failed;
} alloc_ctx;

static void alloc_reset(alloc_ctx *a, long long fail_at, bool fail_after)
{
    memset(a, 0, sizeof *a);
    a->magic = ALLOC_MAGIC;
    a->fail_at = fail_at;
    a->fail_after = fail_after;
}

static alloc_ctx *alloc_ctx_of(void *ctx)
{
    alloc_ctx *a = ctx;
    if (!a || a->magic != ALLOC_MAGIC) {
        fprintf(stderr, "api: allocator called with a wrong ctx %p\n", ctx);
        abort();
    }
    return a;
}

/* A size header keeps live_bytes exact. */
static void *t_alloc(size_t size, void *ctx)
{
    alloc_ctx *a = alloc_ctx_of(ctx);
    long long k = atomic_fetch_add(&a->calls, 1) + 1;
    if (a->fail_at && (k == a->fail_at || (a->fail_after && k > a->fail_at))) {
        atomic_store(&a->failed, true);
        return NULL;
    }
    size_t *p = malloc(size + 16);
    if (!p)
        return NULL;
    p[0] = size;
    atomic_fetch_add(&a->allocs, 1);
    atomic_fetch_add(&a->live_bytes, (long long)size);
    return (char *)p + 16;
}

static void t_free(void *ptr, void *ctx)
{
    alloc_ctx *a = alloc_ctx_of(ctx);
    if (!ptr)
        return;
    size_t *p = (size_t *)((char *)ptr - 16);
    atomic_fetch_add(&a->frees, 1);
    atomic_fetch_sub(&a->live_bytes, (long long)p[0]);
    free(p);
}

/*
 * Compile, scratch, a parallel scan and count, a stream, then free all.
 * With a failing allocator every step may fail with HAY_ERR_NOMEM, and
 * whatever succeeds must be right.  Returns false when a check failed.
 */
static bool workflow(const tu_engine *e, const hay_pattern *p, size_t n,
                     const uint8_t *hay, size_t len, const tu_mlist *exp,
                     alloc_ctx *a, const char *what)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = e->backend;
    o.algo = e->algo;
    hay_allocator al = { t_alloc, t_free, a };
    o.alloc = &al;
    bool ok = true;
    hay_patterns *set = TU_NOT_NULL;
    hay_scratch *scr = NULL;
    hay_status s = hay_patterns_compile(p, n, &o, &set);
    ok &= CHECK(s == HAY_OK || (s == HAY_ERR_NOMEM && a->failed),
                "%s: compile %s", what, hay_strerror(s));
    if (s != HAY_OK) {
        ok &= CHECK(set == NULL, "%s: *out not NULL after %s", what, hay_strerror(s));
        return ok;
    }
    s = hay_scratch_create(set, &scr);
    ok &= CHECK(s == HAY_OK || (s == HAY_ERR_NOMEM && a->failed),
                "%s: scratch %s", what, hay_strerror(s));
    if (s == HAY_OK) {
        for (unsigned t = 1; t <= 3; t += 2) {
            hay_scan_opts so = tu_scan_opts(t, t == 1 ? 0 : 7, HAY_SCHEDULE_DYNAMIC);
            bool agree;
            char why[TU_WHY_CAP];
            s = tu_scan_checked(set, scr, hay, len, &so, exp, p, n, &agree, why);
            agree = s != HAY_OK || agree;
            ok &= CHECK((s == HAY_OK && agree) || (s == HAY_ERR_NOMEM && a->failed),
                        "%s: scan (threads %u) %s; %s", what, t, hay_strerror(s),
                        agree ? "ok" : why);
            uint64_t c = 0;
            s = hay_scan_count(set, scr, hay, len, &so, &c);
            ok &= CHECK((s == HAY_OK && c == exp->n) || (s == HAY_ERR_NOMEM && a->failed),
                        "%s: count (threads %u) %s, %" PRIu64 " want %zu", what, t,
                        hay_strerror(s), c, exp->n);
        }
    }
    tu_checker ck;
    tu_checker_init(&ck, exp, 0, p, n);
    hay_stream *st = TU_NOT_NULL;
    s = hay_stream_open(set, tu_check_cb, &ck, &st);
    ok &= CHECK(s == HAY_OK || (s == HAY_ERR_NOMEM && a->failed && st == NULL),
                "%s: stream_open %s", what, hay_strerror(s));
    if (s == HAY_OK) {
        hay_status w1 = hay_stream_write(st, hay, len / 2);
        hay_status w2 = hay_stream_write(st, hay + len / 2, len - len / 2);
        bool agree = tu_checker_done(&ck, false);
        ok &= CHECK(w1 == HAY_OK && w2 == HAY_OK && agree,
                    "%s: stream writes %s %s; %s", what, hay_strerror(w1),
                    hay_strerror(w2), agree ? "ok" : ck.err);
        ok &= CHECK(hay_stream_close(st) == HAY_OK, "%s: stream close", what);
        hay_stream_free(st);
    }
    tu_checker_free(&ck);
    hay_scratch_free(scr);
    hay_patterns_free(set);
    return ok;
}

static void test_allocators(void)
{
    /* Sets: one pattern, a few, and enough bytes for the automata to grow
     * their tables past their first allocation. */
    enum { NBIG = 64 };
    static uint8_t bigbuf[NBIG][40];
    hay_pattern big[NBIG];
    tu_rng r = { 5 };
    for (size_t i = 0; i < NBIG; i++) {
        for (size_t k = 0; k < 40; k++)
            bigbuf[i][k] = (uint8_t)('a' + tu_below(&r, 26));
        big[i].data = bigbuf[i];
        big[i].len = 20 + i % 20;
    }
    hay_pattern few[3] = { { "abc", 3 }, { "bcd", 3 }, { "c", 1 } };
    uint8_t hay[3000];
    for (size_t i = 0; i < sizeof hay; i++)
        hay[i] = (uint8_t)('a' + tu_below(&r, 4));
    memcpy(hay + 100, bigbuf[3], big[3].len);
    memcpy(hay + 2000, bigbuf[40], big[40].len);
    struct { const hay_pattern *p; size_t n; } sets[] = {
        { few, 1 }, { few, 3 }, { big, NBIG },
    };
    unsigned long long tried = 0;
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        for (size_t k = 0; k < 3; k++) {
            if (sets[k].n > 1 && !e->multi)
                continue;
            tu_mlist exp = { 0 };
            tu_oracle(hay, sizeof hay, sets[k].p, sets[k].n, false, &exp);
            char what[128];
            /* Counting: every allocation freed, and some made at all. */
            alloc_ctx a;
            alloc_reset(&a, 0, false);
            snprintf(what, sizeof what, "%s, %zu patterns, counting allocator",
                     e->label, sets[k].n);
            workflow(e, sets[k].p, sets[k].n, hay, sizeof hay, &exp, &a, what);
            CHECK(a.allocs > 0 && a.allocs == a.frees && a.live_bytes == 0,
                  "%s: %lld allocs, %lld frees, %lld bytes live",
                  what, (long long)a.allocs, (long long)a.frees,
                  (long long)a.live_bytes);
            long long needed = a.calls;
            /* Failing at the k-th call, and from the k-th call on. */
            for (int after = 0; after < 2; after++)
                for (long long f = 1; f <= needed + 1; f++) {
                    alloc_reset(&a, f, after);
                    snprintf(what, sizeof what, "%s, %zu patterns, allocation %lld%s "
                             "fails", e->label, sets[k].n, f, after ? " and later" : "");
                    bool ok = workflow(e, sets[k].p, sets[k].n, hay, sizeof hay,
                                       &exp, &a, what);
                    tried++;
                    ok &= CHECK(a.allocs == a.frees && a.live_bytes == 0,
                                "%s: leak: %lld allocs, %lld frees, %lld bytes live",
                                what, (long long)a.allocs, (long long)a.frees,
                                (long long)a.live_bytes);
                    if (!ok)
                        break;   /* one report per engine and set */
                }
            tu_mlist_free(&exp);
        }
    }
    printf("allocators: %llu runs with a failing allocation\n", tried);
}

int main(void)
{
    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    test_allocators();
    return tu_finish();
}
