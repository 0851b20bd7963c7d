/*
 * opencl.c - the OpenCL backend beyond the conformance table (which runs
 * its algorithms too): parameters, piece boundaries, every combination of
 * the PFAC paper's knobs, the match list's split-and-retry, per-phase
 * stats, one set shared by two threads, real pattern sets against the CPU,
 * and the anti-diagonal Smith-Waterman kernel against a scalar reference.
 *
 *   test_opencl [data dir]      exits 77 when no OpenCL device is present
 *
 * On PoCL (OpenCL on the CPU) every call is a few hundred microseconds,
 * so inputs stay small; HAY_TEST_SCALE scales the real-data part.
 */
#include "cases.h"

#include "align/sw_device.h"
#include "opencl/hay_opencl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *data_dir;

/* ---- helpers ------------------------------------------------------------ */

static hay_status compile(const hay_pattern *p, size_t n, bool caseless,
                          const char *algo, const char *params,
                          hay_patterns **set)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_OPENCL;
    o.algo = algo;
    o.params = params;
    o.flags = caseless ? HAY_CASELESS : 0;
    return hay_patterns_compile(p, n, &o, set);
}

/* Scan, count and count_each of hay against the oracle's list `exp`
 * (offsets + shift). */
static void check_all(const char *what, hay_patterns *set, const uint8_t *hay,
                      size_t len, const tu_mlist *exp, uint64_t shift,
                      const hay_pattern *pats, size_t npats)
{
    hay_scratch *sc = NULL;
    if (!CHECK(hay_scratch_create(set, &sc) == HAY_OK, "%s: scratch", what))
        return;
    tu_checker ck;
    tu_checker_init(&ck, exp, shift, pats, npats);
    hay_status s = hay_scan(set, sc, hay, len, NULL, tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, false);
    CHECK(s == HAY_OK && ok, "%s: scan %s; %s", what, hay_strerror(s),
          ok ? "matches agree" : ck.err);
    tu_checker_free(&ck);

    uint64_t n = UINT64_MAX;
    s = hay_scan_count(set, sc, hay, len, NULL, &n);
    CHECK(s == HAY_OK && n == exp->n, "%s: count %s, %llu, want %zu", what,
          hay_strerror(s), (unsigned long long)n, exp->n);

    uint64_t *each = calloc(npats, sizeof *each), *want = calloc(npats, sizeof *want);
    for (size_t i = 0; i < exp->n; i++)
        want[exp->m[i].id]++;
    s = hay_scan_count_each(set, sc, hay, len, NULL, each);
    bool same = s == HAY_OK && memcmp(each, want, npats * sizeof *each) == 0;
    CHECK(same, "%s: count_each %s%s", what, hay_strerror(s),
          same ? "" : ", counts differ");
    free(each);
    free(want);
    hay_scratch_free(sc);
}

/* ---- parameters ----------------------------------------------------------- */

static void check_params(void)
{
    static const hay_pattern two[2] = { { "ab", 2 }, { "cd", 2 } };
    static const char *const bad[] = {
        "nope=1", "wg=3", "wg=0", "wg=8192", "bpw=0", "bpw=2000", "transfer=zero",
        "local=2", "local=", "table=sparse", "cap=0", "piece=0", "cache=7",
        "device=99:0", "device=0:99", "device=abc", "device=", "wg=64k1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hay_patterns *set = TU_NOT_NULL;
        hay_status s = compile(two, 2, false, "pfac", bad[i], &set);
        CHECK(s == HAY_ERR_INVALID && set == NULL, "params '%s': %s, want "
              "HAY_ERR_INVALID and a NULL set", bad[i], hay_strerror(s));
    }
    hay_patterns *set = TU_NOT_NULL;
    CHECK_ST(compile(two, 2, false, "brute", NULL, &set), HAY_ERR_UNSUPPORTED,
             "brute with two patterns");
    CHECK(set == NULL, "brute with two patterns left a set");
    CHECK_ST(compile(two, 2, false, "ac", NULL, &set), HAY_ERR_UNKNOWN_NAME,
             "opencl/ac");
    /* Good ones, and the knobs they set. */
    hay_status s = compile(two, 2, false, "pfac",
                           "device=0:0,transfer=copy,local=1,wg=64,bpw=3,table=compact,"
                           "cap=100,piece=1m,cache=0", &set);
    if (CHECK(s == HAY_OK, "good params: %s", hay_strerror(s))) {
        char buf[512];
        CHECK_ST(hay_opencl_describe_set(set, buf, sizeof buf), HAY_OK, "describe");
        CHECK(strstr(buf, "device=0:0") && strstr(buf, "transfer=copy") &&
              strstr(buf, "local=1") && strstr(buf, "wg=64") && strstr(buf, "bpw=3") &&
              strstr(buf, "table=compact") && strstr(buf, "cap=100") &&
              strstr(buf, "piece=1048576"), "knobs in effect: %s", buf);
        hay_patterns_info info;
        hay_patterns_info_get(set, &info);
        CHECK(info.backend == HAY_BACKEND_OPENCL && !strcmp(info.algo, "pfac"),
              "info: backend %d algo %s", (int)info.backend, info.algo);
        /* Streams are not supported, and say so. */
        hay_stream *st = TU_NOT_NULL;
        CHECK_ST(hay_stream_open(set, tu_check_cb, NULL, &st), HAY_ERR_UNSUPPORTED,
                 "stream on opencl");
        CHECK(st == NULL, "stream left set");
        hay_patterns_free(set);
    }
    /* A CPU set is not an OpenCL set. */
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_CPU;
    if (hay_patterns_compile(two, 2, &o, &set) == HAY_OK) {
        char buf[64];
        CHECK_ST(hay_opencl_describe_set(set, buf, sizeof buf), HAY_ERR_INVALID,
                 "describe a CPU set");
        hay_patterns_free(set);
    }
}

/* ---- piece boundaries over the conformance table ----------------------------- */

/* Every case, cut into pieces of 1, longest - 1, longest and 64 bytes
 * (each piece looks back longest - 1 bytes) with PFAC, and of longest
 * bytes with the compact table and with brute force; with 64-byte pieces
 * the list capacity is at its minimum, so that launches split too.  At
 * most 100 pieces a call: each one is a round trip. */
static void check_pieces(const tu_case *cs, size_t nc)
{
    for (size_t ci = 0; ci < nc; ci++) {
        const tu_case *c = &cs[ci];
        size_t maxlen = 0;
        for (size_t i = 0; i < c->npats; i++)
            if (c->pats[i].len > maxlen)
                maxlen = c->pats[i].len;
        size_t sizes[4] = { 1, maxlen > 1 ? maxlen - 1 : 1, maxlen, 64 };
        for (size_t k = 0; k < 4; k++) {
            size_t p = sizes[k];
            bool dup = false;
            for (size_t j = 0; j < k; j++)
                dup = dup || sizes[j] == p;
            if (dup || c->len / p > 100)
                continue;
            for (int v = 0; v < 3; v++) {
                const char *algo = v == 2 ? "brute" : "pfac";
                if ((v >= 1 && k != 2) || (v == 2 && c->npats > 1))
                    continue;
                char params[96], what[200];
                snprintf(params, sizeof params, "piece=%zu%s%s", p,
                         v == 1 ? ",table=compact" : "", k == 3 ? ",cap=1" : "");
                snprintf(what, sizeof what, "'%s' %s %s", c->name, algo, params);
                hay_patterns *set = NULL;
                hay_status s = compile(c->pats, c->npats, c->caseless, algo, params, &set);
                if (!CHECK(s == HAY_OK, "%s: compile %s", what, hay_strerror(s)))
                    continue;
                check_all(what, set, c->hay, c->len, &c->exp, 0, c->pats, c->npats);
                hay_patterns_free(set);
            }
        }
    }
}

/* ---- the paper's knobs ------------------------------------------------------------ */

/* A haystack of letters from a small alphabet, with patterns cut from it:
 * many matches, overlapping ones, and walks of every depth. */
static uint8_t *make_text(tu_rng *r, size_t len, const char *alpha)
{
    uint8_t *t = malloc(len);
    size_t na = strlen(alpha);
    for (size_t i = 0; i < len; i++)
        t[i] = (uint8_t)alpha[tu_below(r, na)];
    return t;
}

static void check_knobs(void)
{
    tu_rng r = { 0x0c1 };
    size_t len = 24 << 10, np = 40;
    uint8_t *text = make_text(&r, len, "abcdAB");
    hay_pattern *pats = malloc(np * sizeof *pats);
    for (size_t i = 0; i < np; i++) {
        size_t m = 1 + tu_below(&r, i < 10 ? 4 : 40);
        size_t at = tu_below(&r, len - m);
        pats[i].data = text + at;
        pats[i].len = m;
    }
    tu_mlist exp[2] = { { 0 }, { 0 } }, exp1[2] = { { 0 }, { 0 } };
    for (int cl = 0; cl < 2; cl++) {
        tu_oracle(text, len, pats, np, cl, &exp[cl]);
        tu_oracle(text, len, &pats[12], 1, cl, &exp1[cl]);
    }
    static const char *const transfer[] = { "copy", "map" };
    static const unsigned wgs[] = { 32, 64, 256 }, bpws[] = { 1, 4 };
    int combo = 0;
    for (int t = 0; t < 2; t++)
        for (int l = 0; l < 2; l++)
            for (int w = 0; w < 3; w++)
                for (int b = 0; b < 2; b++, combo++) {
                    bool cl = combo % 2;
                    char params[128], what[200];
                    /* the compact table on every third combination */
                    snprintf(params, sizeof params, "transfer=%s,local=%d,wg=%u,bpw=%u%s",
                             transfer[t], l, wgs[w], bpws[b],
                             combo % 3 == 0 ? ",table=compact" : "");
                    hay_patterns *set = NULL;
                    snprintf(what, sizeof what, "pfac %s%s", params, cl ? " caseless" : "");
                    hay_status s = compile(pats, np, cl, "pfac", params, &set);
                    if (CHECK(s == HAY_OK, "%s: compile %s", what, hay_strerror(s))) {
                        check_all(what, set, text, len, &exp[cl], 0, pats, np);
                        hay_patterns_free(set);
                    }
                    snprintf(what, sizeof what, "brute %s%s", params, cl ? " caseless" : "");
                    s = compile(&pats[12], 1, cl, "brute", params, &set);
                    if (CHECK(s == HAY_OK, "%s: compile %s", what, hay_strerror(s))) {
                        check_all(what, set, text, len, &exp1[cl], 0, &pats[12], 1);
                        hay_patterns_free(set);
                    }
                }
    /* transfer=pinned (not in the paper): both local settings */
    for (int l = 0; l < 2; l++) {
        char params[96], what[160];
        snprintf(params, sizeof params, "transfer=pinned,local=%d,wg=64,bpw=4", l);
        hay_patterns *set = NULL;
        snprintf(what, sizeof what, "pfac %s", params);
        hay_status s = compile(pats, np, false, "pfac", params, &set);
        if (CHECK(s == HAY_OK, "%s: compile %s", what, hay_strerror(s))) {
            char buf[256];
            hay_opencl_describe_set(set, buf, sizeof buf);
            CHECK(strstr(buf, "transfer=pinned") != NULL, "%s: %s", what, buf);
            check_all(what, set, text, len, &exp[0], 0, pats, np);
            hay_patterns_free(set);
        }
    }
    printf("knobs: %d combinations of transfer x local x wg x bpw, PFAC and brute force\n",
           combo);
    for (int cl = 0; cl < 2; cl++) {
        tu_mlist_free(&exp[cl]);
        tu_mlist_free(&exp1[cl]);
    }
    free(pats);
    free(text);
}

/* ---- split and retry -------------------------------------------------------------- */

/* Dense matches, a list of 3 slots: launches split down to one end
 * position each, and every match still arrives, in order, once. */
static void check_tiny_cap(void)
{
    size_t len = 1500;
    uint8_t *text = malloc(len);
    memset(text, 'a', len);
    static const hay_pattern p[3] = { { "a", 1 }, { "aa", 2 }, { "aaa", 3 } };
    tu_mlist exp = { 0 };
    tu_oracle(text, len, p, 3, false, &exp);
    hay_patterns *set = NULL;
    hay_status s = compile(p, 3, false, "pfac", "cap=1", &set);
    if (CHECK(s == HAY_OK, "tiny cap: compile %s", hay_strerror(s))) {
        char buf[256];
        hay_opencl_describe_set(set, buf, sizeof buf);
        CHECK(strstr(buf, "cap=3") != NULL, "cap raised to the pattern count: %s", buf);
        check_all("tiny cap", set, text, len, &exp, 0, p, 3);
        /* the stats count what was delivered (on 300 bytes: with an energy
         * meter, stats read it at every phase of every split launch) */
        hay_scratch *sc;
        hay_scratch_create(set, &sc);
        hay_scan_stats st;
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.stats = &st;
        tu_mlist exp300 = { 0 };
        tu_oracle(text, 300, p, 3, false, &exp300);
        tu_checker ck;
        tu_checker_init(&ck, &exp300, 0, p, 3);
        s = hay_scan(set, sc, text, 300, &o, tu_check_cb, &ck);
        CHECK(s == HAY_OK && tu_checker_done(&ck, false) && st.matches == exp300.n,
              "tiny cap with stats: %s, %llu matches, want %zu", hay_strerror(s),
              (unsigned long long)st.matches, exp300.n);
        tu_checker_free(&ck);
        tu_mlist_free(&exp300);
        hay_scratch_free(sc);
        hay_patterns_free(set);
    }
    tu_mlist_free(&exp);
    free(text);
}

/* ---- stats ------------------------------------------------------------------------ */

static void check_stats(void)
{
    static const hay_pattern p[2] = { { "needle", 6 }, { "hay", 3 } };
    const char *text = "haystack with a needle in the haystack";
    size_t len = strlen(text);
    hay_patterns *set = NULL;
    if (!CHECK(compile(p, 2, false, "pfac", NULL, &set) == HAY_OK, "stats: compile"))
        return;
    hay_scratch *sc;
    hay_scratch_create(set, &sc);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    hay_scan_stats st[2];
    for (int i = 0; i < 2; i++) {
        memset(&st[i], 0xff, sizeof st[i]);
        o.stats = &st[i];
        uint64_t n = 0;
        CHECK_ST(hay_scan_count(set, sc, text, len, &o, &n), HAY_OK, "stats: count");
        CHECK(n == 3 && st[i].matches == 3 && st[i].bytes == len &&
              st[i].backend == HAY_BACKEND_OPENCL && !strcmp(st[i].algo, "pfac"),
              "stats %d: n %llu matches %llu bytes %llu backend %d", i,
              (unsigned long long)n, (unsigned long long)st[i].matches,
              (unsigned long long)st[i].bytes, (int)st[i].backend);
        CHECK(st[i].copy_in_seconds > 0 && st[i].kernel_seconds > 0 &&
              st[i].copy_out_seconds > 0 && st[i].total_seconds >=
              st[i].kernel_seconds, "stats %d: phases %g %g %g total %g", i,
              st[i].copy_in_seconds, st[i].kernel_seconds, st[i].copy_out_seconds,
              st[i].total_seconds);
        bool metered = st[i].energy_method && strcmp(st[i].energy_method, "unavailable");
        CHECK(st[i].energy_method != NULL &&
              (metered ? st[i].energy_joules >= 0 && st[i].kernel_joules >= 0
                       : st[i].energy_joules < 0 && st[i].kernel_joules < 0 &&
                         st[i].init_joules < 0),
              "stats %d: energy %s %g J (kernel %g J)", i,
              st[i].energy_method ? st[i].energy_method : "NULL",
              st[i].energy_joules, st[i].kernel_joules);
        if (i == 0)
            printf("stats: energy meter %s\n", st[i].energy_method);
    }
    /* initialization and preparation are reported once, by the first scan */
    CHECK(st[0].init_seconds > 0 && st[0].prepare_seconds > 0 &&
          st[1].init_seconds == 0 && st[1].prepare_seconds == 0,
          "init/prepare: first %g %g, second %g %g", st[0].init_seconds,
          st[0].prepare_seconds, st[1].init_seconds, st[1].prepare_seconds);
    hay_scratch_free(sc);
    hay_patterns_free(set);
}

/* ---- one set, two threads -------------------------------------------------------- */

typedef struct thread_job {
    const hay_patterns *set;
    const uint8_t *text;
    size_t len;
    uint64_t sum;
    hay_status s;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    hay_scratch *sc;
    j->s = hay_scratch_create(j->set, &sc);
    for (int i = 0; i < 20 && j->s == HAY_OK; i++) {
        uint64_t n;
        j->s = hay_scan_count(j->set, sc, j->text, j->len, NULL, &n);
        j->sum += n;
    }
    hay_scratch_free(sc);
    return NULL;
}

static void check_threads(void)
{
    tu_rng r = { 77 };
    size_t len = 8192;
    uint8_t *text = make_text(&r, len, "ab");
    static const hay_pattern p[2] = { { "ab", 2 }, { "bba", 3 } };
    tu_mlist exp = { 0 };
    tu_oracle(text, len, p, 2, false, &exp);
    hay_patterns *set = NULL;
    if (CHECK(compile(p, 2, false, "pfac", NULL, &set) == HAY_OK, "threads: compile")) {
        thread_job j[2] = { { set, text, len, 0, HAY_OK }, { set, text, len, 0, HAY_OK } };
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, thread_main, &j[i]);
        for (int i = 0; i < 2; i++) {
            pthread_join(t[i], NULL);
            CHECK(j[i].s == HAY_OK && j[i].sum == 20 * exp.n,
                  "thread %d: %s, %llu, want %zu", i, hay_strerror(j[i].s),
                  (unsigned long long)j[i].sum, 20 * exp.n);
        }
        hay_patterns_free(set);
    }
    tu_mlist_free(&exp);
    free(text);
}

/* ---- real pattern sets, against the CPU ------------------------------------------- */

typedef struct rec {
    uint64_t end;
    uint32_t id;
} rec;

typedef struct recs {
    rec *r;
    size_t n, cap;
} recs;

static int rec_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    recs *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->r = realloc(l->r, l->cap * sizeof *l->r);
    }
    l->r[l->n++] = (rec){ end, id };
    return 0;
}

static int rec_cmp(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The device's counts and list equal the CPU's for one pattern file over
 * every text file (counts over whole files, counts per pattern and the
 * list over a slice). */
static void check_real(const char *pfile, bool caseless)
{
    size_t np;
    uint8_t *store;
    hay_pattern *pats = tu_data_patterns(data_dir, pfile, &np, &store);
    if (!pats)
        return;
    static const char *const texts[] = {
        "sherlock.txt", "alice29.txt", "bible.txt", "world192.txt", "war_and_peace.txt",
        "moby_dick.txt", "opensubtitles-en-sampled.txt", "opensubtitles-ru-sampled.txt",
        "opensubtitles-zh-sampled.txt", "long-needle1.txt", "long-needle2.txt",
    };
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_CPU;
    o.flags = caseless ? HAY_CASELESS : 0;
    hay_patterns *cpu = NULL, *gpu = NULL;
    double t0 = tu_now();
    if (!CHECK(hay_patterns_compile(pats, np, &o, &cpu) == HAY_OK, "%s: cpu compile", pfile) ||
        !CHECK(compile(pats, np, caseless, "pfac", NULL, &gpu) == HAY_OK,
               "%s: opencl compile", pfile))
        goto out;
    hay_scratch *sc;
    hay_scratch_create(cpu, &sc);
    size_t total = 0;
    char path[1024];
    for (size_t f = 0; f < sizeof texts / sizeof texts[0]; f++) {
        snprintf(path, sizeof path, "%s/text/%s", data_dir, texts[f]);
        size_t len;
        uint8_t *d = tu_read_file(path, &len);
        if (!d) {
            printf("SKIP: %s not found\n", path);
            continue;
        }
        size_t use = tu_scaled(len, 4096);
        if (use > len)
            use = len;
        total += use;
        uint64_t want = 0, got = 0;
        hay_scan_count(cpu, sc, d, use, NULL, &want);
        hay_status s = hay_scan_count(gpu, sc, d, use, NULL, &got);
        CHECK(s == HAY_OK && got == want, "%s%s on %s (%zu bytes): count %s %llu, cpu %llu",
              pfile, caseless ? " -i" : "", texts[f], use, hay_strerror(s),
              (unsigned long long)got, (unsigned long long)want);

        size_t slice = use < ((size_t)256 << 10) ? use : (size_t)256 << 10;
        uint64_t *a = calloc(np, 8), *b = calloc(np, 8);
        hay_scan_count_each(cpu, sc, d, slice, NULL, a);
        s = hay_scan_count_each(gpu, sc, d, slice, NULL, b);
        CHECK(s == HAY_OK && !memcmp(a, b, np * 8), "%s on %s: count_each %s%s", pfile,
              texts[f], hay_strerror(s), s == HAY_OK ? ", counts differ" : "");
        free(a);
        free(b);

        slice = slice < ((size_t)64 << 10) ? slice : (size_t)64 << 10;
        recs rc = { 0 }, rg = { 0 };
        hay_scan(cpu, sc, d, slice, NULL, rec_cb, &rc);
        s = hay_scan(gpu, sc, d, slice, NULL, rec_cb, &rg);
        /* the device's order is (end, id); the CPU's ties may differ */
        bool sorted = true;
        for (size_t i = 1; i < rg.n && sorted; i++)
            sorted = rec_cmp(&rg.r[i - 1], &rg.r[i]) <= 0;
        if (rc.n)
            qsort(rc.r, rc.n, sizeof *rc.r, rec_cmp);
        bool same = rc.n == rg.n;
        for (size_t i = 0; i < rc.n && same; i++)
            same = rec_cmp(&rc.r[i], &rg.r[i]) == 0;
        CHECK(s == HAY_OK && sorted && same,
              "%s on %s: list %s, %zu matches (cpu %zu)%s", pfile, texts[f],
              hay_strerror(s), rg.n, rc.n, sorted ? "" : ", out of order");
        free(rc.r);
        free(rg.r);
        free(d);
    }
    printf("real: %s%s (%zu patterns) over %zu bytes: %.2f s\n", pfile,
           caseless ? " caseless" : "", np, total, tu_now() - t0);
    hay_scratch_free(sc);
out:
    hay_patterns_free(cpu);
    hay_patterns_free(gpu);
    free(pats);
    free(store);
}

/* Pieces smaller than the input, on real data: 1 MB in 64 KB pieces. */
static void check_real_pieces(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/text/bible.txt", data_dir);
    size_t len;
    uint8_t *d = tu_read_file(path, &len);
    if (!d)
        return;
    if (len > ((size_t)1 << 20))
        len = (size_t)1 << 20;
    static const hay_pattern p[3] = { { "the", 3 }, { "LORD", 4 }, { "and the", 7 } };
    tu_mlist exp = { 0 };
    tu_oracle(d, len, p, 3, true, &exp);
    hay_patterns *set = NULL;
    if (CHECK(compile(p, 3, true, "pfac", "piece=64k,cap=4096", &set) == HAY_OK,
              "real pieces: compile"))
        check_all("bible 1 MB in 64 KB pieces, caseless", set, d, len, &exp, 0, p, 3);
    hay_patterns_free(set);
    tu_mlist_free(&exp);
    free(d);
}

/* ---- Smith-Waterman ------------------------------------------------------------ */

/* Built only with the OpenCL backend (the library has no OpenCL
 * Smith-Waterman otherwise, and main skips before it). */
#ifdef HAY_TEST_OPENCL_SW

/* The scalar reference: Gotoh, row by row; ties to the smallest row, then
 * column (the first in row-major order with a strict >). */
static void sw_ref(const hay_sw_problem *p, int32_t *score, uint64_t *qe, uint64_t *te)
{
    const int32_t NEG = -(1 << 29);
    size_t m = p->m, n = p->n;
    int32_t *h = calloc(n + 1, 4), *f = malloc((n + 1) * 4);
    for (size_t j = 0; j <= n; j++)
        f[j] = NEG;
    *score = 0;
    *qe = *te = 0;
    for (size_t i = 0; i < m; i++) {
        int32_t diag = 0, e = NEG, left = 0;   /* H(i, -1) = 0 */
        for (size_t j = 0; j < n; j++) {
            int32_t up = h[j + 1];
            e = (e - p->gap_extend > left - p->gap_open) ? e - p->gap_extend
                                                         : left - p->gap_open;
            int32_t fv = (f[j + 1] - p->gap_extend > up - p->gap_open)
                             ? f[j + 1] - p->gap_extend : up - p->gap_open;
            f[j + 1] = fv;
            int32_t v = diag + p->matrix[p->q[i] * p->alpha + p->t[j]];
            if (v < 0)
                v = 0;
            if (e > v)
                v = e;
            if (fv > v)
                v = fv;
            diag = up;
            h[j + 1] = v;
            left = v;
            if (v > *score) {
                *score = v;
                *qe = i;
                *te = j;
            }
        }
    }
    free(h);
    free(f);
}

static void sw_case(const char *what, const hay_sw_problem *p, const char *params)
{
    int32_t want;
    uint64_t qe, te;
    sw_ref(p, &want, &qe, &te);
    hay_sw_device_result r;
    int s = hay_opencl_sw_score(p, "simple", params, &r);
    CHECK(s == 0 && r.score == want && r.q_end == qe && r.t_end == te &&
          r.cells == (uint64_t)p->m * p->n,
          "sw %s (%zu x %zu, open %d ext %d, %s): status %d score %d at (%llu, %llu), "
          "want %d at (%llu, %llu)", what, p->m, p->n, p->gap_open, p->gap_extend,
          params ? params : "defaults", s, r.score, (unsigned long long)r.q_end,
          (unsigned long long)r.t_end, want, (unsigned long long)qe, (unsigned long long)te);
}

static void check_sw(void)
{
    CHECK(hay_opencl_sw_variant(0) && !strcmp(hay_opencl_sw_variant(0), "simple") &&
          hay_opencl_sw_variant(1) == NULL, "sw variants");
    tu_rng r = { 2024 };
    int32_t mat[HAY_SW_MAX_ALPHA * HAY_SW_MAX_ALPHA];
    uint8_t q[600], t[600];
    static const char *const shapes[] = { NULL, "threads=1", "threads=32", "threads=256" };
    int ncase = 0;
    for (int k = 0; k < 48; k++) {
        int alpha = k % 3 == 0 ? 4 : k % 3 == 1 ? 20 : 1 + (int)tu_below(&r, 32);
        for (int a = 0; a < alpha; a++)
            for (int b = 0; b < alpha; b++)
                mat[a * alpha + b] = a == b ? 1 + (int)tu_below(&r, 6)
                                            : -(int)tu_below(&r, 5);
        size_t m = 1 + tu_below(&r, k < 8 ? 4 : k < 40 ? 120 : 500);
        size_t n = 1 + tu_below(&r, k < 8 ? 4 : k < 40 ? 120 : 500);
        for (size_t i = 0; i < m; i++)
            q[i] = (uint8_t)tu_below(&r, (uint64_t)alpha);
        /* the target shares stretches of the query, with mutations */
        for (size_t j = 0; j < n; j++)
            t[j] = tu_below(&r, 3) ? q[(j * 7 / 5) % m] : (uint8_t)tu_below(&r, (uint64_t)alpha);
        hay_sw_problem p = { q, m, t, n, mat, alpha, (int32_t)tu_below(&r, 13),
                             (int32_t)tu_below(&r, 4) };
        sw_case("random", &p, shapes[k % 4]);
        ncase++;
    }
    /* Ties: a repeated motif scores the same at every copy; the first
     * (smallest query end, then target end) must win. */
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            mat[a * 4 + b] = a == b ? 2 : -3;
    static const uint8_t rep[] = { 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3 };
    static const uint8_t motif[] = { 0, 1, 2, 3 };
    hay_sw_problem tie1 = { rep, 12, motif, 4, mat, 4, 5, 2 };
    hay_sw_problem tie2 = { motif, 4, rep, 12, mat, 4, 5, 2 };
    sw_case("ties in the query", &tie1, NULL);
    sw_case("ties in the target", &tie2, "threads=2");
    /* Nothing aligns: score 0 at (0, 0). */
    static const uint8_t zeros[] = { 0, 0, 0 }, ones[] = { 1, 1 };
    hay_sw_problem none = { zeros, 3, ones, 2, mat, 4, 5, 2 };
    sw_case("no alignment", &none, NULL);
    /* A longer pair of real DNA when the data is there. */
    char path[1024];
    snprintf(path, sizeof path, "%s/bio/dna/lambda_phage.fa", data_dir);
    size_t len;
    uint8_t *fa = tu_read_file(path, &len);
    if (fa) {
        size_t nb = 0;
        uint8_t *codes = malloc(len);
        bool header = false;
        for (size_t i = 0; i < len; i++) {
            uint8_t c = fa[i];
            if (c == '>')
                header = true;
            if (c == '\n') {
                header = false;
                continue;
            }
            if (header)
                continue;
            const char *acgt = "ACGT", *hit = memchr(acgt, c & ~0x20, 4);
            if (hit)
                codes[nb++] = (uint8_t)(hit - acgt);
        }
        size_t m = tu_scaled(1500, 200), n = tu_scaled(1200, 200);
        if (nb > 20000 + m) {
            hay_sw_problem p = { codes + 1000, m, codes + 20000, n, mat, 4, 5, 2 };
            sw_case("lambda phage slices", &p, NULL);
            /* a slice against itself with an insertion */
            hay_sw_problem p2 = { codes + 5000, m, codes + 5003, n, mat, 4, 5, 2 };
            sw_case("lambda phage overlap", &p2, "threads=64");
            ncase += 2;
        }
        free(codes);
        free(fa);
    }
    /* Errors. */
    hay_sw_device_result res;
    hay_sw_problem p = { q, 3, t, 3, mat, 4, 5, 2 };
    q[0] = q[1] = q[2] = t[0] = t[1] = t[2] = 0;
    CHECK(hay_opencl_sw_score(&p, "tiled", NULL, &res) == HAY_ERR_UNKNOWN_NAME, "sw variant");
    CHECK(hay_opencl_sw_score(&p, NULL, "threads=0", &res) == HAY_ERR_INVALID, "sw threads=0");
    CHECK(hay_opencl_sw_score(&p, NULL, "blocks=3", &res) == HAY_ERR_INVALID, "sw unknown key");
    CHECK(hay_opencl_sw_score(NULL, NULL, NULL, &res) == HAY_ERR_INVALID, "sw NULL");
    q[1] = 4;
    CHECK(hay_opencl_sw_score(&p, NULL, NULL, &res) == HAY_ERR_INVALID, "sw code >= alpha");
    q[1] = 0;
    p.gap_open = -1;
    CHECK(hay_opencl_sw_score(&p, NULL, NULL, &res) == HAY_ERR_INVALID, "sw negative gap");
    p.gap_open = 5;
    p.m = 0;
    CHECK(hay_opencl_sw_score(&p, NULL, NULL, &res) == 0 && res.score == 0 && res.cells == 0,
          "sw empty query");
    printf("sw: %d pairs against the scalar reference\n", ncase + 3);
}
#endif

int main(int argc, char **argv)
{
    data_dir = argc > 1 ? argv[1] : "../shared/data";
    hay_status av = hay_backend_available(HAY_BACKEND_OPENCL);
    if (av != HAY_OK) {
        printf("SKIP: OpenCL backend: %s\n", hay_strerror(av));
        return TU_SKIP;
    }
    char desc[512];
    hay_device_describe(HAY_BACKEND_OPENCL, 0, desc, sizeof desc);
    printf("OpenCL device 0: %s\n", desc);
    double t0 = tu_now();
    check_params();
    check_stats();
    printf("params, stats: %.2f s\n", tu_now() - t0);
    t0 = tu_now();
    tu_case *cases;
    size_t nc = tu_cases_build(&cases);
    check_pieces(cases, nc);
    tu_cases_free(cases, nc);
    printf("pieces: %zu cases, %.2f s\n", nc, tu_now() - t0);
    t0 = tu_now();
    check_knobs();
    check_tiny_cap();
    check_threads();
    printf("knobs, tiny cap, threads: %.2f s\n", tu_now() - t0);
    t0 = tu_now();
#ifdef HAY_TEST_OPENCL_SW
    check_sw();
#endif
    printf("sw: %.2f s\n", tu_now() - t0);
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/text", data_dir);
    FILE *f = fopen(probe, "r");
    if (f) {
        fclose(f);
        check_real("snort-community.txt", false);
        check_real("snort-community.txt", true);
        check_real("et-open.txt", false);
        check_real_pieces();
    } else {
        printf("SKIP: real data: %s not found\n", probe);
    }
    return tu_finish();
}
