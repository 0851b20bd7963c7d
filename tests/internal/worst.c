/*
 * worst.c - the one-pattern engines on their worst cases (issue 20 row 5).
 *
 *   periodic   seeded random properties on highly periodic patterns and
 *              haystacks (a short unit repeated, a few bytes changed, the
 *              pattern a rotation of the text's unit or a prefix of it),
 *              where Galil's rule (bm) and the KMP fallback (simd,
 *              horspool; src/cpu/linear.h) take over: every CPU engine
 *              against the oracle for all occurrences, and against the
 *              naive engine in the leftmost modes; random threads and
 *              chunk sizes put chunk boundaries inside the runs.
 *   big        64 KiB of 'a' over megabytes of 'a', (ab)^n over (ab)*,
 *              and near misses, on simd, bm and horspool at one thread,
 *              counted against the ac engine (linear; the oracle is
 *              quadratic here).  Linear engines take well under a second;
 *              the quadratic ones took from 20 s to hours, so ctest's
 *              TIMEOUT on this program is what fails them (a complexity
 *              bound with a margin of 30 and more, not a benchmark).
 *
 * The seed is HAY_SEED when set, else taken from the clock; it is printed
 * at the start and with every failure.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ENGINES 32
#define ITERATIONS 150

static tu_engine engines[MAX_ENGINES];
static size_t nengines;

static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_mlist_push(ctx, id, start, end);
    return 0;
}

/* The matches of one engine in a leftmost mode, as a list. */
static hay_status leftmost_list(const tu_engine *e, const hay_pattern *p, bool caseless,
                                hay_match_mode mode, const uint8_t *hay, size_t len,
                                const hay_scan_opts *o, tu_mlist *out)
{
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = e->backend;
    co.algo = e->algo;
    co.params = e->params;
    co.flags = caseless ? HAY_CASELESS : 0;
    co.mode = mode;
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(p, 1, &co, &set);
    if (s < 0)
        return s;
    hay_scratch *scr = NULL;
    s = hay_scratch_create(set, &scr);
    if (s == HAY_OK)
        s = hay_scan(set, scr, hay, len, o, record_cb, out);
    hay_scratch_free(scr);
    hay_patterns_free(set);
    return s;
}

/* A unit of 1..5 bytes over a 2- or 3-letter alphabet (upper case at
 * times, for caseless sets). */
static size_t make_unit(tu_rng *r, uint8_t *u)
{
    static const char letters[] = "abAB-c";
    size_t k = (size_t)tu_range(r, 1, 5), alpha = (size_t)tu_range(r, 2, 3);
    for (size_t i = 0; i < k; i++)
        u[i] = (uint8_t)letters[tu_below(r, alpha) + (tu_below(r, 4) == 0 ? 2 : 0)];
    return k;
}

static void fill_periodic(tu_rng *r, uint8_t *dst, size_t n, const uint8_t *u,
                          size_t k, size_t rot)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = u[(i + rot) % k];
    /* A few changed bytes make near misses. */
    size_t flips = (size_t)tu_below(r, 4);
    for (size_t f = 0; f < flips && n; f++)
        dst[tu_below(r, n)] = (uint8_t)"abcAB"[tu_below(r, 5)];
}

static void test_periodic(uint64_t seed)
{
    static char note[96];
    size_t iters = tu_scaled(ITERATIONS, 20);
    uint8_t *hay = malloc(20000), *pat = malloc(1500);
    for (size_t it = 0; it < iters; it++) {
        tu_rng r = { seed + it };
        snprintf(note, sizeof note, "HAY_SEED=%" PRIu64 " iteration %zu", seed, it);
        tu_fail_note = note;
        uint8_t u[8];
        size_t k = make_unit(&r, u);
        size_t len = (size_t)tu_range(&r, 0, 20000);
        fill_periodic(&r, hay, len, u, k, 0);
        size_t m = tu_below(&r, 4) == 0 ? (size_t)tu_range(&r, 1, 1500)
                                        : (size_t)tu_range(&r, 1, 100);
        /* The text's unit, rotated, or a unit of its own. */
        uint8_t pu[8];
        size_t pk = k;
        memcpy(pu, u, k);
        if (tu_below(&r, 4) == 0)
            pk = make_unit(&r, pu);
        size_t rot = (size_t)tu_below(&r, pk);
        fill_periodic(&r, pat, m, pu, pk, rot);
        if (tu_below(&r, 2))   /* half the cases: the pattern exactly periodic */
            for (size_t i = 0; i < m; i++)
                pat[i] = pu[(i + rot) % pk];
        bool caseless = tu_below(&r, 4) == 0;
        hay_pattern p = { pat, m };
        tu_mlist exp = { 0 };
        tu_oracle(hay, len, &p, 1, caseless, &exp);

        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = (unsigned)tu_range(&r, 1, 3);
        if (o.threads > 1)
            o.chunk_size = (size_t)tu_range(&r, 1, 5000);
        for (size_t i = 0; i < nengines; i++) {
            const tu_engine *e = &engines[i];
            tu_checker ck;
            tu_checker_init(&ck, &exp, 0, &p, 1);
            hay_patterns *set = NULL;
            hay_scratch *scr = NULL;
            hay_status s = tu_compile(e, &p, 1, caseless, &set);
            if (s == HAY_OK)
                s = hay_scratch_create(set, &scr);
            if (s == HAY_OK)
                s = hay_scan(set, scr, hay, len, &o, tu_check_cb, &ck);
            bool ok = tu_checker_done(&ck, false);
            CHECK(s == HAY_OK && ok, "%s: m %zu (unit %zu), len %zu (unit %zu), %u threads, "
                  "chunk %zu%s: %s; %s", e->label, m, pk, len, k, o.threads, o.chunk_size,
                  caseless ? ", caseless" : "", hay_strerror(s), ok ? "ok" : ck.err);
            tu_checker_free(&ck);
            uint64_t c = 0;
            if (set && scr) {
                s = hay_scan_count(set, scr, hay, len, &o, &c);
                CHECK(s == HAY_OK && c == exp.n, "%s: count %" PRIu64 ", want %zu "
                      "(m %zu, len %zu)", e->label, c, exp.n, m, len);
            }
            hay_scratch_free(scr);
            hay_patterns_free(set);
        }
        /* The leftmost modes: every engine against the naive one. */
        hay_match_mode mode = tu_below(&r, 2) ? HAY_MATCH_LEFTMOST_FIRST
                                              : HAY_MATCH_LEFTMOST_LONGEST;
        tu_mlist ref = { 0 };
        tu_engine naive = { HAY_BACKEND_CPU, "naive", "cpu/naive", true, HAY_OK, NULL };
        CHECK_ST(leftmost_list(&naive, &p, caseless, mode, hay, len, &o, &ref), HAY_OK,
                 "naive, leftmost");
        for (size_t i = 0; i < nengines; i++) {
            tu_mlist got = { 0 };
            hay_status s = leftmost_list(&engines[i], &p, caseless, mode, hay, len, &o, &got);
            bool same = got.n == ref.n;
            for (size_t x = 0; same && x < got.n; x++)
                same = got.m[x].start == ref.m[x].start && got.m[x].end == ref.m[x].end;
            CHECK(s == HAY_OK && same, "%s, %s: %s, %zu matches, naive %zu (m %zu, len %zu)",
                  engines[i].label, mode == HAY_MATCH_LEFTMOST_FIRST ? "leftmost-first"
                  : "leftmost-longest", hay_strerror(s), got.n, ref.n, m, len);
            tu_mlist_free(&got);
        }
        tu_mlist_free(&ref);
        tu_mlist_free(&exp);
    }
    tu_fail_note = NULL;
    free(hay);
    free(pat);
}

/* ---- big worst cases ----------------------------------------------------------- */

static hay_status count_with(const char *algo, const hay_pattern *p, const uint8_t *hay,
                             size_t len, uint64_t *n)
{
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = HAY_BACKEND_CPU;
    co.algo = algo;
    hay_patterns *set = NULL;
    hay_scratch *scr = NULL;
    hay_status s = hay_patterns_compile(p, 1, &co, &set);
    if (s == HAY_OK)
        s = hay_scratch_create(set, &scr);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = 1;
    *n = 0;
    if (s == HAY_OK)
        s = hay_scan_count(set, scr, hay, len, &o, n);
    hay_scratch_free(scr);
    hay_patterns_free(set);
    return s;
}

static void test_big(void)
{
    size_t len = tu_scaled((size_t)32 << 20, (size_t)4 << 20), m = 65536;
    uint8_t *hay = malloc(len), *pat = malloc(m);
    static const char *const algos[] = { "simd", "bm", "horspool" };
    for (int c = 0; c < 6; c++) {
        const char *what = "";
        for (size_t i = 0; i < len; i++)
            hay[i] = c < 3 ? 'a' : (uint8_t)(i % 2 ? 'b' : 'a');
        for (size_t i = 0; i < m; i++)
            pat[i] = c < 3 ? 'a' : (uint8_t)(i % 2 ? 'b' : 'a');
        switch (c) {
        case 0: what = "a^65536 in a^n"; break;
        case 1: what = "a^65535 b in a^n"; pat[m - 1] = 'b'; break;
        case 2: what = "a^32768 b a^32767 in a^n"; pat[m / 2] = 'b'; break;
        case 3: what = "(ab)^32768 in (ab)^n"; break;
        case 4: what = "(ab)^32767 aa in (ab)^n"; pat[m - 1] = 'a'; break;
        case 5: what = "b (ab)^32767 b in (ab)^n"; pat[0] = 'b'; break;
        }
        hay_pattern p = { pat, m };
        uint64_t want = 0;
        CHECK_ST(count_with("ac", &p, hay, len, &want), HAY_OK, "ac");
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            double t0 = tu_now();
            uint64_t got = 0;
            hay_status s = count_with(algos[a], &p, hay, len, &got);
            CHECK(s == HAY_OK && got == want, "%s, %s: %s, %" PRIu64 " matches, ac %" PRIu64,
                  algos[a], what, hay_strerror(s), got, want);
            printf("  %-9s %-28s %zu MiB %.3f s\n", algos[a], what, len >> 20, tu_now() - t0);
        }
    }
    free(hay);
    free(pat);
}

int main(int argc, char **argv)
{
    bool seeded = getenv("HAY_SEED") && *getenv("HAY_SEED");
    uint64_t seed = seeded ? strtoull(getenv("HAY_SEED"), NULL, 0) : (uint64_t)time(NULL);
    printf("worst: HAY_SEED=%" PRIu64 "\n", seed);
    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    struct { const char *name; void (*fn)(uint64_t); } tests[] = {
        { "periodic", test_periodic },
        { "big", NULL },
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!tu_part_wanted(argc, argv, tests[i].name))
            continue;
        double t0 = tu_now();
        unsigned long long f0 = tu_failed;
        if (tests[i].fn)
            tests[i].fn(seed);
        else
            test_big();
        tu_part_report(tests[i].name, t0, f0);
    }
    return tu_finish();
}
