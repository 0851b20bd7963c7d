/*
 * split.c - backend auto's split: one input shared by CPU threads (from the
 * front) and the GPU (from the back), src/auto/split.h.
 *
 *   test_split          the split machinery with a host thread in the GPU's
 *                       place (params split=emulate): runs everywhere
 *   test_split --gpu    the real split (split=on); exits 77 without a CUDA
 *                       device
 *
 * Every conformance case, forced through the split with small pieces on
 * both sides (so that piece boundaries and the meeting point fall inside
 * matches), against the oracle: the full list (order included), the count,
 * the counts per pattern, a stop in the middle, and the leftmost modes
 * against the CPU backend.  Then inputs where every boundary lies inside
 * matches, a list held past its budget (the CPU searches those pieces
 * again), and a scan where the GPU side must have taken part.
 */
#include "cases.h"
#include "auto/split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *split_mode = "emulate";
static bool on_gpu;
static const char *more_params;   /* added to every set's (the GPU's copy mode) */

static hay_status compile_split(const tu_case *c, const char *extra,
                                hay_match_mode mode, hay_patterns **set)
{
    char params[320];
    /* On the GPU, smaller match lists than the default (allocated per
     * pipeline slot) keep the many small sets quick. */
    snprintf(params, sizeof params, "split=%s%s%s%s%s%s", split_mode,
             on_gpu ? ",result_cap=262144" : "", extra ? "," : "", extra ? extra : "",
             more_params ? "," : "", more_params ? more_params : "");
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_AUTO;
    o.params = params;
    o.flags = c->caseless ? HAY_CASELESS : 0;
    o.mode = mode;
    return hay_patterns_compile(c->pats, c->npats, &o, set);
}

/* Piece sizes for a case: about 1/3 and 1/9 of it on the worker's side,
 * odd sizes on the CPU's, never more than ~64 worker pieces on a GPU. */
static void piece_params(const tu_case *c, int k, char *buf, size_t cap)
{
    size_t len = c->len ? c->len : 1;
    size_t w = k == 0 ? len / 3 + 1 : len / 9 + 1;
    size_t cpu = k == 0 ? len / 5 + 1 : 7;
    if (on_gpu && len / w > 64)
        w = len / 64 + 1;
    if (!on_gpu && k == 1)
        w = 5;   /* the host worker takes tiny pieces cheaply */
    snprintf(buf, cap, "chunk=%zu,split_piece=%zu", w, cpu);
}

static void check_stats(const tu_case *c, const hay_scan_stats *st, const char *what)
{
    CHECK(st->split_cpu_bytes + st->split_gpu_bytes == c->len,
          "'%s' %s: split bytes %llu + %llu, want %zu", c->name, what,
          (unsigned long long)st->split_cpu_bytes,
          (unsigned long long)st->split_gpu_bytes, c->len);
}

static void run_case(const tu_case *c, int k)
{
    char extra[96];
    piece_params(c, k, extra, sizeof extra);
    hay_patterns *set = NULL;
    hay_status s = compile_split(c, extra, HAY_MATCH_ALL, &set);
    if (on_gpu && s == HAY_ERR_UNSUPPORTED)
        return;
    if (!CHECK(s == HAY_OK, "compile '%s' %s: %s", c->name, extra, hay_strerror(s)))
        return;
    hay_scratch *scratch = NULL;
    CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
    hay_scan_stats st;
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = 2;
    o.stats = &st;

    /* The list, against the oracle. */
    tu_checker ck;
    tu_checker_init(&ck, &c->exp, 0, c->pats, c->npats);
    memset(&st, 0, sizeof st);
    s = hay_scan(set, scratch, c->hay, c->len, &o, tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, false);
    CHECK(s == HAY_OK && ok, "split list '%s' %s: %s; %s", c->name, extra,
          hay_strerror(s), ok ? "ok" : ck.err);
    tu_checker_free(&ck);
    if (c->len)
        check_stats(c, &st, "list");

    /* The count. */
    uint64_t n = 0;
    memset(&st, 0, sizeof st);
    s = hay_scan_count(set, scratch, c->hay, c->len, &o, &n);
    CHECK(s == HAY_OK && n == c->exp.n, "split count '%s' %s: %s, %llu, want %zu",
          c->name, extra, hay_strerror(s), (unsigned long long)n, c->exp.n);
    if (c->len)
        check_stats(c, &st, "count");

    /* Per pattern. */
    uint64_t *want = calloc(c->npats, sizeof *want), *got = calloc(c->npats, sizeof *got);
    for (size_t i = 0; i < c->exp.n; i++)
        want[c->exp.m[i].id]++;
    s = hay_scan_count_each(set, scratch, c->hay, c->len, &o, got);
    CHECK(s == HAY_OK && memcmp(want, got, c->npats * sizeof *got) == 0,
          "split count_each '%s' %s: %s or counts differ", c->name, extra,
          hay_strerror(s));
    free(want);
    free(got);

    /* A stop half way: HAY_STOPPED and nothing after the stop. */
    if (c->exp.n > 1) {
        tu_checker sk;
        tu_checker_init(&sk, &c->exp, 0, c->pats, c->npats);
        sk.stop_after = (c->exp.n + 1) / 2;
        s = hay_scan(set, scratch, c->hay, c->len, &o, tu_check_cb, &sk);
        ok = tu_checker_done(&sk, true);
        CHECK(s == HAY_STOPPED && ok && sk.calls == sk.stop_after,
              "split stop '%s' %s: %s, %llu calls; %s", c->name, extra,
              hay_strerror(s), (unsigned long long)sk.calls, ok ? "ok" : sk.err);
        tu_checker_free(&sk);
    }
    hay_scratch_free(scratch);
    hay_patterns_free(set);
}

/* The leftmost modes through the split give what the CPU backend gives. */
static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_mlist_push(ctx, id, start, end);
    return 0;
}

static void run_leftmost(const tu_case *c)
{
    char extra[96];
    piece_params(c, 1, extra, sizeof extra);
    for (int m = HAY_MATCH_LEFTMOST_FIRST; m <= HAY_MATCH_LEFTMOST_LONGEST; m++) {
        hay_compile_opts o;
        hay_compile_opts_init(&o);
        o.backend = HAY_BACKEND_CPU;
        o.flags = c->caseless ? HAY_CASELESS : 0;
        o.mode = (hay_match_mode)m;
        hay_patterns *ref = NULL, *set = NULL;
        hay_scratch *scratch = NULL;
        CHECK_ST(hay_patterns_compile(c->pats, c->npats, &o, &ref), HAY_OK, "cpu leftmost");
        hay_status s = compile_split(c, extra, (hay_match_mode)m, &set);
        if (s != HAY_OK || !ref) {
            CHECK(on_gpu && s == HAY_ERR_UNSUPPORTED, "compile leftmost '%s': %s",
                  c->name, hay_strerror(s));
            hay_patterns_free(ref);
            hay_patterns_free(set);
            continue;
        }
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        tu_mlist a = { 0 }, b = { 0 };
        hay_scan_opts so;
        hay_scan_opts_init(&so);
        so.threads = 2;
        CHECK_ST(hay_scan(ref, scratch, c->hay, c->len, &so, record_cb, &a), HAY_OK,
                 "cpu leftmost scan");
        CHECK_ST(hay_scan(set, scratch, c->hay, c->len, &so, record_cb, &b), HAY_OK,
                 "split leftmost scan");
        bool same = a.n == b.n;
        for (size_t i = 0; same && i < a.n; i++)
            same = a.m[i].id == b.m[i].id && a.m[i].start == b.m[i].start &&
                   a.m[i].end == b.m[i].end;
        CHECK(same, "leftmost mode %d '%s': split gives %zu matches, cpu %zu (or they differ)",
              m, c->name, b.n, a.n);
        uint64_t n = 0;
        CHECK(hay_scan_count(set, scratch, c->hay, c->len, &so, &n) == HAY_OK && n == a.n,
              "leftmost mode %d '%s': split count %llu, cpu %zu", m, c->name,
              (unsigned long long)n, a.n);
        tu_mlist_free(&a);
        tu_mlist_free(&b);
        hay_scratch_free(scratch);
        hay_patterns_free(set);
        hay_patterns_free(ref);
    }
}

/* Runs of one byte with patterns of several lengths: every piece boundary
 * and the meeting point, wherever they fall, lie inside matches. */
static void run_dense(size_t len, const char *extra)
{
    /* Shared anonymous memory: with transfer=register the GPU side copies
     * straight from it (src/cuda/hostreg.h). */
    char *hay = (char *)tu_shared_alloc(NULL, len);
    if (!CHECK(hay, "mmap %zu", len))
        return;
    memset(hay, 'a', len);
    static const size_t lens[] = { 1, 2, 7, 20, 33 };
    char pbuf[5][40];
    hay_pattern pats[5];
    for (int i = 0; i < 5; i++) {
        memset(pbuf[i], 'a', lens[i]);
        pats[i].data = pbuf[i];
        pats[i].len = lens[i];
    }
    tu_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "a^%zu", len);
    c.hay = (uint8_t *)hay;
    c.len = len;
    c.pats = pats;
    c.npats = 5;
    tu_oracle(c.hay, len, pats, 5, false, &c.exp);
    hay_patterns *set = NULL;
    hay_status s = compile_split(&c, extra, HAY_MATCH_ALL, &set);
    if (CHECK(s == HAY_OK, "compile dense: %s", hay_strerror(s))) {
        hay_scratch *scratch = NULL;
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        hay_scan_stats st;
        memset(&st, 0, sizeof st);
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 2;
        o.stats = &st;
        tu_checker ck;
        tu_checker_init(&ck, &c.exp, 0, pats, 5);
        s = hay_scan(set, scratch, c.hay, len, &o, tu_check_cb, &ck);
        bool ok = tu_checker_done(&ck, false);
        CHECK(s == HAY_OK && ok, "dense list %zu %s: %s; %s", len, extra,
              hay_strerror(s), ok ? "ok" : ck.err);
        tu_checker_free(&ck);
        check_stats(&c, &st, extra);
        uint64_t n = 0;
        s = hay_scan_count(set, scratch, c.hay, len, &o, &n);
        CHECK(s == HAY_OK && n == c.exp.n, "dense count %zu %s: %llu, want %zu", len,
              extra, (unsigned long long)n, c.exp.n);
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    tu_mlist_free(&c.exp);
    tu_shared_free(hay, len);
}

/* A list scan whose callback pauses at its first match, so that the worker
 * (already started; on a GPU, already warm) takes pieces meanwhile: the
 * worker's side must have searched part of the input, and the order and
 * the matches must still be the oracle's. */
typedef struct slow_ctx {
    tu_checker *ck;
    bool slept;
} slow_ctx;

static int slow_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    slow_ctx *x = ctx;
    if (!x->slept) {
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        x->slept = true;
    }
    return tu_check_cb(id, start, end, x->ck);
}

/* A case over len bytes of a four-letter alphabet (seeded), with the
 * oracle's matches; false when no memory.  The caller frees c->hay and
 * c->exp. */
static bool random_case(tu_case *c, size_t len, uint64_t seed, const char *name,
                        hay_pattern *pats, size_t npats)
{
    memset(c, 0, sizeof *c);
    uint8_t *hay = malloc(len);
    if (!CHECK(hay != NULL, "malloc %zu", len))
        return false;
    tu_rng r = { seed };
    for (size_t i = 0; i < len; i++)
        hay[i] = (uint8_t)('a' + tu_below(&r, 4));
    snprintf(c->name, sizeof c->name, "%s", name);
    c->hay = hay;
    c->len = len;
    c->pats = pats;
    c->npats = npats;
    tu_oracle(hay, len, pats, npats, false, &c->exp);
    return true;
}

static void run_worker_share(void)
{
    size_t len = (size_t)8 << 20;
    hay_pattern pats[3] = { { "abcab", 5 }, { "dd", 2 }, { "cabacadab", 9 } };
    tu_case c;
    if (!random_case(&c, len, 12345, "random 8 MiB", pats, 3))
        return;
    uint8_t *hay = c.hay;
    hay_patterns *set = NULL;
    hay_status s = compile_split(&c, "chunk=256K,split_piece=128K", HAY_MATCH_ALL, &set);
    if (CHECK(s == HAY_OK, "compile share: %s", hay_strerror(s))) {
        hay_scratch *scratch = NULL;
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 2;
        uint64_t n = 0;
        /* Warms the GPU state (its start-up is paid on the worker thread). */
        CHECK_ST(hay_scan_count(set, scratch, hay, len, &o, &n), HAY_OK, "warm-up count");
        CHECK(n == c.exp.n, "share count %llu, want %zu", (unsigned long long)n, c.exp.n);
        hay_scan_stats st;
        memset(&st, 0, sizeof st);
        o.stats = &st;
        tu_checker ck;
        tu_checker_init(&ck, &c.exp, 0, pats, 3);
        slow_ctx x = { &ck, false };
        s = hay_scan(set, scratch, hay, len, &o, slow_cb, &x);
        bool ok = tu_checker_done(&ck, false);
        CHECK(s == HAY_OK && ok, "share list: %s; %s", hay_strerror(s), ok ? "ok" : ck.err);
        tu_checker_free(&ck);
        check_stats(&c, &st, "share");
        CHECK(st.split_gpu_bytes > 0 && st.split_cpu_bytes > 0,
              "share: the worker searched %llu bytes, the CPU %llu (both must be > 0); "
              "note \"%s\"", (unsigned long long)st.split_gpu_bytes,
              (unsigned long long)st.split_cpu_bytes, st.note ? st.note : "");
        if (on_gpu)
            CHECK(st.backend == HAY_BACKEND_CUDA, "share: backend %s, want cuda",
                  hay_backend_name(st.backend));
        printf("share: CPU %llu bytes in %.4f s, %s %llu bytes in %.4f s; %s\n",
               (unsigned long long)st.split_cpu_bytes, st.split_cpu_seconds,
               on_gpu ? "GPU" : "worker", (unsigned long long)st.split_gpu_bytes,
               st.split_gpu_seconds, st.note ? st.note : "");
        /* Over the list budget: the worker's pieces are searched again by
         * the CPU, and nothing is lost. */
        hay_patterns *tight = NULL;
        s = compile_split(&c, "chunk=256K,split_piece=128K,split_buffer=4K", HAY_MATCH_ALL,
                          &tight);
        if (CHECK(s == HAY_OK, "compile tight: %s", hay_strerror(s))) {
            CHECK_ST(hay_scan_count(tight, scratch, hay, len, &o, &n), HAY_OK, "warm-up");
            tu_checker tk;
            tu_checker_init(&tk, &c.exp, 0, pats, 3);
            slow_ctx y = { &tk, false };
            memset(&st, 0, sizeof st);
            s = hay_scan(tight, scratch, hay, len, &o, slow_cb, &y);
            ok = tu_checker_done(&tk, false);
            CHECK(s == HAY_OK && ok, "tight list: %s; %s", hay_strerror(s),
                  ok ? "ok" : tk.err);
            tu_checker_free(&tk);
            CHECK(st.split_cpu_bytes == len && st.split_gpu_bytes == 0,
                  "tight: the CPU searched %llu bytes, want all %zu (every worker piece "
                  "is over the 4K budget)", (unsigned long long)st.split_cpu_bytes, len);
            hay_patterns_free(tight);
        }
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    /* Bad values are refused. */
    hay_patterns *bad = TU_NOT_NULL;
    CHECK_ST(compile_split(&c, "split=maybe", HAY_MATCH_ALL, &bad), HAY_ERR_INVALID,
             "split=maybe");
    CHECK(bad == NULL, "a refused set must be NULL");
    CHECK_ST(compile_split(&c, "split_piece=0", HAY_MATCH_ALL, &bad), HAY_ERR_INVALID,
             "split_piece=0");
    tu_mlist_free(&c.exp);
    free(hay);
}

/* The count modes' CPU side: threads claiming pieces of their own
 * (split.c's cpu_team).  8 MiB of a four-letter alphabet, 64 KiB CPU
 * pieces, so that every thread takes many pieces; the count and the
 * counts per pattern against the oracle, with 1 to 8 threads. */
static void run_team(void)
{
    size_t len = (size_t)8 << 20;
    hay_pattern pats[4] = { { "abca", 4 }, { "d", 1 }, { "cabacadab", 9 }, { "bb", 2 } };
    tu_case c;
    if (!random_case(&c, len, 777, "team 8 MiB", pats, 4))
        return;
    uint8_t *hay = c.hay;
    uint64_t want[4] = { 0 };
    for (size_t i = 0; i < c.exp.n; i++)
        want[c.exp.m[i].id]++;
    /* All threads throughout, then one staying once the worker runs (the
     * others search only while it starts). */
    static const char *const variants[] = { "chunk=512K,split_piece=64K",
                                            "chunk=512K,split_piece=64K,split_keep=1" };
    for (size_t v = 0; v < 2; v++) {
    hay_patterns *set = NULL;
    hay_status s = compile_split(&c, variants[v], HAY_MATCH_ALL, &set);
    if (CHECK(s == HAY_OK, "compile team: %s", hay_strerror(s))) {
        hay_scratch *scratch = NULL;
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        static const unsigned threads[] = { 1, 2, 3, 8 };
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            o.threads = threads[t];
            hay_scan_stats st;
            memset(&st, 0, sizeof st);
            o.stats = &st;
            uint64_t n = 0, each[4] = { 0 };
            s = hay_scan_count(set, scratch, hay, len, &o, &n);
            CHECK(s == HAY_OK && n == c.exp.n, "team count, %u threads, %s: %s, %llu, want %zu",
                  threads[t], variants[v], hay_strerror(s), (unsigned long long)n, c.exp.n);
            check_stats(&c, &st, "team count");
            s = hay_scan_count_each(set, scratch, hay, len, &o, each);
            CHECK(s == HAY_OK && !memcmp(each, want, sizeof want),
                  "team count_each, %u threads: %s; counts %llu %llu %llu %llu, want %llu "
                  "%llu %llu %llu", threads[t], hay_strerror(s),
                  (unsigned long long)each[0], (unsigned long long)each[1],
                  (unsigned long long)each[2], (unsigned long long)each[3],
                  (unsigned long long)want[0], (unsigned long long)want[1],
                  (unsigned long long)want[2], (unsigned long long)want[3]);
        }
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    }
    hay_patterns *bad = TU_NOT_NULL;
    CHECK_ST(compile_split(&c, "split_keep=0", HAY_MATCH_ALL, &bad), HAY_ERR_INVALID,
             "split_keep=0");
    tu_mlist_free(&c.exp);
    free(hay);
}

/* A count that starts after a front already counted (cfg.front: backend
 * auto's probe of the CPU's rate, whose count the split keeps): the split
 * called directly with the host worker, fronts at 0, 1, inside matches,
 * the middle and the end, against the oracle. */
static void run_front(void)
{
    size_t len = (size_t)3 << 20;
    hay_pattern pats[3] = { { "abcab", 5 }, { "dd", 2 }, { "cabacadab", 9 } };
    tu_case c;
    if (!random_case(&c, len, 4242, "front 3 MiB", pats, 3))
        return;
    hay_patterns *set = NULL;
    hay_status s = compile_split(&c, NULL, HAY_MATCH_ALL, &set);
    if (CHECK(s == HAY_OK, "compile front: %s", hay_strerror(s))) {
        hay_scratch *scratch = NULL;
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        /* A match's end inside it (not at a match's end). */
        uint64_t mid = c.exp.n ? c.exp.m[c.exp.n / 2].end - 1 : len / 2;
        const uint64_t fronts[] = { 0, 1, 7, mid, len / 2, len - 3, len };
        uint64_t piece = 200000;
        for (size_t f = 0; f < sizeof fronts / sizeof fronts[0]; f++)
            for (unsigned threads = 1; threads <= 3; threads += 2) {
                /* The front's count as given (here off by `extra`, to see
                 * that it is taken and the front not searched again). */
                uint64_t before = 0, extra = fronts[f] ? 1000 : 0;
                for (size_t i = 0; i < c.exp.n; i++)
                    before += c.exp.m[i].end <= fronts[f];
                hay_split_cfg cfg = { 65536, (uint64_t)1 << 20, hay_split_host_worker,
                                      &piece, 0, fronts[f], before + extra, NULL };
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                o.threads = threads;
                hay_split_result res;
                uint64_t n = 0;
                s = hay_split_scan(set, scratch, c.hay, len, &o, HAY_SPLIT_COUNT, NULL,
                                   NULL, &n, NULL, &cfg, &res);
                CHECK(s == HAY_OK && n == c.exp.n + extra,
                      "front %llu, %u threads: %s, count %llu, want %llu",
                      (unsigned long long)fronts[f], threads, hay_strerror(s),
                      (unsigned long long)n, (unsigned long long)(c.exp.n + extra));
                CHECK(res.cpu_bytes + res.worker_bytes == len,
                      "front %llu: CPU %llu + worker %llu bytes, want %zu",
                      (unsigned long long)fronts[f], (unsigned long long)res.cpu_bytes,
                      (unsigned long long)res.worker_bytes, len);
            }
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    tu_mlist_free(&c.exp);
    free(c.hay);
}

/* Workers that fail (no GPU; a GPU error after a piece): the CPU
 * searches everything, the worker's thread among its threads in the count
 * modes (split.c's cpu_helper), and nothing is counted twice. */
static hay_status fail_at_once(hay_split *sp, void *wctx)
{
    (void)sp; (void)wctx;
    nanosleep(&(struct timespec){ 0, 5000000 }, NULL);   /* a start-up: threads wait */
    return HAY_ERR_NO_DEVICE;
}

static hay_status fail_after_piece(hay_split *sp, void *wctx)
{
    (void)wctx;
    size_t k;
    uint64_t gs, ge;
    if (hay_split_claim_back(sp, 100000, &k, &gs, &ge) && hay_split_mode(sp) == HAY_SPLIT_EACH)
        hay_split_counts(sp)[0] += 5;   /* partial counts, to be dropped */
    return HAY_ERR_DEVICE;
}

static void run_failing_worker(void)
{
    size_t len = (size_t)2 << 20;
    hay_pattern pats[3] = { { "abcab", 5 }, { "dd", 2 }, { "cabacadab", 9 } };
    tu_case c;
    if (!random_case(&c, len, 515, "failing worker 2 MiB", pats, 3))
        return;
    uint64_t want[3] = { 0 };
    for (size_t i = 0; i < c.exp.n; i++)
        want[c.exp.m[i].id]++;
    hay_patterns *set = NULL;
    hay_status s = compile_split(&c, NULL, HAY_MATCH_ALL, &set);
    if (CHECK(s == HAY_OK, "compile failing: %s", hay_strerror(s))) {
        hay_scratch *scratch = NULL;
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        hay_split_worker_fn workers[2] = { fail_at_once, fail_after_piece };
        /* keep 1: the threads beyond it wait for the worker, and search
         * once it has failed (at once), or leave (after a piece). */
        for (int w = 0; w < 2; w++)
            for (unsigned threads = 1; threads <= 4; threads++)
                for (unsigned keep = 0; keep <= 1; keep++)
                for (int mode = HAY_SPLIT_COUNT; mode <= HAY_SPLIT_EACH; mode++) {
                    hay_split_cfg cfg = { 65536, (uint64_t)1 << 20, workers[w], NULL, keep,
                                          0, 0, NULL };
                    hay_scan_opts o;
                    hay_scan_opts_init(&o);
                    o.threads = threads;
                    hay_split_result res;
                    uint64_t n = 0, each[3] = { 0 };
                    s = hay_split_scan(set, scratch, c.hay, len, &o, mode, NULL, NULL, &n,
                                       each, &cfg, &res);
                    bool ok = s == HAY_OK && n == c.exp.n &&
                              (mode == HAY_SPLIT_COUNT || !memcmp(each, want, sizeof want));
                    CHECK(ok, "failing worker %d, %u threads, keep %u, mode %d: %s, count %llu, "
                          "want %zu; counts %llu %llu %llu, want %llu %llu %llu", w, threads,
                          keep, mode, hay_strerror(s), (unsigned long long)n, c.exp.n,
                          (unsigned long long)each[0], (unsigned long long)each[1],
                          (unsigned long long)each[2], (unsigned long long)want[0],
                          (unsigned long long)want[1], (unsigned long long)want[2]);
                    CHECK(res.cpu_bytes == len && res.worker_bytes == 0 && res.worker_status < 0,
                          "failing worker %d: CPU %llu bytes, worker %llu, status %d", w,
                          (unsigned long long)res.cpu_bytes,
                          (unsigned long long)res.worker_bytes, (int)res.worker_status);
                }
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    tu_mlist_free(&c.exp);
    free(c.hay);
}

/* Backend auto's default on an input at its GPU threshold (256 MiB for
 * several patterns): its probe of the CPU's rate counts the first 32 MiB,
 * and the count goes on from there (on the CPU when no GPU is usable, in
 * the split when the GPU wins), never counting a match twice or missing
 * one across the probe's end.  Matches are planted across that end; the
 * count against the CPU backend's, twice (the second scan has no probe). */
static void run_probe_reuse(void)
{
    size_t len = (size_t)288 << 20, probe = (size_t)32 << 20;
    hay_pattern pats[3] = { { "abcab", 5 }, { "dd", 2 }, { "cabacadabxyz", 12 } };
    uint8_t *hay = malloc(len);
    if (!CHECK(hay != NULL, "malloc %zu", len))
        return;
    tu_rng r = { 99 };
    for (size_t i = 0; i < len; i += 8) {
        uint64_t x = tu_rand(&r);
        for (size_t k = 0; k < 8 && i + k < len; k++)
            hay[i + k] = (uint8_t)('a' + ((x >> (8 * k)) & 3));
    }
    /* The long pattern across the probe's end, "abcab" just before it,
     * and one more a MiB further. */
    memcpy(hay + probe - 6, "cabacadabxyz", 12);
    memcpy(hay + probe - 17, "abcab", 5);
    memcpy(hay + probe + ((size_t)1 << 20) - 3, "cabacadabxyz", 12);
    uint64_t want[2] = { 0, 0 };
    for (int b = 0; b < 2; b++) {
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.backend = b ? HAY_BACKEND_AUTO : HAY_BACKEND_CPU;
        hay_patterns *set = NULL;
        hay_scratch *scratch = NULL;
        hay_status cs = hay_patterns_compile(pats, 3, &co, &set);
        if (!CHECK(cs == HAY_OK, "compile probe set: %s", hay_strerror(cs)))
            break;
        CHECK_ST(hay_scratch_create(set, &scratch), HAY_OK, "scratch");
        for (int rep = 0; rep < 2; rep++) {
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            hay_scan_stats st;
            memset(&st, 0, sizeof st);
            o.stats = &st;
            uint64_t n = 0;
            hay_status s = hay_scan_count(set, scratch, hay, len, &o, &n);
            if (b == 0) {
                CHECK_ST(s, HAY_OK, "cpu count");
                want[rep] = n;
                continue;
            }
            CHECK(s == HAY_OK && n == want[rep],
                  "auto count over the probe's end, scan %d: %s, %llu, want %llu (%s)",
                  rep + 1, hay_strerror(s), (unsigned long long)n,
                  (unsigned long long)want[rep], st.note ? st.note : "");
            printf("probe reuse, scan %d: %llu matches, ran %s: %s\n", rep + 1,
                   (unsigned long long)n, hay_backend_name(st.backend),
                   st.note ? st.note : "");
        }
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    free(hay);
}

/* Which memory the GPU may pin in place for transfer=register
 * (src/cuda/hostreg.h): checked here on every machine, GPU or not. */
bool hay_hostreg_eligible(const void *p, uint64_t n);

static void test_eligible(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = 5 * pg + 123;
    uint8_t *heap = malloc(len);
    CHECK(heap && !hay_hostreg_eligible(heap, len), "malloc'd memory: not eligible");
    uint8_t *an = tu_shared_alloc(NULL, 2 * pg);
    CHECK(an && hay_hostreg_eligible(an, 2 * pg), "shared anonymous memory: eligible");
    CHECK(an && hay_hostreg_eligible(an + 7, 1), "one byte of it: eligible");
    tu_shared_free(an, 2 * pg);
    CHECK(!hay_hostreg_eligible(NULL, 10) && !hay_hostreg_eligible(heap, 0),
          "NULL or empty: not eligible");
    free(heap);
    static const char lit[] = "a string in read-only data";
    CHECK(!hay_hostreg_eligible(lit, sizeof lit), "read-only data: not eligible");
    char path[] = "/tmp/hay-eligible-XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0, "mkstemp"))
        return;
    unlink(path);
    uint8_t *buf = calloc(1, 3 * pg);
    CHECK(buf && write(fd, buf, 3 * pg) == (ssize_t)(3 * pg), "write");
    free(buf);
    uint8_t *sh = mmap(NULL, 3 * pg, PROT_READ, MAP_SHARED, fd, 0);
    uint8_t *pr = mmap(NULL, 3 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK(sh != MAP_FAILED && hay_hostreg_eligible(sh + 1, 3 * pg - 1),
          "shared file mapping: eligible");
    CHECK(pr != MAP_FAILED && !hay_hostreg_eligible(pr, 3 * pg),
          "private file mapping: not eligible");
    /* A hole: the shared mapping with its middle page unmapped. */
    if (sh != MAP_FAILED) {
        munmap(sh + pg, pg);
        CHECK(!hay_hostreg_eligible(sh, 3 * pg), "a range with a hole: not eligible");
        CHECK(hay_hostreg_eligible(sh + 2 * pg, pg), "the page after the hole: eligible");
        munmap(sh, pg);
        munmap(sh + 2 * pg, pg);
    }
    if (pr != MAP_FAILED)
        munmap(pr, 3 * pg);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
        hay_status av = hay_backend_available(HAY_BACKEND_CUDA);
        if (av != HAY_OK) {
            printf("SKIP: no CUDA device (%s)\n", hay_strerror(av));
            return TU_SKIP;
        }
        split_mode = "on";
        on_gpu = true;
    }
    tu_case *cases;
    size_t n = tu_cases_build(&cases);
    for (size_t i = 0; i < n; i++) {
        char note[160];
        snprintf(note, sizeof note, "case '%s', split=%s", cases[i].name, split_mode);
        tu_fail_note = note;
        run_case(&cases[i], 0);
        run_case(&cases[i], 1);
        if (cases[i].npats <= 64)
            run_leftmost(&cases[i]);
    }
    tu_fail_note = NULL;
    run_dense(5000, "chunk=13,split_piece=11");
    run_dense(5000, "chunk=1,split_piece=1");
    run_dense(70000, "chunk=4096,split_piece=999");
    run_worker_share();
    run_team();
    if (!on_gpu) {
        run_front();
        run_failing_worker();
    }
    run_probe_reuse();
    if (on_gpu) {
        /* The GPU side copying straight from the input (transfer=register):
         * each case's haystack is copied into a shared mapping, since heap
         * inputs would be staged. */
        more_params = "transfer=register";
        for (size_t i = 0; i < n; i++) {
            char note[160];
            snprintf(note, sizeof note, "case '%s', split=on,transfer=register",
                     cases[i].name);
            tu_fail_note = note;
            tu_case c = cases[i];
            uint8_t *shm = c.len ? tu_shared_alloc(c.hay, c.len) : NULL;
            if (c.len && !CHECK(shm, "mmap %zu", c.len))
                continue;
            if (shm)
                c.hay = shm;
            run_case(&c, 0);
            tu_shared_free(shm, c.len);
        }
        tu_fail_note = NULL;
        run_dense(70000, "chunk=4096,split_piece=999");
        run_dense(300000, "chunk=5000,split_piece=777");
        more_params = NULL;
        /* The split backend auto runs when the GPU wins and the CPU adds to
         * it (split=heavy). */
        split_mode = "heavy";
        for (size_t i = 0; i < n; i++) {
            char note[160];
            snprintf(note, sizeof note, "case '%s', split=heavy", cases[i].name);
            tu_fail_note = note;
            run_case(&cases[i], 0);
        }
        tu_fail_note = NULL;
        run_dense(70000, "chunk=4096,split_piece=999");
        run_team();
        split_mode = "on";
    }
    test_eligible();
    tu_cases_free(cases, n);
    printf("split=%s: %zu cases\n", split_mode, n);
    return tu_finish();
}
