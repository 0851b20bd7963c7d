/*
 * multi.c - multi-pattern sets on every multi-pattern CPU engine (ac, dfa,
 * pfac, naive, auto) against the oracle, for what the conformance table
 * cannot hold (it needs a byte that occurs in no pattern, for padding):
 *
 *   edges      patterns that are prefixes of others, duplicates (each id
 *              reported), all 256 byte values in patterns, lengths 1 and
 *              65,536, NUL bytes; caseless too; serial, 2 and 3 threads,
 *              both schedules, several chunk sizes
 *   dense      a PFAC window overflowing (many ends per position)
 *   params     the CPU backend's engine parameters (dfa_budget,
 *              pfac_budget): the choices they make, bad keys and values
 *
 * Prints "<n> passed, <m> failed" last.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENGINES 32

static tu_engine engines[MAX_ENGINES];
static size_t nengines;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "multi: out of memory\n");
        abort();
    }
    return p;
}

/* A pattern list that owns its bytes. */
typedef struct plist {
    hay_pattern *p;
    size_t n, cap;
} plist;

static void plist_add(plist *l, const void *data, size_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->p = realloc(l->p, l->cap * sizeof *l->p);
        if (!l->p)
            abort();
    }
    uint8_t *b = xmalloc(len);
    memcpy(b, data, len);
    l->p[l->n].data = b;
    l->p[l->n].len = len;
    l->n++;
}

static void plist_free(plist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((void *)l->p[i].data);
    free(l->p);
    memset(l, 0, sizeof *l);
}

/* Runs one scan and one count with these options against exp. */
static void check_run(const tu_engine *e, const char *what,
                      const hay_patterns *set, hay_scratch *scratch,
                      const uint8_t *hay, size_t len, const plist *pl,
                      const tu_mlist *exp, const tu_mlist *ref, tu_mlist *record,
                      unsigned threads, hay_schedule sch, size_t chunk)
{
    hay_scan_opts o = tu_scan_opts(threads, chunk, sch);
    tu_checker ck;
    tu_checker_init(&ck, exp, 0, pl->p, pl->n);
    ck.ref = ref;
    ck.record = record;
    hay_status s = hay_scan(set, scratch, hay, len, &o, tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, false);
    CHECK(s == HAY_OK && ok, "%s on %s, threads %u %s chunk %zu: %s; %s", what,
          e->label, threads, sch == HAY_SCHEDULE_STATIC ? "static" : "dynamic",
          chunk, hay_strerror(s), ok ? "matches agree" : ck.err);
    tu_checker_free(&ck);
    uint64_t n = UINT64_MAX;
    s = hay_scan_count(set, scratch, hay, len, &o, &n);
    CHECK(s == HAY_OK && n == exp->n, "%s on %s count, threads %u chunk %zu: "
          "%s, %llu, want %zu", what, e->label, threads, chunk, hay_strerror(s),
          (unsigned long long)n, exp->n);
}

/* Every multi-pattern engine, serial and parallel, against the oracle. */
static void check_set(const char *what, const plist *pl, const uint8_t *hay,
                      size_t len, bool caseless, bool light,
                      size_t min_chunk)
{
    double t0 = tu_now();
    tu_mlist exp = { 0 };
    tu_oracle(hay, len, pl->p, pl->n, caseless, &exp);
    size_t chunks[] = { 1, 7, 64, 1000, 70001, 0 };
    for (size_t k = 0; k < nengines; k++) {
        const tu_engine *e = &engines[k];
        if (!e->multi)
            continue;
        double te = tu_now();
        hay_patterns *set = NULL;
        hay_status s = tu_compile(e, pl->p, pl->n, caseless, &set);
        if (e->algo && strcmp(e->algo, "dfa") == 0 && s == HAY_ERR_TOO_LARGE)
            continue;   /* over the DFA's budget: auto covers the fallback */
        if (e->algo && strcmp(e->algo, "teddy") == 0 && s == HAY_ERR_TOO_LARGE &&
            pl->n > 64)
            continue;   /* teddy's limit (src/cpu/teddy.h) */
        if (!CHECK(s == HAY_OK, "%s: compile on %s: %s", what, e->label,
                   hay_strerror(s)))
            continue;
        hay_scratch *scratch = NULL;
        hay_scratch_create(set, &scratch);
        tu_mlist ref = { 0 };
        check_run(e, what, set, scratch, hay, len, pl, &exp, NULL, &ref, 1,
                  HAY_SCHEDULE_DYNAMIC, 0);
        /* The oracle engine on heavy sets: one parallel run. */
        bool few = light && e->algo && strcmp(e->algo, "naive") == 0;
        for (size_t c = few ? 3 : 0; c < (few ? 4 : sizeof chunks / sizeof chunks[0]); c++) {
            /* Tiny chunks on long inputs, or with long patterns (each
             * chunk looks back longest - 1 bytes), only cost time. */
            if (chunks[c] && (chunks[c] < min_chunk ||
                              (chunks[c] < 64 && len > 20000)))
                continue;
            check_run(e, what, set, scratch, hay, len, pl, &exp, &ref, NULL, 2,
                      HAY_SCHEDULE_DYNAMIC, chunks[c] ? chunks[c] : 4096);
            check_run(e, what, set, scratch, hay, len, pl, &exp, &ref, NULL, 3,
                      HAY_SCHEDULE_STATIC, chunks[c]);
        }
        tu_mlist_free(&ref);
        hay_scratch_free(scratch);
        hay_patterns_free(set);
        if (getenv("HAY_MULTI_TIMES"))
            printf("  %s %.2f s\n", e->label, tu_now() - te);
    }
    printf("%-48s %7zu matches %7.2f s\n", what, exp.n, tu_now() - t0);
    fflush(stdout);
    tu_mlist_free(&exp);
}

static void fill(tu_rng *r, uint8_t *p, size_t n, const char *alpha)
{
    size_t k = strlen(alpha);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)alpha[tu_below(r, k)];
}

/* Patterns that are prefixes of others, and duplicates. */
static void edge_prefixes(void)
{
    tu_rng r = { 11 };
    size_t len = 30000;
    uint8_t *hay = xmalloc(len);
    fill(&r, hay, len, "ab");
    for (int caseless = 0; caseless <= 1; caseless++) {
        plist pl = { 0 };
        const char *chain = caseless ? "abAbaBBa" : "abbabaab";
        for (size_t m = 1; m <= 8; m++)
            plist_add(&pl, chain, m);            /* a chain of prefixes */
        plist_add(&pl, chain, 3);                /* duplicates of some */
        plist_add(&pl, chain, 1);
        plist_add(&pl, chain, 8);
        plist_add(&pl, chain, 3);
        plist_add(&pl, "b", 1);
        plist_add(&pl, "ba", 2);
        if (caseless)
            for (size_t i = 0; i < len; i += 3)
                hay[i] = (uint8_t)(hay[i] ^ 0x20);
        check_set(caseless ? "prefixes and duplicates, caseless"
                           : "prefixes and duplicates",
                  &pl, hay, len, caseless != 0, false, 1);
        plist_free(&pl);
    }
    /* One pattern many times over. */
    plist pl = { 0 };
    for (int i = 0; i < 50; i++)
        plist_add(&pl, hay + 100, 3);
    check_set("50 duplicates", &pl, hay, len, false, false, 1);
    plist_free(&pl);
    free(hay);
}

/* Every byte value in the patterns and in the haystack; NUL bytes. */
static void edge_all_bytes(void)
{
    tu_rng r = { 12 };
    size_t len = 40000;
    uint8_t *hay = xmalloc(len);
    for (size_t i = 0; i < len; i++)
        hay[i] = (uint8_t)tu_below(&r, 256);
    for (int caseless = 0; caseless <= 1; caseless++) {
        plist pl = { 0 };
        for (int c = 0; c < 256; c++) {
            uint8_t b = (uint8_t)c;
            plist_add(&pl, &b, 1);               /* every byte, length 1 */
        }
        for (int i = 0; i < 200; i++) {           /* pieces of the haystack */
            size_t m = (size_t)tu_range(&r, 2, 6);
            size_t at = (size_t)tu_below(&r, len - m);
            plist_add(&pl, hay + at, m);
        }
        static const uint8_t nul[] = { 0, 0, 0, 'a', 0 };
        plist_add(&pl, nul, 1);
        plist_add(&pl, nul, 2);
        plist_add(&pl, nul + 2, 3);
        check_set(caseless ? "all 256 byte values, caseless" : "all 256 byte values",
                  &pl, hay, len, caseless != 0, false, 1);
        plist_free(&pl);
    }
    /* NUL-heavy haystack, NUL patterns. */
    memset(hay, 0, len);
    for (size_t i = 0; i < len; i += (size_t)tu_range(&r, 1, 9))
        hay[i] = (uint8_t)tu_range(&r, 1, 3);
    plist pl = { 0 };
    static const uint8_t z[8] = { 0 };
    plist_add(&pl, z, 1);
    plist_add(&pl, z, 2);
    plist_add(&pl, z, 5);
    static const uint8_t mix[] = { 1, 0, 2, 0, 0, 3 };
    plist_add(&pl, mix, 6);
    plist_add(&pl, mix + 1, 2);
    check_set("NUL bytes", &pl, hay, len, false, false, 1);
    plist_free(&pl);
    free(hay);
}

/* Lengths 1 and the maximum, 65,536, in one set. */
static void edge_long(void)
{
    tu_rng r = { 13 };
    size_t m = HAY_MAX_PATTERN_LEN;
    size_t len = 3 * m + 5000;
    bool light = true;
    uint8_t *hay = xmalloc(len);
    fill(&r, hay, len, "abc");
    uint8_t *big = xmalloc(m);
    fill(&r, big, m, "abc");
    /* Planted at the start, overlapping itself shifted by one, and at the
     * end; a copy with its last byte changed just misses. */
    memcpy(hay, big, m);
    memcpy(hay + m + 100, big, m);
    memcpy(hay + len - m, big, m);
    memcpy(hay + 2 * m + 200, big, 3000);
    for (int caseless = 0; caseless <= 1; caseless++) {
        plist pl = { 0 };
        plist_add(&pl, big, m);
        plist_add(&pl, big, m - 1);
        plist_add(&pl, big + 1, m - 1);
        big[m - 1] = (uint8_t)(big[m - 1] == 'a' ? 'b' : 'a');
        plist_add(&pl, big, m);                     /* the near miss */
        big[m - 1] = hay[m - 1];
        plist_add(&pl, "a", 1);
        plist_add(&pl, "c", 1);
        plist_add(&pl, big, 3000);
        plist_add(&pl, big, m);                     /* a duplicate */
        if (caseless)
            for (size_t i = 0; i < len; i += 5)
                hay[i] = (uint8_t)(hay[i] - 32);
        check_set(caseless ? "lengths 1 and 65536, caseless" : "lengths 1 and 65536",
                  &pl, hay, len, caseless != 0, light, 1000);
        plist_free(&pl);
    }
    free(big);
    free(hay);
}

/* Every position ends many matches of different lengths: PFAC's window
 * overflows and must shrink without losing or reordering anything. */
static void dense_windows(void)
{
    size_t len = tu_scaled(6000, 2000);   /* sanitizer builds: smaller */
    uint8_t *hay = xmalloc(len);
    memset(hay, 'a', len);
    for (size_t i = 0; i < len; i += 997)
        hay[i] = 'b';
    plist pl = { 0 };
    uint8_t *run = xmalloc(700);
    memset(run, 'a', 700);
    for (size_t m = 1; m <= 700; m += 7)
        plist_add(&pl, run, m);
    plist_add(&pl, "ba", 2);
    check_set("dense: 100 runs of a, every position", &pl, hay, len, false, true, 64);
    plist_free(&pl);
    /* More ends at one position than a small chunk's window holds: it
     * shrinks to one end and reports straight from the walks. */
    for (size_t m = 1; m <= 300; m++)
        plist_add(&pl, run, m);
    check_set("dense: 300 runs of a, every position", &pl, hay, len / 3, false, true, 64);
    plist_free(&pl);
    free(run);
    free(hay);
}

static hay_status compile_with(const char *algo, const char *params,
                               hay_patterns **set)
{
    static const hay_pattern pats[3] = { { "he", 2 }, { "she", 3 }, { "hers", 4 } };
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = HAY_BACKEND_CPU;
    co.algo = algo;
    co.params = params;
    *set = TU_NOT_NULL;
    return hay_patterns_compile(pats, 3, &co, set);
}

static void params(void)
{
    static const char *const bad[] = {
        "bogus=1", "dfa_budget", "dfa_budget=", "dfa_budget=x", "dfa_budget=1X",
        "dfa_budget=1K,", ",dfa_budget=1", "dfa_budget=1KB", "pfac_budget=-1",
        "dfa_budget=99999999999999999999", "DFA_BUDGET=1", "dfa_budget=1,dfa_budget=2",
    };
    static const char *const algos[] = { NULL, "ac", "dfa", "pfac", "naive", "bm" };
    hay_patterns *set;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
            hay_status s = compile_with(algos[k], bad[i], &set);
            CHECK(s == HAY_ERR_INVALID && set == NULL, "params '%s' with %s: %s",
                  bad[i], algos[k] ? algos[k] : "auto", hay_strerror(s));
        }
    hay_patterns_info info;
    /* The DFA over its budget: refused when asked for, auto keeps ac. */
    CHECK_ST(compile_with("dfa", "dfa_budget=16", &set), HAY_ERR_TOO_LARGE,
             "dfa over a 16-byte budget");
    CHECK_ST(compile_with(NULL, "dfa_budget=16", &set), HAY_OK, "auto, 16 bytes");
    hay_patterns_info_get(set, &info);
    CHECK(strcmp(info.algo, "ac") == 0 && info.states == 8,
          "auto over budget chose %s with %zu states", info.algo, info.states);
    hay_patterns_free(set);
    CHECK_ST(compile_with(NULL, "dfa_budget=1k,pfac_budget=0", &set), HAY_OK,
             "auto, 1 KiB");
    hay_patterns_info_get(set, &info);
    CHECK(strcmp(info.algo, "dfa") == 0, "auto within budget chose %s", info.algo);
    hay_patterns_free(set);
    /* The dense PFAC table takes memory; the compact one less. */
    size_t dense = 0, compact = 0;
    if (compile_with("pfac", "pfac_budget=1G", &set) == HAY_OK) {
        hay_patterns_info_get(set, &info);
        dense = info.memory;
        hay_patterns_free(set);
    }
    if (compile_with("pfac", "pfac_budget=0", &set) == HAY_OK) {
        hay_patterns_info_get(set, &info);
        compact = info.memory;
        hay_patterns_free(set);
    }
    CHECK(dense > compact && compact > 0, "pfac memory dense %zu, compact %zu",
          dense, compact);
    CHECK_ST(compile_with("pfac", "", &set), HAY_OK, "empty params");
    hay_patterns_free(set);
}

int main(void)
{
    params();
    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    edge_prefixes();
    edge_all_bytes();
    edge_long();
    dense_windows();
    return tu_finish();
}
