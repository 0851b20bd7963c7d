/*
 * litsets.c - the literal-set engines against the oracle: teddy
 * (src/cpu/teddy.c) on each of its block loops (AVX2, SSSE3, scalar; those
 * this CPU runs) and fdr (src/cpu/fdr.c) at each stride (1, 2, 4) over
 * windows of 2 and of 3 bytes, the "variants" below:
 *
 *   cases    the conformance table (cases.c) with 0..34 pad bytes before
 *            and after, and chunk sizes 1..40 and every pattern length
 *            +-1 on 2 and 3 threads
 *   carry    one literal planted at every offset 0..96 of a haystack, so
 *            its fingerprint straddles every 16- and 32-byte block
 *            boundary; fails if the previous block's masks are not
 *            carried into the next (the first lanes would lose their
 *            candidates)
 *   props    random sets of 2..64 literals biased to shared prefixes,
 *            1..3-byte literals and frequent bytes, caseless at random,
 *            with matches planted around 16- and 32-byte boundaries
 *   dense    duplicates and nested literals on a run of one byte, enough
 *            to overflow the buffer that puts matches in end order (both
 *            engines keep one)
 *            (fdr: the same with sets of up to 400 literals, teddy skipped)
 *   nested   literals of 3..30 bytes nested on runs of one byte: every
 *            end has several lengths, found in different blocks
 *   limits   teddy: 64 literals compile, 65 are HAY_ERR_TOO_LARGE; the
 *            hooks of both engines; fdr's window width for sets of 255
 *            and 256 literals of 5 and 6 bytes
 *   auto     the CPU backend's choice (cpu_rules in src/cpu/backend.c) at
 *            each boundary of its table
 *   realdata sets of 2, 8, 64 (and for fdr 1,000) literals drawn from
 *            english-words and snort-community (<data>/patterns), exact
 *            and caseless: the count of every file of <data>/text and
 *            <data>/logs equals the DFA's (which tests/hyperscan_counts.c
 *            holds to Hyperscan's), on teddy's AVX2 and SSSE3 loops and
 *            fdr's strides and widths, serial, chunked and by callback
 *
 *   test_litsets [DATA_DIR]     (realdata is skipped without it)
 *
 * HAY_SEED fixes the random part's seed (printed at the start).
 */
#include "cases.h"
#include "testutil.h"
#include "cpu/fdr.h"
#include "cpu/teddy.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAD 34
#define PROP_ITERATIONS 400

/* An engine and the loop it is forced to: teddy's block loop (isa) or
 * fdr's window width and stride. */
typedef struct variant {
    const char *algo, *isa;
    unsigned width, stride;
    const char *label;
} variant;

static const variant isas[] = {
    { "teddy", "avx2", 0, 0, "teddy/avx2" },
    { "teddy", "ssse3", 0, 0, "teddy/ssse3" },
    { "teddy", "scalar", 0, 0, "teddy/scalar" },
    { "fdr", NULL, 2, 1, "fdr/w2/stride1" },
    { "fdr", NULL, 2, 2, "fdr/w2/stride2" },
    { "fdr", NULL, 2, 4, "fdr/w2/stride4" },
    { "fdr", NULL, 3, 1, "fdr/w3/stride1" },
    { "fdr", NULL, 3, 2, "fdr/w3/stride2" },
    { "fdr", NULL, 3, 4, "fdr/w3/stride4" },
};
#define NISA (sizeof isas / sizeof *isas)

static bool is_teddy(const variant *v) { return strcmp(v->algo, "teddy") == 0; }

/* Compiles pats with variant v; NULL when teddy's loop needs what the CPU
 * lacks, or teddy is given more than its literals (and a failed check
 * when the compile or the hook fails otherwise). */
static hay_patterns *compile_isa(const hay_pattern *pats, size_t n,
                                 bool caseless, const variant *v)
{
    if (is_teddy(v) && n > HAY_TEDDY_MAX_LITERALS)
        return NULL;
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_CPU;
    o.algo = v->algo;
    o.flags = caseless ? HAY_CASELESS : 0;
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(pats, n, &o, &set);
    if (!CHECK(s == HAY_OK, "compile %zu literals with %s: %s", n, v->label,
               hay_strerror(s)))
        return NULL;
    if (!is_teddy(v)) {
        s = hay_fdr_set_width(set, v->width);
        if (s == HAY_OK)
            s = hay_fdr_set_stride(set, v->stride);
        CHECK(s == HAY_OK && hay_fdr_width(set) == v->width &&
              hay_fdr_stride(set) == v->stride, "%s: %s", v->label, hay_strerror(s));
        return set;
    }
    s = hay_teddy_select_isa(set, v->isa);
    if (s == HAY_ERR_UNSUPPORTED) {
        hay_patterns_free(set);
        return NULL;
    }
    CHECK(s == HAY_OK && strcmp(hay_teddy_isa(set), v->isa) == 0,
          "select %s: %s", v->label, hay_strerror(s));
    return set;
}

/* One scan and one count of buf against exp (+ shift). */
static void run(const char *what, const char *isa, const hay_patterns *set,
                hay_scratch *scr, const uint8_t *buf, size_t len,
                const tu_mlist *exp, uint64_t shift, const hay_pattern *pats,
                size_t np, unsigned threads, size_t chunk)
{
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;
    o.chunk_size = chunk;
    tu_checker ck;
    tu_checker_init(&ck, exp, shift, pats, np);
    hay_status s = hay_scan(set, scr, buf, len, &o, tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, false);
    CHECK(s == HAY_OK && ok, "scan %s on %s, threads %u chunk %zu: %s; %s",
          what, isa, threads, chunk, hay_strerror(s), ok ? "ok" : ck.err);
    tu_checker_free(&ck);
    uint64_t n = UINT64_MAX;
    s = hay_scan_count(set, scr, buf, len, &o, &n);
    CHECK(s == HAY_OK && n == exp->n, "count %s on %s, threads %u chunk %zu: "
          "%s, %" PRIu64 ", want %zu", what, isa, threads, chunk,
          hay_strerror(s), n, exp->n);
}

/* ---- the conformance table ---------------------------------------------- */

static void test_cases(void)
{
    tu_case *cases;
    size_t nc = tu_cases_build(&cases);
    size_t ran = 0, refused = 0;
    for (size_t i = 0; i < nc; i++) {
        const tu_case *c = &cases[i];
        if (c->npats > HAY_TEDDY_MAX_LITERALS) {
            hay_compile_opts o;
            hay_compile_opts_init(&o);
            o.algo = "teddy";
            hay_patterns *set = TU_NOT_NULL;
            hay_status s = hay_patterns_compile(c->pats, c->npats, &o, &set);
            CHECK(s == HAY_ERR_TOO_LARGE && set == NULL, "'%s' (%zu literals): %s",
                  c->name, c->npats, hay_strerror(s));
            refused++;
        }
        for (size_t k = 0; k < NISA; k++) {
            hay_patterns *set = compile_isa(c->pats, c->npats, c->caseless, &isas[k]);
            if (!set)
                continue;
            hay_scratch *scr = NULL;
            hay_scratch_create(set, &scr);
            ran++;
            for (size_t pb = 0; pb <= MAX_PAD; pb++)
                for (size_t pa = 0; pa <= MAX_PAD; pa++) {
                    if (pa != pb && pa != 0 && pa != MAX_PAD - pb)
                        continue;
                    uint8_t *buf = tu_case_padded(c, pb, pa);
                    run(c->name, isas[k].label, set, scr, buf, pb + c->len + pa,
                        &c->exp, pb, c->pats, c->npats, 1, 0);
                    free(buf);
                }
            /* Chunk sweep: boundaries through every match at every offset
             * for short cases, and the lengths that matter for all. */
            for (size_t ch = 1; ch <= 40 && ch <= c->len + 1; ch++)
                run(c->name, isas[k].label, set, scr, c->hay, c->len, &c->exp, 0,
                    c->pats, c->npats, 2 + (unsigned)(ch % 2), ch);
            for (size_t p = 0; p < c->npats; p++)
                for (size_t d = 0; d < 3; d++) {
                    size_t ch = c->pats[p].len + d - 1;
                    if (ch > 40 && ch <= c->len)
                        run(c->name, isas[k].label, set, scr, c->hay, c->len, &c->exp,
                            0, c->pats, c->npats, 3, ch);
                }
            hay_scratch_free(scr);
            hay_patterns_free(set);
        }
    }
    printf("cases: %zu of %zu cases x block loops run, %zu refused (over %u literals)\n",
           ran, nc, refused, HAY_TEDDY_MAX_LITERALS);
    tu_cases_free(cases, nc);
}

/* ---- the carry between blocks -------------------------------------------- */

static void test_carry(void)
{
    /* For each fingerprint length (1..3) and case, one literal at every
     * offset, so lanes 0 and 1 of a block see fingerprints begun in the
     * block before. */
    static const hay_pattern sets[][3] = {
        { { "q", 1 }, { "zz", 2 }, { "xyz", 3 } },
        { { "qr", 2 }, { "zzw", 3 }, { "xyzw", 4 } },
        { { "qrs", 3 }, { "Xyzw", 4 }, { "zz!zz", 5 } },
    };
    uint8_t hay[200];
    size_t runs = 0;
    for (size_t si = 0; si < 3; si++)
        for (int caseless = 0; caseless < 2; caseless++)
            for (size_t k = 0; k < NISA; k++) {
                hay_patterns *set = compile_isa(sets[si], 3, caseless, &isas[k]);
                if (!set)
                    continue;
                hay_scratch *scr = NULL;
                hay_scratch_create(set, &scr);
                for (size_t lit = 0; lit < 3; lit++)
                    for (size_t at = 0; at <= 96; at++) {
                        memset(hay, '.', sizeof hay);
                        const hay_pattern *p = &sets[si][lit];
                        memcpy(hay + at, p->data, p->len);
                        if (caseless)
                            hay[at] ^= hay[at] >= 'a' && hay[at] <= 'z' ? 0x20 : 0;
                        size_t len = at + p->len + (at % 3);
                        tu_mlist exp = { 0 };
                        tu_oracle(hay, len, sets[si], 3, caseless, &exp);
                        CHECK(exp.n >= 1, "carry: the planted literal is expected");
                        char what[64];
                        snprintf(what, sizeof what, "carry set %zu literal %zu at %zu%s",
                                 si, lit, at, caseless ? " caseless" : "");
                        run(what, isas[k].label, set, scr, hay, len, &exp, 0, sets[si], 3, 1, 0);
                        tu_mlist_free(&exp);
                        runs++;
                    }
                hay_scratch_free(scr);
                hay_patterns_free(set);
            }
    printf("carry: %zu runs\n", runs);
}

/* ---- random sets ---------------------------------------------------------- */

#define MAX_HAY 6000
#define MAX_LIT 12
#define PROP_MAX_LITERALS 400

static void test_props(uint64_t seed, uint64_t iterations)
{
    static const char frequent[] = "etaoin shr";
    uint8_t *hay = malloc(MAX_HAY);
    static uint8_t buf[PROP_MAX_LITERALS][MAX_LIT];
    static hay_pattern pats[PROP_MAX_LITERALS];
    char note[128];
    tu_fail_note = note;
    uint64_t matches = 0, runs = 0;
    for (uint64_t it = 0; it < iterations; it++) {
        snprintf(note, sizeof note, "HAY_SEED=%" PRIu64 " iteration %" PRIu64, seed, it);
        tu_rng r = { seed + it * 0x9e3779b97f4a7c15ull };
        bool caseless = tu_below(&r, 3) == 0;
        /* Alphabet: a few frequent letters, or them and some others. */
        const char *alpha = tu_below(&r, 2) ? "etaoin" : "etaoin shrdluETAOIN\n,.";
        size_t na = strlen(alpha);
        /* One set in four is past teddy's limit: fdr's alone. */
        size_t np = (size_t)tu_range(&r, 2, tu_below(&r, 4) ? HAY_TEDDY_MAX_LITERALS
                                                            : PROP_MAX_LITERALS);
        size_t short_max = tu_below(&r, 3) == 0 ? 3 : MAX_LIT;
        /* A few shared prefixes that many literals start with. */
        uint8_t prefix[4][3];
        for (size_t k = 0; k < 4; k++)
            for (size_t q = 0; q < 3; q++)
                prefix[k][q] = (uint8_t)frequent[tu_below(&r, sizeof frequent - 1)];
        for (size_t i = 0; i < np; i++) {
            size_t m = (size_t)tu_range(&r, 1, short_max);
            for (size_t q = 0; q < m; q++)
                buf[i][q] = (uint8_t)alpha[tu_below(&r, na)];
            if (tu_below(&r, 2)) {
                size_t pl = (size_t)tu_range(&r, 1, 3);
                memcpy(buf[i], prefix[tu_below(&r, 4)], pl < m ? pl : m);
            }
            if (i > 0 && tu_below(&r, 10) == 0) {   /* a duplicate */
                m = pats[i - 1].len;
                memcpy(buf[i], buf[i - 1], m);
            }
            pats[i].data = buf[i];
            pats[i].len = m;
        }
        size_t len = (size_t)tu_below(&r, MAX_HAY + 1);
        /* Mostly a byte the literals lack, so planted matches stand out,
         * else the literals' own alphabet (dense candidates). */
        bool background = tu_below(&r, 3) != 0;
        for (size_t i = 0; i < len; i++)
            hay[i] = background ? (uint8_t)'#' : (uint8_t)alpha[tu_below(&r, na)];
        /* Plant literals around 16- and 32-byte boundaries. */
        size_t plants = len / 8;
        for (size_t k = 0; k < plants; k++) {
            const hay_pattern *p = &pats[tu_below(&r, np)];
            size_t boundary = 16 * (size_t)tu_below(&r, len / 16 + 1);
            size_t at = boundary + (size_t)tu_below(&r, 8);
            at = at >= 4 ? at - 4 : 0;
            if (at + p->len > len)
                continue;
            memcpy(hay + at, p->data, p->len);
            if (caseless)
                for (size_t q = 0; q < p->len; q++)
                    if (tu_below(&r, 2) && ((hay[at + q] | 0x20) >= 'a') &&
                        ((hay[at + q] | 0x20) <= 'z'))
                        hay[at + q] ^= 0x20;
        }
        uint8_t *h = malloc(len ? len : 1);
        memcpy(h, hay, len);
        tu_mlist exp = { 0 };
        tu_oracle(h, len, pats, np, caseless, &exp);
        matches += exp.n;
        for (size_t k = 0; k < NISA; k++) {
            hay_patterns *set = compile_isa(pats, np, caseless, &isas[k]);
            if (!set)
                continue;
            hay_scratch *scr = NULL;
            hay_scratch_create(set, &scr);
            char what[64];
            snprintf(what, sizeof what, "%zu literals, %zu bytes%s", np, len,
                     caseless ? ", caseless" : "");
            run(what, isas[k].label, set, scr, h, len, &exp, 0, pats, np, 1, 0);
            size_t chunk = (size_t)tu_range(&r, 1, 100);
            run(what, isas[k].label, set, scr, h, len, &exp, 0, pats, np, 2, chunk);
            runs += 2;
            hay_scratch_free(scr);
            hay_patterns_free(set);
        }
        tu_mlist_free(&exp);
        free(h);
    }
    tu_fail_note = NULL;
    free(hay);
    printf("props: %" PRIu64 " iterations, %" PRIu64 " runs, %" PRIu64
           " oracle matches\n", iterations, runs, matches);
}

/* ---- dense input ------------------------------------------------------------ */

static void test_dense(void)
{
    /* 'a' x 1, x 1 again, and 100..161: every start has 64 matches whose
     * ends spread over 161 bytes, far more than the order buffer holds. */
    static uint8_t as[200];
    memset(as, 'a', sizeof as);
    hay_pattern pats[HAY_TEDDY_MAX_LITERALS];
    pats[0].data = as;
    pats[0].len = 1;
    pats[1].data = as;
    pats[1].len = 1;
    for (size_t i = 2; i < HAY_TEDDY_MAX_LITERALS; i++) {
        pats[i].data = as;
        pats[i].len = 98 + i;
    }
    size_t len = 30000;
    uint8_t *hay = malloc(len);
    memset(hay, 'a', len);
    hay[5000] = 'b';   /* a gap in the middle */
    tu_mlist exp = { 0 };
    tu_oracle(hay, len, pats, HAY_TEDDY_MAX_LITERALS, false, &exp);
    for (size_t k = 0; k < NISA; k++) {
        hay_patterns *set = compile_isa(pats, HAY_TEDDY_MAX_LITERALS, false, &isas[k]);
        if (!set)
            continue;
        hay_scratch *scr = NULL;
        hay_scratch_create(set, &scr);
        run("dense", isas[k].label, set, scr, hay, len, &exp, 0, pats,
            HAY_TEDDY_MAX_LITERALS, 1, 0);
        run("dense", isas[k].label, set, scr, hay, len, &exp, 0, pats,
            HAY_TEDDY_MAX_LITERALS, 3, 7001);
        /* Stopping inside the direct (overflow) part. */
        tu_checker ck;
        tu_checker_init(&ck, &exp, 0, pats, HAY_TEDDY_MAX_LITERALS);
        ck.stop_after = exp.n / 2;
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 1;
        hay_status s = hay_scan(set, scr, hay, len, &o, tu_check_cb, &ck);
        bool ok = tu_checker_done(&ck, true);
        CHECK(s == HAY_STOPPED && ok, "dense stop on %s: %s; %s", isas[k].label,
              hay_strerror(s), ok ? "ok" : ck.err);
        tu_checker_free(&ck);
        hay_scratch_free(scr);
        hay_patterns_free(set);
    }
    printf("dense: %zu matches\n", exp.n);
    tu_mlist_free(&exp);
    free(hay);
}

/* Nested literals of 3..30 bytes (none short, so the order buffer is
 * flushed by the long literals' bound alone) on a run of one byte, and on
 * runs broken every 37 bytes: every end has matches of several lengths,
 * found at different blocks; flushing a match before a shorter one that
 * ends earlier is found breaks the order. */
static void test_nested(void)
{
    static const size_t lens[] = { 3, 5, 8, 9, 13, 30 };
    static uint8_t as[32];
    memset(as, 'a', sizeof as);
    hay_pattern pats[6];
    for (size_t i = 0; i < 6; i++) {
        pats[i].data = as;
        pats[i].len = lens[i];
    }
    size_t len = 5000;
    uint8_t *hay = malloc(len);
    for (int broken = 0; broken < 2; broken++) {
        memset(hay, 'a', len);
        for (size_t i = 36; broken && i < len; i += 37)
            hay[i] = 'b';
        tu_mlist exp = { 0 };
        tu_oracle(hay, len, pats, 6, false, &exp);
        for (size_t k = 0; k < NISA; k++) {
            hay_patterns *set = compile_isa(pats, 6, false, &isas[k]);
            if (!set)
                continue;
            hay_scratch *scr = NULL;
            hay_scratch_create(set, &scr);
            run(broken ? "nested, broken runs" : "nested", isas[k].label, set, scr,
                hay, len, &exp, 0, pats, 6, 1, 0);
            run(broken ? "nested, broken runs" : "nested", isas[k].label, set, scr,
                hay, len, &exp, 0, pats, 6, 2, 101);
            hay_scratch_free(scr);
            hay_patterns_free(set);
        }
        tu_mlist_free(&exp);
    }
    free(hay);
    printf("nested: done\n");
}

/* ---- limits and the hook ------------------------------------------------------ */

/* fdr's default window width: 3 bytes from 256 literals of 6+ bytes on
 * (choose_width in src/cpu/fdr_build.c), 2 below either bound; and its
 * table's key bits with 3-byte windows (choose_shape): 12 for up to
 * FDR_SMALL_DOMAIN_MAX exact literals whose prefixes are all 10 bytes, 14
 * for more or for shorter prefixes, 16 for caseless sets. */
static void fdr_default_width(void)
{
    enum { MAXN = FDR_SMALL_DOMAIN_MAX + 1 };
    static char words[MAXN][32];
    static hay_pattern pats[MAXN];
    static const struct {
        size_t n, len;
        unsigned want, domain;    /* domain 0: not checked */
        bool caseless;
    } rows[] = {
        { 256, 6, 3, 14, false }, { 255, 6, 2, 0, false }, { 256, 5, 2, 0, false },
        { 400, 20, 3, 12, false }, { 400, 9, 3, 14, false }, { 400, 10, 3, 12, false },
        { 400, 10, 3, 16, true }, { 256, 6, 3, 16, true },
        { FDR_SMALL_DOMAIN_MAX, 10, 3, 12, false },
        { FDR_SMALL_DOMAIN_MAX + 1, 10, 3, 14, false },
        { FDR_SMALL_DOMAIN_MAX, 9, 3, 14, false },
    };
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_CPU;
    o.algo = "fdr";
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        for (size_t i = 0; i < rows[r].n; i++) {
            snprintf(words[i], sizeof words[i], "f%04uxxxxxxxxxxxxxxxxxx", (unsigned)i);
            pats[i].data = words[i];
            pats[i].len = rows[r].len;
        }
        hay_patterns *set = NULL;
        o.flags = rows[r].caseless ? HAY_CASELESS : 0;
        CHECK_ST(hay_patterns_compile(pats, rows[r].n, &o, &set), HAY_OK, "fdr set");
        CHECK(hay_fdr_width(set) == rows[r].want, "fdr width for %zu literals of %zu "
              "bytes: %u, want %u", rows[r].n, rows[r].len, hay_fdr_width(set),
              rows[r].want);
        CHECK(!rows[r].domain || hay_fdr_domain(set) == rows[r].domain,
              "fdr domain for %zu %sliterals of %zu bytes: %u, want %u", rows[r].n,
              rows[r].caseless ? "caseless " : "", rows[r].len, hay_fdr_domain(set),
              rows[r].domain);
        hay_patterns_free(set);
    }
}

static void test_limits(void)
{
    static char words[HAY_TEDDY_MAX_LITERALS + 1][8];
    hay_pattern pats[HAY_TEDDY_MAX_LITERALS + 1];
    for (size_t i = 0; i <= HAY_TEDDY_MAX_LITERALS; i++) {
        snprintf(words[i], sizeof words[i], "w%03zu", i);
        pats[i].data = words[i];
        pats[i].len = 4;
    }
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.algo = "teddy";
    hay_patterns *set = NULL;
    CHECK_ST(hay_patterns_compile(pats, HAY_TEDDY_MAX_LITERALS, &o, &set), HAY_OK,
             "64 literals");
    hay_patterns_info info;
    if (set && hay_patterns_info_get(set, &info) == HAY_OK)
        CHECK(info.algo && strcmp(info.algo, "teddy") == 0, "info.algo %s",
              info.algo ? info.algo : "(null)");
    __builtin_cpu_init();
    const char *want = __builtin_cpu_supports("avx2") ? "avx2"
                     : __builtin_cpu_supports("ssse3") ? "ssse3" : "scalar";
    const char *isa = hay_teddy_isa(set);
    CHECK(isa && strcmp(isa, want) == 0, "default loop %s, want %s",
          isa ? isa : "(null)", want);
    printf("limits: default block loop %s\n", isa ? isa : "(null)");
    CHECK_ST(hay_teddy_select_isa(set, "avx512"), HAY_ERR_INVALID, "unknown loop");
    hay_patterns_free(set);
    set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(pats, HAY_TEDDY_MAX_LITERALS + 1, &o, &set),
             HAY_ERR_TOO_LARGE, "65 literals");
    CHECK(set == NULL, "65 literals: set not NULL");
    o.algo = "dfa";
    set = NULL;
    CHECK_ST(hay_patterns_compile(pats, 2, &o, &set), HAY_OK, "dfa set");
    CHECK_ST(hay_teddy_select_isa(set, "scalar"), HAY_ERR_INVALID, "hook on a dfa set");
    CHECK(hay_teddy_isa(set) == NULL, "hay_teddy_isa of a dfa set");
    CHECK_ST(hay_fdr_set_stride(set, 2), HAY_ERR_INVALID, "fdr hook on a dfa set");
    CHECK(hay_fdr_stride(set) == 0, "hay_fdr_stride of a dfa set");
    CHECK_ST(hay_fdr_set_width(set, 3), HAY_ERR_INVALID, "fdr width hook on a dfa set");
    CHECK(hay_fdr_width(set) == 0, "hay_fdr_width of a dfa set");
    CHECK(hay_fdr_domain(set) == 0, "hay_fdr_domain of a dfa set");
    hay_patterns_free(set);
    /* fdr takes more than teddy's limit; its stride hook takes 1, 2, 4. */
    o.algo = "fdr";
    set = NULL;
    CHECK_ST(hay_patterns_compile(pats, HAY_TEDDY_MAX_LITERALS + 1, &o, &set), HAY_OK,
             "fdr, 65 literals");
    unsigned st = hay_fdr_stride(set);
    CHECK(st == 1 || st == 2 || st == 4, "fdr's default stride %u", st);
    CHECK_ST(hay_fdr_set_stride(set, 3), HAY_ERR_INVALID, "stride 3");
    CHECK_ST(hay_fdr_set_stride(set, 0), HAY_ERR_INVALID, "stride 0");
    CHECK(hay_fdr_stride(set) == st, "a refused stride changed it");
    /* Its width hook takes 2 and 3 and rebuilds. */
    CHECK(hay_fdr_width(set) == 2, "fdr's width for 65 literals %u", hay_fdr_width(set));
    CHECK_ST(hay_fdr_set_width(set, 4), HAY_ERR_INVALID, "width 4");
    CHECK_ST(hay_fdr_set_width(set, 1), HAY_ERR_INVALID, "width 1");
    CHECK_ST(hay_fdr_set_width(set, 3), HAY_OK, "width 3");
    CHECK(hay_fdr_width(set) == 3, "width 3 not taken: %u", hay_fdr_width(set));
    hay_patterns_free(set);
    fdr_default_width();
}

/* ---- auto's choice ------------------------------------------------------------ */

/* n literals of len bytes each ("w" then the number, padded with 'x'), and
 * with_short: the last one 2 bytes long. */
static const char *auto_pick(size_t n, size_t len, bool with_short,
                             const char **reason)
{
    static char words[1000][40];   /* room for any %zu */
    static hay_pattern pats[1000];
    for (size_t i = 0; i < n; i++) {
        snprintf(words[i], sizeof words[i], "w%zuxxxxxxxxxxxx", i);
        pats[i].data = words[i];
        pats[i].len = with_short && i == n - 1 ? 2 : len;
    }
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_CPU;
    hay_patterns *set = NULL;
    static char algo[16];
    static char why[256];
    snprintf(algo, sizeof algo, "(failed)");
    why[0] = 0;
    if (hay_patterns_compile(pats, n, &o, &set) == HAY_OK) {
        hay_patterns_info info;
        hay_patterns_info_get(set, &info);
        snprintf(algo, sizeof algo, "%s", info.algo);
        snprintf(why, sizeof why, "%s", info.reason);
    }
    hay_patterns_free(set);
    *reason = why;
    return algo;
}

static void test_auto(void)
{
    static const struct {
        size_t n, len;
        bool with_short;
        const char *want;
    } rows[] = {
        { 1, 5, false, "simd" },   { 2, 3, false, "teddy" },  { 12, 6, false, "teddy" },
        { 12, 6, true, "dfa" },    { 13, 4, false, "fdr" },   { 300, 5, false, "fdr" },
        { 301, 5, false, "dfa" },  { 13, 4, true, "dfa" },    { 1000, 8, false, "fdr" },
        { 1000, 6, false, "fdr" }, { 1000, 5, false, "dfa" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const char *why;
        const char *got = auto_pick(rows[i].n, rows[i].len, rows[i].with_short, &why);
        CHECK(strcmp(got, rows[i].want) == 0 && why[0] != 0,
              "auto for %zu literals of %zu bytes%s: %s (\"%s\"), want %s", rows[i].n,
              rows[i].len, rows[i].with_short ? " and one of 2" : "", got, why,
              rows[i].want);
    }
    printf("auto: %zu choices checked\n", sizeof rows / sizeof *rows);
}

/* ---- real data ------------------------------------------------------------ */

static int hexval(uint8_t c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The lines of a pattern file, \xHH decoded (the data folder's only
 * escape), in *out (malloc'ed copies); returns the count. */
static size_t read_patterns(const char *path, hay_pattern **out)
{
    size_t flen = 0;
    uint8_t *f = tu_read_file(path, &flen);
    *out = NULL;
    if (!f)
        return 0;
    size_t n = 0, cap = 0;
    hay_pattern *p = NULL;
    for (size_t i = 0; i < flen;) {
        size_t e = i;
        while (e < flen && f[e] != '\n')
            e++;
        uint8_t *b = malloc(e - i + 1);
        size_t m = 0;
        for (size_t k = i; k < e; k++) {
            int hi = k + 3 < e ? hexval(f[k + 2]) : -1;
            int lo = k + 3 < e ? hexval(f[k + 3]) : -1;
            if (hi >= 0 && lo >= 0 && f[k] == '\\' && f[k + 1] == 'x') {
                b[m++] = (uint8_t)(hi << 4 | lo);
                k += 3;
            } else {
                b[m++] = f[k];
            }
        }
        if (m > 0) {
            if (n == cap)
                p = realloc(p, (cap = cap ? 2 * cap : 1024) * sizeof *p);
            p[n].data = b;
            p[n++].len = m;
        } else {
            free(b);
        }
        i = e + 1;
    }
    free(f);
    *out = p;
    return n;
}

static int count_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}

static uint64_t count_with(const hay_patterns *set, const uint8_t *d, size_t len,
                           unsigned threads, size_t chunk, bool by_callback)
{
    hay_scratch *scr = NULL;
    hay_scratch_create(set, &scr);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;
    o.chunk_size = chunk;
    uint64_t c = 0;
    hay_status s = by_callback ? hay_scan(set, scr, d, len, &o, count_cb, &c)
                               : hay_scan_count(set, scr, d, len, &o, &c);
    hay_scratch_free(scr);
    return s == HAY_OK ? c : UINT64_MAX;
}

static void test_realdata(const char *data, uint64_t seed)
{
    static const char *const pfiles[] = { "english-words", "snort-community" };
    static const char *const tdirs[] = { "text", "logs" };
    static const size_t sizes[] = { 2, 8, 64, 1000 };
    char path[1200];
    uint8_t *files[64];
    size_t lens[64], nf = 0;
    char names[64][256];
    for (size_t d = 0; d < 2; d++) {
        snprintf(path, sizeof path, "%s/%s", data, tdirs[d]);
        DIR *dir = opendir(path);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir)) && nf < 64) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s/%s", data, tdirs[d], e->d_name);
            if ((files[nf] = tu_read_file(path, &lens[nf])) != NULL) {
                snprintf(names[nf], sizeof names[nf], "%s/%.200s", tdirs[d], e->d_name);
                nf++;
            }
        }
        closedir(dir);
    }
    if (nf == 0) {
        printf("realdata: SKIP, no files under %s\n", data);
        return;
    }
    tu_rng r = { seed };
    uint64_t total = 0;
    size_t checks = 0;
    for (size_t pf = 0; pf < 2; pf++) {
        snprintf(path, sizeof path, "%s/patterns/%s.txt", data, pfiles[pf]);
        hay_pattern *all;
        size_t na = read_patterns(path, &all);
        if (!CHECK(na >= 1000, "%s: %zu patterns", path, na))
            continue;
        for (size_t si = 0; si < 4; si++) {
            static hay_pattern pick[1000];
            for (size_t i = 0; i < sizes[si]; i++)
                pick[i] = all[tu_below(&r, na)];
            for (int caseless = 0; caseless < 2; caseless++) {
                hay_compile_opts o;
                hay_compile_opts_init(&o);
                o.backend = HAY_BACKEND_CPU;
                o.algo = "dfa";
                o.flags = caseless ? HAY_CASELESS : 0;
                hay_patterns *ref = NULL;
                if (!CHECK(hay_patterns_compile(pick, sizes[si], &o, &ref) == HAY_OK,
                           "dfa of %zu %s", sizes[si], pfiles[pf]))
                    continue;
                uint64_t wants[64];
                for (size_t f = 0; f < nf; f++)
                    wants[f] = count_with(ref, files[f], lens[f], 1, 0, false);
                for (size_t k = 0; k < NISA; k++) {
                    if (isas[k].isa && strcmp(isas[k].isa, "scalar") == 0)
                        continue;   /* the slow loop: the other tests */
                    hay_patterns *set = compile_isa(pick, sizes[si], caseless, &isas[k]);
                    if (!set)
                        continue;
                    for (size_t f = 0; f < nf; f++) {
                        uint64_t want = wants[f];
                        uint64_t got[3] = {
                            count_with(set, files[f], lens[f], 1, 0, false),
                            count_with(set, files[f], lens[f], 2, 65536 + 7, false),
                            count_with(set, files[f], lens[f], 3, 100000, true),
                        };
                        for (int v = 0; v < 3; v++)
                            CHECK(got[v] == want, "%zu %s%s on %s, %s, run %d: %" PRIu64
                                  ", dfa %" PRIu64, sizes[si], pfiles[pf],
                                  caseless ? " -i" : "", isas[k].label, names[f], v, got[v], want);
                        total += want;
                        checks++;
                    }
                    hay_patterns_free(set);
                }
                hay_patterns_free(ref);
            }
        }
        for (size_t i = 0; i < na; i++)
            free((void *)all[i].data);
        free(all);
    }
    for (size_t f = 0; f < nf; f++)
        free(files[f]);
    printf("realdata: %zu files x sets x loops, %" PRIu64 " matches counted\n", checks, total);
}

int main(int argc, char **argv)
{
    const char *sv = getenv("HAY_SEED");
    uint64_t seed = sv && *sv ? strtoull(sv, NULL, 0)
                              : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    printf("litsets: HAY_SEED=%" PRIu64 "\n", seed);
    fflush(stdout);
    test_limits();
    test_auto();
    test_carry();
    test_dense();
    test_nested();
    test_props(seed, tu_scaled(PROP_ITERATIONS, 20));
    test_cases();
    if (argc > 1)
        test_realdata(argv[1], seed);
    return tu_finish();
}
