/*
 * gpu_list.c - the CUDA backend's full ordered match list (src/cuda/pipeline.c,
 * list.c): pieces whose lists are sorted and copied back one piece behind,
 * batches made by the scan's threads.
 *
 *   test_gpu_list
 *
 * Exits 77 (skipped) when no CUDA device is usable.  Each case runs with
 * pieces of 64 KiB (chunk=64K) so that a few MiB make many pieces, and
 * compares with the CPU backend as multisets, with ends that never
 * decrease, and the batch API with the per-match API as the same sequence:
 *   - streams 1, 2, 3 and 8 (one slot: a held list shares its slot);
 *     staged while the list before is delivered (the default: pieces of
 *     2 MiB and more on copy threads), with one copy thread, and copied
 *     from pageable memory
 *   - small result lists (result_cap 1, 2, 3, 256, 1000, 5000, one below
 *     the matches and equal to them): pieces overflow and are searched
 *     again in parts that fit (src/cuda/overflow.h), end positions with
 *     more matches than slots on the host (also from a resident buffer);
 *     after scans with the default list (a pooled pipeline keeps its
 *     lists: the smaller cap still holds); pieces cut smaller after an
 *     overflow (result_cap=200000 over 1 MiB pieces of ~2.5M matches: the
 *     next ones are 64 KiB and fit).  Each list is a round trip with the
 *     device, so small lists run over small inputs; what searching an
 *     overflowing piece again costs (count rounds and lists, from the
 *     driver's log line) stays near matches / result_cap
 *   - pieces whose lists are empty: matches only in a few pieces, and none
 *   - lists around the short-list bound (512: sorted on the host, handed
 *     over at once, as the log line counts them) and longer ones (sorted
 *     on the device, one piece behind) in one scan
 *   - matches across every piece boundary (patterns up to 300 bytes)
 *   - threads 1 (the calling thread makes the records) and 0 (helpers)
 *   - a resident buffer against the host input
 *   - a stop in the middle of a batch, and of a piece: exactly the prefix,
 *     HAY_STOPPED, and the set scans in full again afterwards
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct rec {
    hay_match *m;
    size_t n, cap, batches, stop_at;
    bool order_bad, size_bad;
    uint64_t last_end;
} rec;

static void add(rec *r, uint32_t id, uint64_t start, uint64_t end)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        r->m = realloc(r->m, r->cap * sizeof *r->m);
    }
    if (end < r->last_end)
        r->order_bad = true;
    r->last_end = end;
    r->m[r->n++] = (hay_match){ id, 0, start, end };
}

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    rec *r = ctx;
    add(r, id, start, end);
    return r->stop_at && r->n >= r->stop_at;
}

static int on_batch(const hay_match *m, size_t n, void *ctx)
{
    rec *r = ctx;
    r->batches++;
    if (n < 1 || n > HAY_BATCH_MAX)
        r->size_bad = true;
    for (size_t i = 0; i < n; i++) {
        if (m[i].reserved)
            r->size_bad = true;
        add(r, m[i].id, m[i].start, m[i].end);
    }
    return r->stop_at && r->n >= r->stop_at;
}

static int cmp_match(const void *a, const void *b)
{
    const hay_match *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static bool same_seq(const rec *a, const rec *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->m, b->m, a->n * sizeof *a->m) == 0);
}

static hay_status list(const hay_patterns *set, const uint8_t *d, size_t len,
                       const hay_buffer *buf, bool batch, unsigned threads, rec *out,
                       size_t stop_at);

/* Same matches in any order as want, whose list is sorted (sorts a copy
 * of a's). */
static bool same_set(const rec *a, const rec *want)
{
    if (a->n != want->n)
        return false;
    if (!a->n)
        return true;
    hay_match *x = malloc(a->n * sizeof *x);
    memcpy(x, a->m, a->n * sizeof *x);
    qsort(x, a->n, sizeof *x, cmp_match);
    bool ok = memcmp(x, want->m, a->n * sizeof *x) == 0;
    free(x);
    return ok;
}

/* The CPU's list, sorted for same_set. */
static void cpu_list(const hay_patterns *cpu, const uint8_t *d, size_t len, rec *want,
                     const char *what)
{
    CHECK_ST(list(cpu, d, len, NULL, false, 1, want, 0), HAY_OK, what);
    qsort(want->m, want->n, sizeof *want->m, cmp_match);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static hay_patterns *compile(hay_backend b, const hay_pattern *p, size_t n,
                             const char *params)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = b;
    o.params = params;
    hay_patterns *set = NULL;
    hay_status st = hay_patterns_compile(p, n, &o, &set);
    CHECK(st == HAY_OK, "compile (%s): %s", params ? params : "", hay_strerror(st));
    return set;
}

/* One list: per match or in batches, from the host or a buffer. */
static hay_status list(const hay_patterns *set, const uint8_t *d, size_t len,
                       const hay_buffer *buf, bool batch, unsigned threads, rec *out,
                       size_t stop_at)
{
    memset(out, 0, sizeof *out);
    out->stop_at = stop_at;
    hay_scratch *s = NULL;
    hay_scratch_create(set, &s);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;
    hay_status st;
    if (buf)
        st = batch ? hay_scan_buffer_batch(set, s, buf, &o, on_batch, out)
                   : hay_scan_buffer(set, s, buf, &o, on_match, out);
    else
        st = batch ? hay_scan_batch(set, s, d, len, &o, on_batch, out)
                   : hay_scan(set, s, d, len, &o, on_match, out);
    hay_scratch_free(s);
    return st;
}

/* The GPU set with params against the CPU's list want: per match and in
 * batches (threads 0 and 1), the same sequence, the same matches as the
 * CPU, in order of end. */
static void check_gpu(const hay_pattern *p, size_t np, const char *params, const uint8_t *d,
                      size_t len, const rec *want, const char *what)
{
    hay_patterns *g = compile(HAY_BACKEND_CUDA, p, np, params);
    if (!g)
        return;
    rec pm, b0, b1;
    hay_status s1 = list(g, d, len, NULL, false, 0, &pm, 0);
    hay_status s2 = list(g, d, len, NULL, true, 0, &b0, 0);
    hay_status s3 = list(g, d, len, NULL, true, 1, &b1, 0);
    CHECK(s1 == HAY_OK && s2 == HAY_OK && s3 == HAY_OK, "%s [%s]: %s %s %s", what, params,
          hay_strerror(s1), hay_strerror(s2), hay_strerror(s3));
    CHECK(!pm.order_bad && !b0.order_bad && !b1.order_bad, "%s [%s]: ends decrease", what,
          params);
    CHECK(!b0.size_bad && !b1.size_bad, "%s [%s]: a batch of a bad size", what, params);
    CHECK(same_set(&pm, want), "%s [%s]: per match %zu matches, CPU %zu", what, params, pm.n,
          want->n);
    CHECK(same_seq(&b0, &pm), "%s [%s]: batches (%zu) differ from per match (%zu)", what,
          params, b0.n, pm.n);
    CHECK(same_seq(&b1, &pm), "%s [%s]: batches on one thread (%zu) differ (%zu)", what,
          params, b1.n, pm.n);
    free(pm.m);
    free(b0.m);
    free(b1.m);
    hay_patterns_free(g);
}

/* The same from a device-resident buffer: per match and in batches. */
static void check_resident(const hay_pattern *p, size_t np, const char *params,
                           const uint8_t *d, size_t len, const rec *want, const char *what)
{
    hay_buffer *buf = NULL;
    hay_status bs = hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf);
    CHECK(bs == HAY_OK, "%s: buffer: %s", what, hay_strerror(bs));
    hay_patterns *g = compile(HAY_BACKEND_CUDA, p, np, params);
    if (bs == HAY_OK && g) {
        rec pm, b0;
        hay_status s1 = list(g, NULL, 0, buf, false, 0, &pm, 0);
        hay_status s2 = list(g, NULL, 0, buf, true, 0, &b0, 0);
        CHECK(s1 == HAY_OK && s2 == HAY_OK, "%s [%s]: %s %s", what, params,
              hay_strerror(s1), hay_strerror(s2));
        CHECK(!pm.order_bad && same_set(&pm, want) && same_seq(&b0, &pm),
              "%s [%s]: %zu matches per match, %zu in batches, CPU %zu", what, params, pm.n,
              b0.n, want->n);
        free(pm.m);
        free(b0.m);
    }
    hay_patterns_free(g);
    hay_buffer_free(buf);
}

/* What a listing scan cost with the device, from the CUDA driver's
 * diagnostic line (hay_scan_opts.log, src/cuda/pipeline.c): pieces, short
 * lists (one round trip each), overflowed pieces and what searching them
 * again took (overflow.h: count rounds and lists, a round trip each). */
typedef struct cost {
    unsigned long long pieces, shorts, over, rounds, parts, lists, host;
    bool seen;
} cost;

static void keep_cost(const char *line, void *ctx)
{
    cost *c = ctx;
    if (sscanf(line,
               "cuda list: %llu pieces (%llu short, %llu overflowed: %llu count rounds of "
               "%llu parts, %llu lists, %llu host runs)",
               &c->pieces, &c->shorts, &c->over, &c->rounds, &c->parts, &c->lists,
               &c->host) == 7)
        c->seen = true;
}

static cost list_cost(const hay_pattern *p, size_t np, const char *params, const uint8_t *d,
                      size_t len)
{
    cost c;
    memset(&c, 0, sizeof c);
    hay_patterns *g = compile(HAY_BACKEND_CUDA, p, np, params);
    hay_scratch *s = NULL;
    if (g && hay_scratch_create(g, &s) == HAY_OK) {
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.log = keep_cost;
        o.log_ctx = &c;
        rec r;
        memset(&r, 0, sizeof r);
        CHECK_ST(hay_scan_batch(g, s, d, len, &o, on_batch, &r), HAY_OK, "cost");
        free(r.m);
    }
    hay_scratch_free(s);
    hay_patterns_free(g);
    CHECK(c.seen, "[%s]: no cuda list line", params);
    return c;
}

static uint8_t *random_text(size_t len, const char *alpha, uint64_t seed)
{
    uint8_t *d = malloc(len);
    tu_rng r = { seed };
    size_t k = strlen(alpha);
    for (size_t i = 0; i < len; i++)
        d[i] = (uint8_t)alpha[tu_below(&r, k)];
    return d;
}

static const hay_pattern dense[] = { { "a", 1 }, { "ab", 2 }, { "aa", 2 }, { "ba", 2 },
                                     { "a", 1 }, { "aab", 3 }, { "abba", 4 } };
#define NDENSE (sizeof dense / sizeof *dense)

/* Many matches a byte over many pieces: streams, tiny lists, threads. */
static void test_dense(void)
{
    size_t len = tu_scaled((size_t)1 << 20, (size_t)1 << 19) + 77;
    uint8_t *d = random_text(len, "aab", 7);
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, dense, NDENSE, NULL);
    rec want;
    cpu_list(cpu, d, len, &want, "dense: CPU");
    CHECK(want.n > len, "dense: %zu matches", want.n);
    static const char *const params[] = {
        "chunk=64K",
        "chunk=64K,streams=1",
        "chunk=64K,streams=2",
        "chunk=64K,streams=8",
        "chunk=64K,transfer=pageable",
        "chunk=64K,stage_threads=1",
        "chunk=1M,result_cap=200000",
    };
    for (size_t i = 0; i < sizeof params / sizeof *params; i++)
        check_gpu(dense, NDENSE, params[i], d, len, &want, "dense");
    free(want.m);
    /* Small lists cost a round trip with the device per list (about
     * matches / result_cap of them, src/cuda/overflow.h), so they run over
     * less: 256 KiB, lists of 1,000 and 5,000 slots. */
    size_t mid = tu_scaled((size_t)1 << 18, (size_t)1 << 17);
    rec want_mid;
    cpu_list(cpu, d, mid, &want_mid, "dense, 256 KiB: CPU");
    check_gpu(dense, NDENSE, "chunk=64K,result_cap=1000", d, mid, &want_mid, "dense");
    check_gpu(dense, NDENSE, "chunk=128K,result_cap=5000,streams=1", d, mid, &want_mid,
              "dense");
    /* Searching an overflowing piece again costs about matches / cap round
     * trips (count rounds and lists; halving it until the halves fit cost
     * about three times that). */
    cost c = list_cost(dense, NDENSE, "chunk=64K,result_cap=1000", d, mid);
    unsigned long long trips = c.rounds + c.lists, bound = 3 * want_mid.n / 2000 + 4 * c.over;
    printf("dense, %zu matches, 1,000 slots: %llu pieces, %llu overflowed: %llu count rounds, "
           "%llu lists (bound %llu)\n", want_mid.n, c.pieces, c.over, c.rounds, c.lists, bound);
    CHECK(c.over >= mid / 65536 && trips >= want_mid.n / 1000 && trips <= bound,
          "dense, 1,000 slots: %llu round trips for %zu matches (%llu overflowed)", trips,
          want_mid.n, c.over);
    free(want_mid.m);
    /* Lists of 1, 2 and 3 slots (end positions with more matches than
     * slots go to the host), one slot fewer than the matches and exactly
     * as many: a small input. */
    size_t small = 1000;
    rec want_small;
    cpu_list(cpu, d, small, &want_small, "small: CPU");
    char tiny[4][64];
    snprintf(tiny[0], sizeof tiny[0], "chunk=64K,result_cap=1");
    snprintf(tiny[1], sizeof tiny[1], "chunk=64K,result_cap=3,streams=1");
    snprintf(tiny[2], sizeof tiny[2], "chunk=64K,result_cap=%zu", want_small.n - 1);
    snprintf(tiny[3], sizeof tiny[3], "chunk=64K,result_cap=%zu", want_small.n);
    for (size_t i = 0; i < 4; i++)
        check_gpu(dense, NDENSE, tiny[i], d, small, &want_small, "dense, tiny lists");
    /* Resident, with lists of 2 slots: the host searches a copy of the
     * device text. */
    check_resident(dense, NDENSE, "chunk=64K,result_cap=2", d, small, &want_small,
                   "dense, resident, tiny lists");
    free(want_small.m);
    hay_patterns_free(cpu);
    free(d);
}

/* Matches only in a few pieces (and then none): the empty lists between
 * them; a resident buffer against the host input. */
static void test_sparse(void)
{
    size_t len = tu_scaled((size_t)4 << 20, (size_t)1 << 20);
    uint8_t *d = random_text(len, "xyz", 3);
    static const size_t at[] = { 0, 70000, 70001, 1 << 20, (3 << 20) + 5 };
    for (size_t i = 0; i < sizeof at / sizeof *at; i++)
        if (at[i] + 6 <= len)
            memcpy(d + at[i], "needle", 6);
    memcpy(d + len - 6, "needle", 6);
    static const hay_pattern p[] = { { "needle", 6 }, { "eedl", 4 }, { "le", 2 } };
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, 3, NULL);
    rec want;
    cpu_list(cpu, d, len, &want, "sparse: CPU");
    CHECK(want.n >= 12, "sparse: %zu matches", want.n);
    check_gpu(p, 3, "chunk=64K", d, len, &want, "sparse");
    check_gpu(p, 3, "chunk=64K,streams=1,result_cap=2", d, len, &want, "sparse");
    /* Pieces of 2 MiB: staged on the copy threads (smaller ones are
     * copied by the calling thread). */
    check_gpu(p, 3, "chunk=2M", d, len, &want, "sparse");
    /* No match at all. */
    rec none;
    memset(&none, 0, sizeof none);
    static const hay_pattern q[] = { { "qq", 2 } };
    check_gpu(q, 1, "chunk=64K", d, len, &none, "no match");
    /* Resident. */
    hay_buffer *buf = NULL;
    hay_status bs = hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf);
    CHECK(bs == HAY_OK, "buffer: %s", hay_strerror(bs));
    hay_patterns *g = compile(HAY_BACKEND_CUDA, p, 3, "chunk=64K");
    if (bs == HAY_OK && g) {
        rec rb, hb;
        CHECK_ST(list(g, NULL, 0, buf, true, 0, &rb, 0), HAY_OK, "resident batches");
        CHECK_ST(list(g, d, len, NULL, true, 0, &hb, 0), HAY_OK, "host batches");
        CHECK(same_seq(&rb, &hb) && same_set(&rb, &want) && !rb.order_bad,
              "resident: %zu matches, host %zu, CPU %zu", rb.n, hb.n, want.n);
        free(rb.m);
        free(hb.m);
    }
    hay_patterns_free(g);
    hay_buffer_free(buf);
    free(want.m);
    hay_patterns_free(cpu);
    free(d);
}

/* Long patterns across every piece boundary. */
static void test_boundaries(void)
{
    size_t len = tu_scaled((size_t)2 << 20, (size_t)1 << 20);
    uint8_t *d = random_text(len, "ab", 5);
    /* A 300-byte run of 'c' ending 3 bytes past every 64 KiB line (and
     * one at the start and one at the very end). */
    for (size_t b = 65536; b + 3 < len; b += 65536)
        memset(d + b + 3 - 300, 'c', 300);
    memset(d, 'c', 300);
    memset(d + len - 300, 'c', 300);
    static char c300[301], c150[151];
    memset(c300, 'c', 300);
    memset(c150, 'c', 150);
    const hay_pattern p[] = { { c300, 300 }, { c150, 150 }, { "ca", 2 }, { "ab", 2 },
                              { "cc", 2 } };
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, 5, NULL);
    rec want;
    cpu_list(cpu, d, len, &want, "boundaries: CPU");
    check_gpu(p, 5, "chunk=64K", d, len, &want, "boundaries");
    free(want.m);
    /* Lists of 256 slots over 4 pieces (a round trip per list). */
    size_t four = ((size_t)4 << 16) + 17;
    cpu_list(cpu, d, four, &want, "boundaries, 4 pieces: CPU");
    check_gpu(p, 5, "chunk=64K,streams=2,result_cap=256", d, four, &want, "boundaries");
    free(want.m);
    hay_patterns_free(cpu);
    free(d);
}

/* Lists around the short-list bound (512 keys, pipeline.c PEEK: shorter
 * ones come back with their piece's count and are sorted on the host,
 * longer ones are sorted on the device one piece behind), mixed in one
 * scan and in order: pieces of 511, 512, 513, 0, 5000 and 1 matches. */
static void test_short(void)
{
    static const size_t per[] = { 511, 512, 513, 0, 5000, 1 };
    size_t np = sizeof per / sizeof *per, len = np * 65536;
    uint8_t *d = random_text(len, "xyz", 13);
    for (size_t i = 0; i < np; i++)
        for (size_t k = 0; k < per[i]; k++)
            memcpy(d + i * 65536 + 100 + k * 8, "needle", 6);
    static const hay_pattern p[] = { { "needle", 6 } };
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, 1, NULL);
    rec want;
    cpu_list(cpu, d, len, &want, "short lists: CPU");
    CHECK(want.n == 6537, "short lists: %zu matches", want.n);
    static const char *const params[] = { "chunk=64K", "chunk=64K,streams=1",
                                          "chunk=64K,result_cap=512", "chunk=64K,streams=8" };
    for (size_t i = 0; i < sizeof params / sizeof *params; i++)
        check_gpu(p, 1, params[i], d, len, &want, "short lists");
    check_resident(p, 1, "chunk=64K", d, len, &want, "short lists, resident");
    /* The four lists of 512 or fewer came back with their counts. */
    cost c = list_cost(p, 1, "chunk=64K", d, len);
    CHECK(c.pieces == np && c.shorts == 4 && c.over == 0,
          "short lists: %llu pieces, %llu short, %llu overflowed", c.pieces, c.shorts, c.over);
    free(want.m);
    hay_patterns_free(cpu);
    free(d);
}

/* A stop in the middle of a batch (and of a piece): exactly the prefix of
 * the full list, HAY_STOPPED; then the set scans in full again. */
static void test_stop(void)
{
    size_t whole = tu_scaled((size_t)1 << 20, (size_t)1 << 19);
    uint8_t *d = random_text(whole, "aab", 11);
    /* The small list over 3 pieces: every piece overflows and is searched
     * again in parts (a round trip per list of 1,000). */
    static const char *const params[] = { "chunk=64K", "chunk=64K,streams=1",
                                          "chunk=64K,result_cap=1000" };
    for (size_t k = 0; k < sizeof params / sizeof *params; k++) {
        size_t len = k == 2 ? ((size_t)3 << 16) - 5 : whole;
        hay_patterns *g = compile(HAY_BACKEND_CUDA, dense, NDENSE, params[k]);
        if (!g)
            continue;
        rec full;
        CHECK_ST(list(g, d, len, NULL, true, 0, &full, 0), HAY_OK, "stop: full list");
        size_t stops[] = { 1, 4095, 4097, full.n / 3 + 17, full.n - 1 };
        for (size_t i = 0; i < sizeof stops / sizeof *stops; i++) {
            for (int batch = 0; batch < 2; batch++) {
                rec got;
                hay_status st = list(g, d, len, NULL, batch, 0, &got, stops[i]);
                CHECK_ST(st, HAY_STOPPED, "stop");
                /* Per match: exactly stops[i]; in batches: the batch that
                 * crossed it, in full (at most HAY_BATCH_MAX more). */
                bool n_ok = batch ? got.n >= stops[i] && got.n < stops[i] + HAY_BATCH_MAX
                                  : got.n == stops[i];
                CHECK(n_ok && got.n <= full.n &&
                          memcmp(got.m, full.m, got.n * sizeof *got.m) == 0,
                      "[%s] stop at %zu (%s): %zu matches, not the prefix", params[k],
                      stops[i], batch ? "batches" : "per match", got.n);
                free(got.m);
            }
        }
        rec again;
        CHECK_ST(list(g, d, len, NULL, true, 0, &again, 0), HAY_OK, "after stops");
        CHECK(same_seq(&again, &full), "[%s] after stops: %zu matches, want %zu", params[k],
              again.n, full.n);
        free(again.m);
        free(full.m);
        hay_patterns_free(g);
    }
    free(d);
}

int main(void)
{
    if (hay_backend_available(HAY_BACKEND_CUDA) != HAY_OK) {
        printf("skipped: no usable CUDA device\n");
        return TU_SKIP;
    }
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = { { "dense", test_dense }, { "sparse", test_sparse },
                  { "boundaries", test_boundaries }, { "short", test_short },
                  { "stop", test_stop } };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        double t0 = now();
        tests[i].fn();
        printf("%s: %.1f s\n", tests[i].name, now() - t0);
        fflush(stdout);
    }
    return tu_finish();
}
