/*
 * cuda_list.c - the host side of the CUDA match list (src/cuda/list.h),
 * without a device: sorted keys (HAY_CUDA_MATCH) into per-match callbacks
 * and batches, on the calling thread and through the pool of helper
 * threads.  Checks, against the records worked out here from the keys:
 *   - every list length around the pool's thresholds and rounds (0, 1,
 *     a few, one window, two, many rounds, one more than a round), with
 *     1, 2, 4 and 8 threads: the same records in the same order, batches
 *     of 1..HAY_BATCH_MAX, the count
 *   - matches already held in the batch come first (several lists into
 *     one batcher, as several pieces of one scan)
 *   - a callback that stops in the middle of a list: nothing after the
 *     stopping batch (or call), the count includes it, later lists deliver
 *     nothing
 *   - the per-match callback: the same records, one call each
 *   - a sink with threads and no pool starts its pool at the first batched
 *     list long enough for it, not before, and never per match
 *   - hay_scan_list's arrays (src/core/fill.h): pieces of keys written
 *     straight into the arrays by 1, 2 and 4 threads, caps from 1 to the
 *     whole list, resumed from each call's done until every key came
 *     once, in order, no end split; starts or ends NULL; matches put
 *     through the batcher first (an overflow's host run) come first;
 *     TOO_LARGE when one end's matches exceed the cap
 *   - the sleeping thread pool under it (src/core/pool.h): every helper
 *     runs every job once, a stop waits for the job posted; in CUDA
 *     builds also the staging copy pool on top of it (src/cuda/stage.c:
 *     copies with and without the calling thread, every size and thread
 *     count), which needs no device either
 */
#include "testutil.h"

#include "../../src/core/internal.h"
#include "../../src/core/fill.h"
#include "../../src/cuda/cuda_engine.h"
#include "../../src/cuda/list.h"
#include "../../src/core/pool.h"
#ifdef HAY_TEST_COPY_POOL
#include "../../src/cuda/driver.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NPAT = 700 };
static size_t plen[NPAT];

/* What a receiver saw. */
typedef struct seen {
    hay_match *m;
    size_t n, cap;
    size_t batches, bad_size;
    size_t stop_after;   /* stop once this many matches were seen (0: never) */
} seen;

static void keep(seen *s, uint32_t id, uint64_t start, uint64_t end)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->m = realloc(s->m, s->cap * sizeof *s->m);
    }
    s->m[s->n++] = (hay_match){ id, 0, start, end };
}

static int on_batch(const hay_match *m, size_t n, void *ctx)
{
    seen *s = ctx;
    s->batches++;
    if (n < 1 || n > HAY_BATCH_MAX)
        s->bad_size++;
    for (size_t i = 0; i < n; i++)
        keep(s, m[i].id, m[i].start, m[i].end);
    return s->stop_after && s->n >= s->stop_after;
}

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    seen *s = ctx;
    keep(s, id, start, end);
    return s->stop_after && s->n >= s->stop_after;
}

/* n sorted keys with local ends from 1 on (several ids per end now and
 * then), and the records they stand for at offset lo. */
static unsigned long long *make_keys(tu_rng *r, size_t n, uint64_t lo, hay_match **want)
{
    unsigned long long *k = malloc((n ? n : 1) * sizeof *k);
    *want = malloc((n ? n : 1) * sizeof **want);
    uint64_t end = 1 + tu_below(r, 50);
    for (size_t i = 0; i < n; i++) {
        uint32_t id = (uint32_t)tu_below(r, NPAT);
        if (i && (k[i - 1] & ((1u << HAY_CUDA_ID_BITS) - 1)) >= id)
            end += 1 + tu_below(r, 3);   /* ids ascend within one end */
        else if (tu_below(r, 2))
            end += 1 + tu_below(r, 3);
        k[i] = HAY_CUDA_MATCH(end, id);
        (*want)[i] = (hay_match){ id, 0, lo + end - plen[id], lo + end };
    }
    return k;
}

static bool same(const hay_match *a, const hay_match *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].id != b[i].id || a[i].reserved || a[i].start != b[i].start ||
            a[i].end != b[i].end)
            return false;
    return true;
}

static void test_lengths(void)
{
    static const size_t lens[] = { 0, 1, 5, 4096, 4097, 32767, 32768, 65535, 65536,
                                   65537, 229376, 229377, 1000003 };
    static const unsigned threads[] = { 1, 2, 4, 8 };
    tu_rng r = { 3 };
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        hay_list_pool *pool = hay_list_pool_start(threads[t]);
        CHECK((pool != NULL) == (threads[t] > 1), "pool of %u threads", threads[t]);
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            size_t n = tu_scaled(lens[li], lens[li] < 70000 ? lens[li] : 70000);
            hay_match *want;
            uint64_t lo = (uint64_t)5 << 32 | tu_below(&r, 1000);
            unsigned long long *k = make_keys(&r, n, lo, &want);
            seen s;
            memset(&s, 0, sizeof s);
            hay_batcher bt;
            hay_match *keepm = NULL;
            CHECK_ST(hay_batcher_init(&bt, NULL, &keepm, on_batch, &s), HAY_OK, "batcher");
            hay_list_sink sink = { hay_batch_match, &bt, plen, 0, pool, 0 };
            int stop = hay_list_deliver(&sink, k, n, lo);
            CHECK(stop == 0 && hay_batch_flush(&bt) == 0, "%zu keys: no stop", n);
            CHECK(s.n == n && sink.count == n && hay_batch_puts(&bt) == n,
                  "%zu keys, %u threads: %zu delivered, count %llu", n, threads[t], s.n,
                  (unsigned long long)sink.count);
            CHECK(s.n == n && same(s.m, want, n), "%zu keys, %u threads: records", n,
                  threads[t]);
            CHECK(s.bad_size == 0 && (n == 0 || s.batches >= (n + HAY_BATCH_MAX - 1) /
                                                              HAY_BATCH_MAX),
                  "%zu keys: %zu batches, %zu of a bad size", n, s.batches, s.bad_size);
            /* The same keys, one call per match. */
            seen p;
            memset(&p, 0, sizeof p);
            hay_list_sink ms = { on_match, &p, plen, 0, pool, 0 };
            CHECK(hay_list_deliver(&ms, k, n, lo) == 0 && p.n == n && ms.count == n &&
                      same(p.m, want, n),
                  "%zu keys per match: %zu", n, p.n);
            free(p.m);
            free(s.m);
            free(keepm);
            free(k);
            free(want);
        }
        hay_list_pool_stop(pool);
    }
}

/* A sink that names threads but holds no pool starts one at its first
 * batched list long enough to use it: never for short lists, one thread,
 * or a per-match callback (scans whose lists are short make no thread). */
static void test_lazy_pool(void)
{
    static const struct {
        unsigned threads;
        bool batch;
        bool want_pool;
    } cases[] = { { 2, true, true }, { 8, true, true }, { 1, true, false },
                  { 2, false, false } };
    tu_rng r = { 17 };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        seen s;
        memset(&s, 0, sizeof s);
        hay_batcher bt;
        hay_match *keepm = NULL;
        CHECK_ST(hay_batcher_init(&bt, NULL, &keepm, on_batch, &s), HAY_OK, "batcher");
        hay_list_sink sink = { cases[c].batch ? hay_batch_match : on_match,
                               cases[c].batch ? (void *)&bt : (void *)&s, plen, 0, NULL,
                               cases[c].threads };
        size_t total = 0;
        hay_match *all = NULL;
        static const size_t lens[] = { 100, 65535, 200000, 7 };
        for (size_t li = 0; li < 4; li++) {
            hay_match *want;
            uint64_t lo = (uint64_t)li << 30;
            unsigned long long *k = make_keys(&r, lens[li], lo, &want);
            CHECK(hay_list_deliver(&sink, k, lens[li], lo) == 0, "lazy pool: a stop");
            CHECK((sink.pool != NULL) == (cases[c].want_pool && li >= 2),
                  "lazy pool, %u threads%s, after %zu keys: pool %s", cases[c].threads,
                  cases[c].batch ? "" : " per match", lens[li],
                  sink.pool ? "started" : "not started");
            all = realloc(all, (total + lens[li]) * sizeof *all);
            memcpy(all + total, want, lens[li] * sizeof *want);
            total += lens[li];
            free(k);
            free(want);
        }
        CHECK(hay_batch_flush(&bt) == 0 && s.n == total && same(s.m, all, total) &&
                  sink.count == total,
              "lazy pool, %u threads: %zu of %zu records", cases[c].threads, s.n, total);
        hay_list_pool_stop(sink.pool);
        free(all);
        free(s.m);
        free(keepm);
    }
}

/* Several lists (pieces) into one batcher, with matches put before the
 * first: one sequence, in order. */
static void test_pieces(void)
{
    tu_rng r = { 5 };
    hay_list_pool *pool = hay_list_pool_start(4);
    seen s;
    memset(&s, 0, sizeof s);
    hay_batcher bt;
    hay_match *keepm = NULL;
    CHECK_ST(hay_batcher_init(&bt, NULL, &keepm, on_batch, &s), HAY_OK, "batcher");
    hay_match *all = malloc(2000000 * sizeof *all);
    size_t nall = 0;
    for (int i = 0; i < 3; i++) {   /* held before the lists */
        CHECK(hay_batch_put(&bt, 9, (uint64_t)i, (uint64_t)i + 1) == 0, "put");
        all[nall++] = (hay_match){ 9, 0, (uint64_t)i, (uint64_t)i + 1 };
    }
    hay_list_sink sink = { hay_batch_match, &bt, plen, 0, pool, 0 };
    static const size_t lens[] = { 100000, 0, 7, 300000, 65536, 1 };
    uint64_t lo = 1000;
    for (size_t p = 0; p < sizeof lens / sizeof *lens; p++) {
        size_t n = tu_scaled(lens[p], lens[p] < 70000 ? lens[p] : 70000);
        hay_match *want;
        unsigned long long *k = make_keys(&r, n, lo, &want);
        CHECK(hay_list_deliver(&sink, k, n, lo) == 0, "piece %zu", p);
        memcpy(all + nall, want, n * sizeof *want);
        nall += n;
        lo = n ? want[n - 1].end : lo;
        free(k);
        free(want);
    }
    CHECK(hay_batch_flush(&bt) == 0, "flush");
    CHECK(s.n == nall && same(s.m, all, nall), "pieces: %zu of %zu in order", s.n, nall);
    CHECK(sink.count == nall - 3, "pieces: count %llu, want %zu",
          (unsigned long long)sink.count, nall - 3);
    free(all);
    free(s.m);
    free(keepm);
    hay_list_pool_stop(pool);
}

/* A stop in the middle of a list (and of a round): nothing after the
 * stopping batch, and nothing from a later list. */
static void test_stop(void)
{
    tu_rng r = { 9 };
    static const size_t stops[] = { 1, 4096, 4097, 70000, 250001 };
    for (unsigned threads = 1; threads <= 8; threads *= 8) {
        hay_list_pool *pool = hay_list_pool_start(threads);
        for (size_t si = 0; si < sizeof stops / sizeof *stops; si++) {
            size_t n = 400000;
            hay_match *want;
            unsigned long long *k = make_keys(&r, n, 0, &want);
            seen s;
            memset(&s, 0, sizeof s);
            s.stop_after = stops[si];
            hay_batcher bt;
            hay_match *keepm = NULL;
            CHECK_ST(hay_batcher_init(&bt, NULL, &keepm, on_batch, &s), HAY_OK, "batcher");
            hay_list_sink sink = { hay_batch_match, &bt, plen, 0, pool, 0 };
            CHECK(hay_list_deliver(&sink, k, n, 0) == 1, "stop at %zu: stopped", stops[si]);
            size_t batches = s.batches;
            CHECK(s.n >= stops[si] && s.n < stops[si] + HAY_BATCH_MAX && same(s.m, want, s.n),
                  "stop at %zu, %u threads: %zu seen", stops[si], threads, s.n);
            CHECK(sink.count == s.n, "stop at %zu: count %llu, seen %zu", stops[si],
                  (unsigned long long)sink.count, s.n);
            /* A later piece delivers nothing. */
            CHECK(hay_list_deliver(&sink, k, n, 0) == 1 && s.batches == batches &&
                      hay_batch_flush(&bt) == 1,
                  "stop at %zu: nothing after the stop", stops[si]);
            /* Per match: the call that stops is the last. */
            seen p;
            memset(&p, 0, sizeof p);
            p.stop_after = stops[si];
            hay_list_sink ms = { on_match, &p, plen, 0, pool, 0 };
            CHECK(hay_list_deliver(&ms, k, n, 0) == 1 && p.n == stops[si] &&
                      ms.count == stops[si],
                  "per match, stop at %zu: %zu", stops[si], p.n);
            free(p.m);
            free(s.m);
            free(keepm);
            free(k);
            free(want);
        }
        hay_list_pool_stop(pool);
    }
}

typedef struct marks {
    unsigned runs[8];
    unsigned job;
} marks;

static void mark(void *job, unsigned i)
{
    marks *m = job;
    if (i < 8)
        m->runs[i] += m->job;
}

static void test_pool(void)
{
    CHECK(hay_pool_start(0) == NULL && hay_pool_size(NULL) == 0, "pool of no thread");
    hay_pool *p = hay_pool_start(3);
    CHECK(p && hay_pool_size(p) == 3, "pool of 3: %u", hay_pool_size(p));
    if (!p)
        return;
    marks m;
    memset(&m, 0, sizeof m);
    unsigned want = 0;
    for (unsigned j = 1; j <= 2000; j++) {
        m.job = j;
        want += j;
        hay_pool_post(p, mark, &m);
        hay_pool_wait(p);
    }
    CHECK(m.runs[0] == want && m.runs[1] == want && m.runs[2] == want && m.runs[3] == 0,
          "pool: runs %u %u %u %u, want %u each of the first three", m.runs[0], m.runs[1],
          m.runs[2], m.runs[3], want);
    m.job = 1;
    hay_pool_post(p, mark, &m);
    hay_pool_stop(p);   /* waits for the job */
    CHECK(m.runs[0] == want + 1 && m.runs[2] == want + 1, "pool: the job before a stop");
}

#ifdef HAY_TEST_COPY_POOL
static void test_copy_pool(void)
{
    size_t big = tu_scaled((size_t)9 << 20, (size_t)3 << 20) + 3;
    uint8_t *src = malloc(big), *dst = malloc(big + 1);
    tu_rng r = { 17 };
    for (size_t i = 0; i < big; i++)
        src[i] = (uint8_t)tu_rand(&r);
    static const unsigned threads[] = { 0, 1, 2, 5, 17 };
    static const size_t sizes[] = { 0, 1, 4095, (size_t)2 << 20, (size_t)5 << 20 };
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        hay_copy_pool *p = hay_copy_pool_start(threads[t]);
        CHECK((p != NULL) == (threads[t] >= 2), "copy pool of %u", threads[t]);
        for (size_t k = 0; k <= sizeof sizes / sizeof *sizes; k++) {
            size_t n = k < sizeof sizes / sizeof *sizes ? sizes[k] : big;
            for (int async = 0; async < 2; async++) {
                if (async && !p)
                    continue;
                memset(dst, 0xA5, big + 1);
                if (async) {
                    hay_copy_pool_begin(p, dst + 1, src, n);
                    hay_copy_pool_wait(p);
                } else {
                    hay_copy_pool_copy(p, dst + 1, src, n);
                }
                CHECK(memcmp(dst + 1, src, n) == 0 && dst[0] == 0xA5 &&
                          (n == big || dst[n + 1] == 0xA5),
                      "copy pool of %u, %zu bytes, %s", threads[t], n,
                      async ? "begin/wait" : "copy");
            }
        }
        hay_copy_pool_stop(p);
    }
    free(src);
    free(dst);
}
#endif

/* ---- hay_scan_list's arrays ------------------------------------------------ */

enum { FILL_PIECES = 5 };

/* One call of hay_scan_list as the pipeline makes it: the pieces' keys in
 * order into a fill from `from`, the second piece's first 3 matches put
 * through the batcher (as over_host does); returns the fill's state. */
static hay_fill_state fill_call(unsigned long long *const *keys, const size_t *n,
                                const uint64_t *lo, hay_list_sink *sink, hay_match_list *l,
                                uint64_t from)
{
    hay_fill f = { .list = l, .from = from };
    hay_batcher bt;
    hay_match *keepm = NULL;
    CHECK_ST(hay_batcher_init(&bt, NULL, &keepm, hay_fill_batch, &f), HAY_OK, "batcher");
    sink->fn = hay_batch_match;
    sink->ctx = &bt;
    sink->count = 0;
    int stop = 0;
    for (int p = 0; p < FILL_PIECES && !stop; p++) {
        size_t put = p == 1 && n[p] >= 3 ? 3 : 0;
        for (size_t i = 0; i < put && !stop; i++) {
            uint64_t end = lo[p] + HAY_CUDA_MATCH_END(keys[p][i]);
            uint32_t id = HAY_CUDA_MATCH_ID(keys[p][i]);
            stop = hay_batch_put(&bt, id, end - plen[id], end);
        }
        if (!stop)
            stop = hay_list_deliver(sink, keys[p] + put, n[p] - put, lo[p]);
    }
    if (!stop)
        hay_batch_flush(&bt);
    CHECK(hay_list_room(sink) == l->cap - f.n, "fill: room %llu, %zu of %zu stored",
          (unsigned long long)hay_list_room(sink), f.n, l->cap);
    free(keepm);
    l->n = f.n;
    l->done = f.state == HAY_FILL_GOING ? UINT64_MAX : f.done;
    return f.state;
}

static void test_fill(void)
{
    tu_rng r = { 11 };
    unsigned long long *keys[FILL_PIECES];
    hay_match *want[FILL_PIECES];
    size_t n[FILL_PIECES], total = 0;
    uint64_t lo[FILL_PIECES], at = 0;
    for (int p = 0; p < FILL_PIECES; p++) {
        n[p] = tu_scaled(p == 2 ? 150000 : 20000 + 1000 * (size_t)p, 5000);
        lo[p] = at;
        keys[p] = make_keys(&r, n[p], lo[p], &want[p]);
        at = lo[p] + HAY_CUDA_MATCH_END(keys[p][n[p] - 1]) + 1;   /* pieces own ends */
        total += n[p];
    }
    hay_match *all = malloc(total * sizeof *all);
    for (size_t p = 0, k = 0; p < FILL_PIECES; k += n[p], p++)
        memcpy(all + k, want[p], n[p] * sizeof *all);
    uint32_t *ids = malloc(total * sizeof *ids);
    uint64_t *starts = malloc(total * sizeof *starts), *ends = malloc(total * sizeof *ends);
    static const size_t caps[] = { 1, 2, 7, 5000, 70000, 0 };
    static const unsigned threads[] = { 1, 2, 4 };
    for (size_t c = 0; c < sizeof caps / sizeof *caps; c++)
        for (size_t t = 0; t < 3; t++) {
            size_t cap = caps[c] ? caps[c] : total;
            hay_list_sink sink = { NULL, NULL, plen, 0, NULL, threads[t] };
            uint64_t from = 0;
            size_t got = 0, calls = 0, big = 0;
            bool ok = true;
            while (ok && got < total && calls++ < total + 10) {
                bool no_starts = c == 2 && t == 1, no_ends = c == 3 && t == 2;
                hay_match_list l = { ids, no_starts ? NULL : starts, no_ends ? NULL : ends,
                                     cap, 0, 0 };
                hay_fill_state st = fill_call(keys, n, lo, &sink, &l, from);
                if (st == HAY_FILL_TOO_LARGE) {
                    /* the next end's matches exceed cap: more room, once */
                    size_t k = 0;
                    while (got + k < total && all[got + k].end == l.done + 1)
                        k++;
                    ok = CHECK(l.n == 0 && k > cap && l.done >= from, "fill cap %zu: too "
                               "large at %llu with %zu matches there", cap,
                               (unsigned long long)l.done + 1, k);
                    l.cap = NPAT;
                    big++;
                    st = fill_call(keys, n, lo, &sink, &l, from);
                }
                ok = ok && CHECK(st != HAY_FILL_TOO_LARGE && got + l.n <= total &&
                                     l.n <= l.cap && (st == HAY_FILL_GOING) ==
                                     (got + l.n == total),
                                 "fill cap %zu, %u threads, from %llu: state %d, %zu stored",
                                 cap, threads[t], (unsigned long long)from, (int)st, l.n);
                for (size_t i = 0; ok && i < l.n; i++) {
                    const hay_match *w = &all[got + i];
                    ok = CHECK(ids[i] == w->id && (!l.starts || starts[i] == w->start) &&
                                   (!l.ends || ends[i] == w->end) && w->end <= l.done,
                               "fill cap %zu, %u threads: match %zu", cap, threads[t],
                               got + i);
                }
                got += l.n;
                ok = ok && CHECK(got == total || all[got].end > l.done,
                                 "fill cap %zu: done %llu, but match %zu ends there", cap,
                                 (unsigned long long)l.done, got);
                from = l.done;
            }
            CHECK(ok && got == total && (caps[c] != 0 || (calls == 1 && big == 0)),
                  "fill cap %zu, %u threads: %zu of %zu in %zu calls", cap, threads[t], got,
                  total, calls);
            hay_list_pool_stop(sink.pool);
        }
    free(ids);
    free(starts);
    free(ends);
    free(all);
    for (int p = 0; p < FILL_PIECES; p++) {
        free(keys[p]);
        free(want[p]);
    }
}

int main(void)
{
    tu_rng r = { 1 };
    for (size_t i = 0; i < NPAT; i++)
        plen[i] = 1 + tu_below(&r, 40);
    test_pool();
#ifdef HAY_TEST_COPY_POOL
    test_copy_pool();
#endif
    test_lengths();
    test_lazy_pool();
    test_pieces();
    test_stop();
    test_fill();
    return tu_finish();
}
