/*
 * million.c - the largest pattern sets: 1,000,000 random patterns
 * (HAY_MAX_PATTERNS; scaled down by HAY_TEST_SCALE under sanitizers), with
 * duplicates and patterns that are prefixes of others, compiled by auto,
 * ac and pfac (compact and dense tables; exact and caseless), each scanned serially and on two
 * threads over a small haystack that holds some of them, against an oracle
 * written here for large sets (every substring of every pattern length,
 * looked up by binary search in the sorted patterns).  Also the limits:
 * HAY_MAX_PATTERNS + 1 patterns and a pattern of HAY_MAX_PATTERN_LEN + 1
 * bytes are refused with HAY_ERR_TOO_LARGE, and compile times and states
 * are printed.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HAY_LEN 3000
#define MIN_LEN 3
#define MAX_LEN 12

typedef struct sorted_pats {
    const hay_pattern *pats;
    uint32_t *order;    /* ids sorted by folded bytes, then id */
    bool caseless;
} sorted_pats;

static const sorted_pats *cmp_ctx;

static int cmp_bytes(const uint8_t *a, size_t la, const uint8_t *b, size_t lb,
                     bool caseless)
{
    size_t n = la < lb ? la : lb;
    for (size_t i = 0; i < n; i++) {
        uint8_t x = caseless ? tu_fold(a[i]) : a[i];
        uint8_t y = caseless ? tu_fold(b[i]) : b[i];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return la < lb ? -1 : la > lb;
}

static int cmp_ids(const void *pa, const void *pb)
{
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
    const hay_pattern *p = cmp_ctx->pats;
    int r = cmp_bytes(p[x].data, p[x].len, p[y].data, p[y].len, cmp_ctx->caseless);
    return r ? r : (x > y) - (x < y);
}

/* All matches, in order of (end, id). */
static void oracle(const uint8_t *hay, size_t len, const sorted_pats *sp,
                   size_t n, tu_mlist *out)
{
    uint32_t ids[4096];
    for (size_t end = 1; end <= len; end++) {
        size_t k = 0;
        for (size_t m = 1; m <= MAX_LEN && m <= end; m++) {
            const uint8_t *s = hay + end - m;
            size_t lo = 0, hi = n;
            while (lo < hi) {   /* first pattern >= s */
                size_t mid = lo + (hi - lo) / 2;
                const hay_pattern *q = &sp->pats[sp->order[mid]];
                if (cmp_bytes(q->data, q->len, s, m, sp->caseless) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < n; lo++) {
                const hay_pattern *q = &sp->pats[sp->order[lo]];
                if (cmp_bytes(q->data, q->len, s, m, sp->caseless) != 0)
                    break;
                if (k < sizeof ids / sizeof ids[0])
                    ids[k++] = sp->order[lo];
            }
        }
        /* ids by value: insertion sort, few per end */
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
                uint32_t t = ids[j];
                ids[j] = ids[j - 1];
                ids[j - 1] = t;
            }
        for (size_t i = 0; i < k; i++)
            tu_mlist_push(out, ids[i], end - sp->pats[ids[i]].len, end);
    }
}

static void run(const char *algo, const char *params, const hay_pattern *pats,
                size_t n, const uint8_t *hay, const tu_mlist *exp, bool caseless)
{
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.algo = algo;
    co.params = params;
    co.flags = caseless ? HAY_CASELESS : 0;
    hay_patterns *set = NULL;
    double t0 = tu_now();
    hay_status s = hay_patterns_compile(pats, n, &co, &set);
    double dt = tu_now() - t0;
    if (!CHECK(s == HAY_OK, "compile %zu patterns with %s%s: %s", n,
               algo ? algo : "auto", caseless ? " caseless" : "", hay_strerror(s)))
        return;
    hay_patterns_info info;
    hay_patterns_info_get(set, &info);
    printf("%-5s %-8s %zu patterns: %s, %zu states, %.1f MB, compiled in %.2f s\n",
           algo ? algo : "auto", caseless ? "caseless" : "exact", n, info.algo,
           info.states, (double)info.memory / 1e6, dt);
    fflush(stdout);
    CHECK(info.states > n / 2, "%s: %zu states for %zu patterns", info.algo,
          info.states, n);
    hay_scratch *scratch = NULL;
    hay_scratch_create(set, &scratch);
    for (unsigned threads = 1; threads <= 2; threads++) {
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = threads;
        o.chunk_size = threads > 1 ? 500 : 0;
        tu_checker ck;
        tu_checker_init(&ck, exp, 0, pats, n);
        s = hay_scan(set, scratch, hay, HAY_LEN, &o, tu_check_cb, &ck);
        bool ok = tu_checker_done(&ck, false);
        CHECK(s == HAY_OK && ok, "scan with %s, %u threads: %s; %s", info.algo,
              threads, hay_strerror(s), ok ? "agree" : ck.err);
        tu_checker_free(&ck);
        uint64_t c = 0;
        s = hay_scan_count(set, scratch, hay, HAY_LEN, &o, &c);
        CHECK(s == HAY_OK && c == exp->n, "count with %s, %u threads: %" PRIu64
              ", want %zu", info.algo, threads, c, exp->n);
    }
    hay_scratch_free(scratch);
    hay_patterns_free(set);
}

static void limits(void)
{
    static const uint8_t byte = 'x';
    size_t n = (size_t)HAY_MAX_PATTERNS + 1;
    hay_pattern *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        p[i].data = &byte;
        p[i].len = 1;
    }
    hay_patterns *set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(p, n, NULL, &set), HAY_ERR_TOO_LARGE,
             "HAY_MAX_PATTERNS + 1 patterns");
    CHECK(set == NULL, "too many patterns: set not NULL");
    free(p);
    size_t m = (size_t)HAY_MAX_PATTERN_LEN + 1;
    uint8_t *big = calloc(m, 1);
    hay_pattern two[2] = { { "ab", 2 }, { big, m } };
    set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(two, 2, NULL, &set), HAY_ERR_TOO_LARGE,
             "a pattern of HAY_MAX_PATTERN_LEN + 1 bytes");
    CHECK(set == NULL, "too long: set not NULL");
    free(big);
}

int main(void)
{
    limits();
    size_t n = tu_scaled(HAY_MAX_PATTERNS, 20000);
    if (n > HAY_MAX_PATTERNS)
        n = HAY_MAX_PATTERNS;
    tu_rng r = { 1000000 };
    uint8_t *hay = malloc(HAY_LEN);
    /* Letters of both cases and a few other bytes: random patterns over
     * them share prefixes, and planted ones match in either case. */
    static const char alpha[] = "abcdefghijklmnopABCDEFGHIJKLMNOP\x00\xff";
    size_t na = sizeof alpha - 1;
    for (size_t i = 0; i < HAY_LEN; i++)
        hay[i] = (uint8_t)alpha[tu_below(&r, na)];
    uint8_t *bytes = malloc(n * MAX_LEN);
    hay_pattern *pats = malloc(n * sizeof *pats);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = bytes + i * MAX_LEN;
        size_t m = (size_t)tu_range(&r, MIN_LEN, MAX_LEN);
        uint64_t k = tu_below(&r, 50);
        if (k == 0 && i > 0) {
            /* a duplicate or a prefix of an earlier pattern */
            const hay_pattern *q = &pats[tu_below(&r, i)];
            m = (size_t)tu_range(&r, 1, q->len);
            memcpy(p, q->data, m);
        } else if (k < 3) {
            /* a piece of the haystack */
            memcpy(p, hay + tu_below(&r, HAY_LEN - m), m);
        } else {
            for (size_t q = 0; q < m; q++)
                p[q] = (uint8_t)alpha[tu_below(&r, na)];
        }
        pats[i].data = p;
        pats[i].len = m;
    }
    for (int caseless = 0; caseless <= 1; caseless++) {
        double t0 = tu_now();
        sorted_pats sp = { pats, malloc(n * 4), caseless != 0 };
        for (size_t i = 0; i < n; i++)
            sp.order[i] = (uint32_t)i;
        cmp_ctx = &sp;
        qsort(sp.order, n, 4, cmp_ids);
        tu_mlist exp = { 0 };
        oracle(hay, HAY_LEN, &sp, n, &exp);
        printf("oracle %s: %zu matches in %.2f s\n", caseless ? "caseless" : "exact",
               exp.n, tu_now() - t0);
        CHECK(exp.n > HAY_LEN / 10, "only %zu matches planted", exp.n);
        /* Budgets that keep the memory of the test bounded: auto then
         * takes the compact automaton, as it does for such sets on
         * smaller machines; PFAC's compact table, then its dense one. */
        if (!caseless) {
            run(NULL, "dfa_budget=256M", pats, n, hay, &exp, false);
            run("ac", NULL, pats, n, hay, &exp, false);
        }
        run("pfac", caseless ? "pfac_budget=512M" : "pfac_budget=0", pats, n,
            hay, &exp, caseless != 0);
        if (caseless)
            run("ac", NULL, pats, n, hay, &exp, true);
        free(sp.order);
        tu_mlist_free(&exp);
    }
    free(pats);
    free(bytes);
    free(hay);
    return tu_finish();
}
