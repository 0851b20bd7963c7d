/*
 * leftmost.c - the leftmost-first and leftmost-longest match modes against
 * a naive oracle written here: seeded random haystacks over small
 * alphabets (so matches are dense and overlap), random pattern sets with
 * prefixes and duplicates, exact and caseless, on every CPU engine that
 * compiles the set, serially and on 2..4 threads with random chunks;
 * hay_scan (the exact sequence), hay_scan_count, hay_scan_count_each, a
 * stream written in random pieces, and a callback stop in the middle.
 *
 * The seed is HAY_SEED when set, else taken from the clock; it is printed
 * first and with every failure.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ENGINES 32
#define ITERATIONS 400
#define MAX_PATS 12
#define MAX_PAT_LEN 8

static tu_engine engines[MAX_ENGINES];
static size_t nengines;
static char note[200];
static uint64_t seed0;

/* The oracle: left to right, at the first position where some pattern
 * starts, the lowest id (first) or the longest then lowest id (longest). */
static void oracle(const uint8_t *hay, size_t len, const hay_pattern *pats,
                   size_t n, bool caseless, hay_match_mode mode, tu_mlist *out)
{
    size_t pos = 0;
    while (pos < len) {
        size_t best = SIZE_MAX, at = pos;
        for (; at < len && best == SIZE_MAX; at++) {
            for (size_t i = 0; i < n; i++) {
                if (at + pats[i].len > len || !tu_match_at(hay, at, &pats[i], caseless))
                    continue;
                if (best == SIZE_MAX ||
                    (mode == HAY_MATCH_LEFTMOST_LONGEST && pats[i].len > pats[best].len))
                    best = i;
            }
        }
        if (best == SIZE_MAX)
            return;
        at--;
        tu_mlist_push(out, (uint32_t)best, at, at + pats[best].len);
        pos = at + pats[best].len;
    }
}

typedef struct seq {
    tu_mlist got;
    uint64_t stop_after;   /* 0: never */
} seq;

static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    seq *s = ctx;
    tu_mlist_push(&s->got, id, start, end);
    return s->stop_after && s->got.n >= s->stop_after;
}

/* Whether got equals the first n of exp; describes the first difference. */
static bool same(const tu_mlist *got, const tu_mlist *exp, size_t n, char *why,
                 size_t cap)
{
    if (got->n != n) {
        snprintf(why, cap, "%zu matches, want %zu", got->n, n);
        if (got->n < n)
            return false;
    }
    for (size_t i = 0; i < got->n && i < n; i++) {
        const tu_match *a = &got->m[i], *b = &exp->m[i];
        if (a->id != b->id || a->start != b->start || a->end != b->end) {
            snprintf(why, cap, "match %zu is id %u [%" PRIu64 ", %" PRIu64
                     "), want id %u [%" PRIu64 ", %" PRIu64 ")", i, a->id,
                     a->start, a->end, b->id, b->start, b->end);
            return false;
        }
    }
    return got->n == n;
}

static void one_case(tu_rng *r, uint64_t iter)
{
    static const char *const alphas[] = { "ab", "abc", "aAb", "xyz" };
    const char *al = alphas[tu_below(r, 4)];
    size_t k = strlen(al);
    bool caseless = tu_below(r, 3) == 0;
    hay_match_mode mode = tu_below(r, 2) ? HAY_MATCH_LEFTMOST_FIRST
                                         : HAY_MATCH_LEFTMOST_LONGEST;
    size_t len = tu_below(r, 10) == 0 ? (size_t)tu_below(r, 6)
                                      : (size_t)tu_range(r, 1, 3000);
    uint8_t *hay = malloc(len + 1);
    for (size_t i = 0; i < len; i++)
        hay[i] = (uint8_t)al[tu_below(r, k)];
    size_t np = (size_t)tu_range(r, 1, MAX_PATS);
    hay_pattern pats[MAX_PATS];
    uint8_t pb[MAX_PATS][MAX_PAT_LEN];
    for (size_t i = 0; i < np; i++) {
        size_t m = (size_t)tu_range(r, 1, MAX_PAT_LEN);
        if (i && tu_below(r, 3) == 0) {
            /* a prefix, an extension or a copy of an earlier pattern */
            size_t j = (size_t)tu_below(r, i);
            memcpy(pb[i], pb[j], pats[j].len);
            for (size_t q = pats[j].len; q < m; q++)
                pb[i][q] = (uint8_t)al[tu_below(r, k)];
            if (tu_below(r, 3) == 0)
                m = pats[j].len;
        } else {
            for (size_t q = 0; q < m; q++)
                pb[i][q] = (uint8_t)al[tu_below(r, k)];
        }
        pats[i].data = pb[i];
        pats[i].len = m;
    }
    snprintf(note, sizeof note, "HAY_SEED=%" PRIu64 " iteration %" PRIu64
             ": %zu patterns, %zu bytes, %s%s", seed0, iter, np, len, mode == HAY_MATCH_LEFTMOST_FIRST ?
             "leftmost-first" : "leftmost-longest", caseless ? ", caseless" : "");

    tu_mlist exp = { 0 };
    oracle(hay, len, pats, np, caseless, mode, &exp);

    for (size_t e = 0; e < nengines; e++) {
        const tu_engine *en = &engines[e];
        if (np > 1 && !en->multi)
            continue;
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.flags = caseless ? HAY_CASELESS : 0;
        co.backend = en->backend;
        co.algo = en->algo;
        co.mode = mode;
        hay_patterns *set = NULL;
        hay_status s = hay_patterns_compile(pats, np, &co, &set);
        if (!CHECK(s == HAY_OK, "compile on %s: %s", en->label, hay_strerror(s)))
            continue;
        hay_scratch *scratch = NULL;
        hay_scratch_create(set, &scratch);
        char why[200] = "";

        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = (unsigned)tu_range(r, 1, 4);
        o.schedule = tu_below(r, 2) ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC;
        o.chunk_size = tu_below(r, 4) ? (size_t)tu_range(r, 1, 700) : 0;

        seq sq = { { 0 }, 0 };
        s = hay_scan(set, scratch, hay, len, &o, record_cb, &sq);
        CHECK(s == HAY_OK && same(&sq.got, &exp, exp.n, why, sizeof why),
              "scan on %s (threads %u chunk %zu): %s; %s", en->label, o.threads,
              o.chunk_size, hay_strerror(s), why);
        tu_mlist_free(&sq.got);

        uint64_t n = UINT64_MAX;
        s = hay_scan_count(set, scratch, hay, len, &o, &n);
        CHECK(s == HAY_OK && n == exp.n, "count on %s: %s, %" PRIu64 ", want %zu",
              en->label, hay_strerror(s), n, exp.n);

        uint64_t each[MAX_PATS], want[MAX_PATS] = { 0 };
        for (size_t i = 0; i < exp.n; i++)
            want[exp.m[i].id]++;
        s = hay_scan_count_each(set, scratch, hay, len, &o, each);
        CHECK(s == HAY_OK && memcmp(each, want, np * sizeof *each) == 0,
              "count_each on %s: %s", en->label, hay_strerror(s));

        /* A stream in random pieces; the pending matches come at close. */
        hay_stream *st = NULL;
        sq = (seq){ { 0 }, 0 };
        s = hay_stream_open(set, record_cb, &sq, &st);
        for (size_t at = 0; s == HAY_OK && at < len;) {
            size_t piece = (size_t)tu_range(r, 1, 40);
            if (piece > len - at)
                piece = len - at;
            s = hay_stream_write(st, hay + at, piece);
            at += piece;
        }
        hay_status sc = hay_stream_close(st);
        hay_stream_free(st);
        CHECK(s == HAY_OK && sc == HAY_OK && same(&sq.got, &exp, exp.n, why, sizeof why),
              "stream on %s: %s / %s; %s", en->label, hay_strerror(s),
              hay_strerror(sc), why);
        tu_mlist_free(&sq.got);

        /* A stop at a random match: exactly that prefix, HAY_STOPPED. */
        if (exp.n) {
            sq = (seq){ { 0 }, tu_range(r, 1, exp.n) };
            s = hay_scan(set, scratch, hay, len, &o, record_cb, &sq);
            CHECK(s == HAY_STOPPED && same(&sq.got, &exp, sq.stop_after, why, sizeof why),
                  "stop at %" PRIu64 " on %s: %s; %s", sq.stop_after, en->label,
                  hay_strerror(s), why);
            tu_mlist_free(&sq.got);
            /* ... and in a stream's close. */
            sq = (seq){ { 0 }, exp.n };
            s = hay_stream_open(set, record_cb, &sq, &st);
            if (s == HAY_OK)
                s = hay_stream_write(st, hay, len);
            sc = hay_stream_close(st);
            hay_stream_free(st);
            CHECK((s == HAY_OK || s == HAY_STOPPED) &&
                  (s == HAY_STOPPED || sc == HAY_STOPPED) &&
                  same(&sq.got, &exp, exp.n, why, sizeof why),
                  "stream stop at the last match on %s: write %s close %s; %s",
                  en->label, hay_strerror(s), hay_strerror(sc), why);
            tu_mlist_free(&sq.got);
        }
        hay_scratch_free(scratch);
        hay_patterns_free(set);
    }
    tu_mlist_free(&exp);
    free(hay);
}

/* Hand-made cases where the two modes differ, and the mode's validation. */
static void fixed_cases(void)
{
    static const struct {
        const char *hay;
        const char *pats[4];
        hay_match_mode mode;
        const char *want;   /* "id:start-end " ... */
    } cases[] = {
        { "abcd", { "ab", "abcd", "bc" }, HAY_MATCH_LEFTMOST_FIRST, "0:0-2 " },
        { "abcd", { "ab", "abcd", "bc" }, HAY_MATCH_LEFTMOST_LONGEST, "1:0-4 " },
        { "abcd", { "bcd", "ab", "c" }, HAY_MATCH_LEFTMOST_FIRST, "1:0-2 2:2-3 " },
        { "aaaa", { "aa", "a" }, HAY_MATCH_LEFTMOST_FIRST, "0:0-2 0:2-4 " },
        { "aaa", { "a", "aa" }, HAY_MATCH_LEFTMOST_FIRST, "0:0-1 0:1-2 0:2-3 " },
        { "aaa", { "a", "aa" }, HAY_MATCH_LEFTMOST_LONGEST, "1:0-2 0:2-3 " },
        { "xabx", { "ab", "ab", "b" }, HAY_MATCH_LEFTMOST_LONGEST, "0:1-3 " },
        { "samwise", { "sam", "samwise" }, HAY_MATCH_LEFTMOST_FIRST, "0:0-3 " },
        { "samwise", { "sam", "samwise" }, HAY_MATCH_LEFTMOST_LONGEST, "1:0-7 " },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hay_pattern p[4];
        size_t n = 0;
        while (n < 4 && cases[c].pats[n]) {
            p[n].data = cases[c].pats[n];
            p[n].len = strlen(cases[c].pats[n]);
            n++;
        }
        for (size_t e = 0; e < nengines; e++) {
            if (n > 1 && !engines[e].multi)
                continue;
            hay_compile_opts co;
            hay_compile_opts_init(&co);
            co.backend = engines[e].backend;
            co.algo = engines[e].algo;
            co.mode = cases[c].mode;
            hay_patterns *set = NULL;
            if (hay_patterns_compile(p, n, &co, &set) != HAY_OK)
                continue;
            hay_scratch *scratch = NULL;
            hay_scratch_create(set, &scratch);
            seq sq = { { 0 }, 0 };
            hay_scan(set, scratch, cases[c].hay, strlen(cases[c].hay), NULL,
                     record_cb, &sq);
            char got[200] = "";
            for (size_t i = 0; i < sq.got.n; i++)
                snprintf(got + strlen(got), sizeof got - strlen(got),
                         "%u:%" PRIu64 "-%" PRIu64 " ", sq.got.m[i].id,
                         sq.got.m[i].start, sq.got.m[i].end);
            CHECK(strcmp(got, cases[c].want) == 0, "fixed case %zu on %s: '%s', want '%s'",
                  c, engines[e].label, got, cases[c].want);
            tu_mlist_free(&sq.got);
            hay_scratch_free(scratch);
            hay_patterns_free(set);
        }
    }
    hay_pattern p = { "a", 1 };
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    CHECK(co.mode == HAY_MATCH_ALL, "default mode %d", (int)co.mode);
    co.mode = (hay_match_mode)3;
    hay_patterns *set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(&p, 1, &co, &set), HAY_ERR_INVALID, "mode 3");
    CHECK(set == NULL, "mode 3: set not NULL");
    co.mode = (hay_match_mode)-1;
    CHECK_ST(hay_patterns_compile(&p, 1, &co, &set), HAY_ERR_INVALID, "mode -1");
}

int main(void)
{
    const char *e = getenv("HAY_SEED");
    uint64_t seed = e && *e ? strtoull(e, NULL, 0)
                            : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    size_t iters = tu_scaled(ITERATIONS, 20);
    seed0 = seed;
    printf("leftmost: HAY_SEED=%" PRIu64 ", %zu iterations\n", seed, iters);
    tu_fail_note = note;
    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    fixed_cases();
    for (size_t i = 0; i < iters; i++) {
        tu_rng r = { seed + i };
        one_case(&r, i);
    }
    snprintf(note, sizeof note, "HAY_SEED=%" PRIu64, seed);
    return tu_finish();
}
