/*
 * modes.c - every way of asking for matches, on every backend, in every
 * match mode, against the oracle:
 *
 *   {cpu, opencl, cuda (its default engine, and pfac and fdr-gpu in pieces
 *    of 4096 and 1000 bytes), auto, auto gpu_min=0, auto split=emulate}
 *   x {count, per-pattern counts, full list, marks (hay_scan_marks), first
 *      match (hay_scan_first), buffer (hay_buffer_* with the _buffer form
 *      of each)}
 *   x {all, leftmost-first, leftmost-longest}
 *
 * over pattern sets with overlaps, prefixes, duplicates and caseless
 * letters, on random haystacks over small alphabets (dense, overlapping
 * matches; lengths around 64 for the marks' words) and on inputs whose
 * matches straddle the chunk boundaries the scan options put at 7, 61 and
 * 4096 bytes (and end at the last byte), serially, on 3 threads and on 2
 * with the static schedule.  Marks are checked against the expected
 * list's last bytes (every word written, none past the end, the caller's
 * array not zeroed first); the first match against hay_scan's first.
 *
 *   test_modes [cpu|opencl|cuda|auto ...]   the rows to run (default: all)
 *
 * A row whose backend is missing (no CUDA build, no device) is skipped and
 * named; the test exits 77 only when every row asked for was skipped.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    const char *label;
    hay_backend backend;
    const char *algo;
    const char *params;
    hay_backend buffer_backend;   /* what hay_buffer_create is asked for */
    bool asked;
    bool skipped;
    hay_status why;
} row;

static row rows[] = {
    { "cpu", HAY_BACKEND_CPU, NULL, NULL, HAY_BACKEND_CPU, false, false, HAY_OK },
    { "opencl", HAY_BACKEND_OPENCL, NULL, NULL, HAY_BACKEND_CPU, false, false, HAY_OK },
    { "cuda", HAY_BACKEND_CUDA, NULL, NULL, HAY_BACKEND_CUDA, false, false, HAY_OK },
    /* Pieces of 4096 bytes (64-byte aligned starts) and of 1000 (not): the
     * device's marks meet the caller's words at every alignment. */
    { "cuda pfac chunk=4096", HAY_BACKEND_CUDA, "pfac", "chunk=4096,streams=2",
      HAY_BACKEND_CUDA, false, false, HAY_OK },
    { "cuda fdr-gpu chunk=1000", HAY_BACKEND_CUDA, "fdr-gpu", "chunk=1000,streams=3",
      HAY_BACKEND_CUDA, false, false, HAY_OK },
    { "cuda pfac chunk=1000", HAY_BACKEND_CUDA, "pfac", "chunk=1000,streams=1,bpt=1",
      HAY_BACKEND_CUDA, false, false, HAY_OK },
    { "auto", HAY_BACKEND_AUTO, NULL, NULL, HAY_BACKEND_AUTO, false, false, HAY_OK },
    /* Auto sent to the GPU for every input (the CPU without one). */
    { "auto gpu_min=0", HAY_BACKEND_AUTO, NULL, "gpu_min=0", HAY_BACKEND_AUTO, false, false,
      HAY_OK },
    /* The split with a host thread in the GPU's place: backend auto's
     * CPU+GPU machinery without a GPU. */
    { "auto split=emulate", HAY_BACKEND_AUTO, NULL, "split=emulate,split_piece=4K,chunk=3K",
      HAY_BACKEND_CPU, false, false, HAY_OK },
};
#define NROWS (sizeof rows / sizeof rows[0])

static const hay_match_mode modes[] = { HAY_MATCH_ALL, HAY_MATCH_LEFTMOST_FIRST,
                                        HAY_MATCH_LEFTMOST_LONGEST };
static const char *const mode_names[] = { "all", "leftmost-first", "leftmost-longest" };

typedef struct pset {
    const char *name;
    const char *const *pats;
    size_t n;
    bool caseless;
    const char *alphabet;
} pset;

static const char *const overlap[] = { "a", "aa", "aaa", "ab", "ba", "bab", "b" };
static const char *const dups[] = { "abc", "abc", "bc", "c", "abcab", "bc", "cabca" };
static const char *const caseless[] = { "AbC", "bcd", "CD", "x", "aBcD" };
static const char *const one[] = { "aba" };
static const char *const sparse[] = { "abcd", "dcba", "cc" };
static const char *const longp[] = { "abcabcabcabcabcabca", "cabcab", "bcabcabcabcabcabcabc",
                                     "ab" };
static const pset psets[] = {
    { "overlapping", overlap, 7, false, "ab" },
    { "duplicates", dups, 7, false, "abc" },
    { "caseless", caseless, 5, true, "aAbBcCdDxX" },
    { "one pattern", one, 1, false, "ab" },
    { "sparse", sparse, 3, false, "abcdefgh" },
    { "long (chunk boundaries)", longp, 4, false, "abc" },
};
#define NSETS (sizeof psets / sizeof psets[0])

static char note[256];

/* The leftmost oracle, from the oracle's list of all occurrences: from
 * `pos` on, the occurrence that starts leftmost; among those the lowest
 * id (first) or the longest, then lowest id (longest). */
static void leftmost_oracle(const tu_mlist *all, hay_match_mode mode, tu_mlist *out)
{
    uint64_t pos = 0;
    for (;;) {
        const tu_match *best = NULL;
        for (size_t i = 0; i < all->n; i++) {
            const tu_match *m = &all->m[i];
            if (m->start < pos)
                continue;
            if (!best || m->start < best->start) {
                best = m;
                continue;
            }
            if (m->start > best->start)
                continue;
            uint64_t ml = m->end - m->start, bl = best->end - best->start;
            bool better = mode == HAY_MATCH_LEFTMOST_LONGEST
                              ? (ml > bl || (ml == bl && m->id < best->id))
                              : m->id < best->id;
            if (better)
                best = m;
        }
        if (!best)
            return;
        tu_mlist_push(out, best->id, best->start, best->end);
        pos = best->end;
    }
}

static int cmp_match(const void *a, const void *b)
{
    const tu_match *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_mlist_push(ctx, id, start, end);
    return 0;
}

/* Whether got (in the order reported) is the expected list: ends never
 * decrease, and sorted by (end, id) the two lists agree. */
static bool same_list(tu_mlist *got, const tu_mlist *exp, char *why, size_t cap)
{
    for (size_t i = 1; i < got->n; i++) {
        if (got->m[i].end < got->m[i - 1].end) {
            snprintf(why, cap, "end %" PRIu64 " after %" PRIu64, got->m[i].end,
                     got->m[i - 1].end);
            return false;
        }
    }
    if (got->n != exp->n) {
        snprintf(why, cap, "%zu matches, want %zu", got->n, exp->n);
        return false;
    }
    if (got->n)
        qsort(got->m, got->n, sizeof *got->m, cmp_match);
    for (size_t i = 0; i < got->n; i++) {
        const tu_match *a = &got->m[i], *b = &exp->m[i];
        if (a->id != b->id || a->start != b->start || a->end != b->end) {
            snprintf(why, cap, "match %zu: (%u, %" PRIu64 ", %" PRIu64 "), want (%u, %"
                     PRIu64 ", %" PRIu64 ")", i, a->id, a->start, a->end, b->id, b->start,
                     b->end);
            return false;
        }
    }
    return true;
}

typedef struct expect {
    const tu_mlist *list;
    uint64_t *each;          /* per pattern */
    size_t n;
} expect;

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

/* Marks and the first match over a host input or a buffer: the marks
 * against the expected list's last bytes, the first match against
 * `first` (hay_scan's first with the same options; end 0: none). */
static void check_marks(const row *r, const char *what, const hay_patterns *set,
                        hay_scratch *sc, const uint8_t *hay, uint64_t len,
                        const hay_buffer *buf, const hay_scan_opts *o, const expect *e,
                        const tu_match *first)
{
    size_t nw = (size_t)((len + 63) / 64);
    uint64_t *want = calloc(nw + 1, sizeof *want), *got = malloc((nw + 1) * sizeof *got);
    for (size_t i = 0; i < e->list->n; i++)
        want[(e->list->m[i].end - 1) / 64] |= 1ull << ((e->list->m[i].end - 1) % 64);
    for (size_t i = 0; i <= nw; i++)   /* not zeroed: the call writes every word */
        got[i] = SENTINEL;
    hay_status s = buf ? hay_scan_marks_buffer(set, sc, buf, o, got)
                       : hay_scan_marks(set, sc, hay, len, o, got);
    CHECK_ST(s, HAY_OK, "marks");
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < nw && bad == SIZE_MAX; i++)
        if (got[i] != want[i])
            bad = i;
    CHECK(bad == SIZE_MAX, "%s %s marks: word %zu (bytes %zu..): %016" PRIx64 ", want %016"
          PRIx64, r->label, what, bad, bad * 64, bad == SIZE_MAX ? 0 : got[bad],
          bad == SIZE_MAX ? 0 : want[bad]);
    CHECK(got[nw] == SENTINEL, "%s %s marks: the word past the end was written", r->label,
          what);
    free(want);
    free(got);

    hay_match f;
    memset(&f, 0xee, sizeof f);
    s = buf ? hay_scan_first_buffer(set, sc, buf, o, &f)
            : hay_scan_first(set, sc, hay, len, o, &f);
    CHECK_ST(s, HAY_OK, "first");
    CHECK(f.id == first->id && f.start == first->start && f.end == first->end &&
          f.reserved == 0, "%s %s first: (%u, %" PRIu64 ", %" PRIu64 "), want (%u, %" PRIu64
          ", %" PRIu64 ")", r->label, what, f.id, f.start, f.end, first->id, first->start,
          first->end);
}

/* One way of asking (count, each, list, marks, first) over a host input or
 * a buffer. */
static void check_asks(const row *r, const char *what, const hay_patterns *set,
                       hay_scratch *sc, const uint8_t *hay, uint64_t len,
                       const hay_buffer *buf, const hay_scan_opts *o, const expect *e)
{
    uint64_t count = UINT64_MAX;
    hay_status s = buf ? hay_scan_count_buffer(set, sc, buf, o, &count)
                       : hay_scan_count(set, sc, hay, len, o, &count);
    CHECK_ST(s, HAY_OK, "count");
    CHECK(count == e->list->n, "%s %s count: %" PRIu64 ", want %zu", r->label, what, count,
          e->list->n);

    uint64_t *each = malloc((e->n ? e->n : 1) * sizeof *each);
    for (size_t i = 0; i < e->n; i++)
        each[i] = UINT64_MAX;
    s = buf ? hay_scan_count_each_buffer(set, sc, buf, o, each)
            : hay_scan_count_each(set, sc, hay, len, o, each);
    CHECK_ST(s, HAY_OK, "count_each");
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < e->n && bad == SIZE_MAX; i++)
        if (each[i] != e->each[i])
            bad = i;
    CHECK(bad == SIZE_MAX, "%s %s count_each: pattern %zu: %" PRIu64 ", want %" PRIu64,
          r->label, what, bad, bad == SIZE_MAX ? 0 : each[bad],
          bad == SIZE_MAX ? 0 : e->each[bad]);
    free(each);

    tu_mlist got = { 0 };
    s = buf ? hay_scan_buffer(set, sc, buf, o, record_cb, &got)
            : hay_scan(set, sc, hay, len, o, record_cb, &got);
    CHECK_ST(s, HAY_OK, "scan");
    tu_match first = got.n ? got.m[0] : (tu_match){ 0, 0, 0 };
    char why[200] = "";
    CHECK(same_list(&got, e->list, why, sizeof why), "%s %s list: %s", r->label, what, why);
    tu_mlist_free(&got);
    check_marks(r, what, set, sc, hay, len, buf, o, e, &first);
}

/* Every row x mode on one haystack. */
static void run_input(const pset *ps, const hay_pattern *pats, const uint8_t *hay,
                      size_t len, const char *input)
{
    tu_mlist all = { 0 };
    tu_oracle(hay, len, pats, ps->n, ps->caseless, &all);
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        tu_mlist lm = { 0 };
        const tu_mlist *exp = &all;
        if (modes[mi] != HAY_MATCH_ALL) {
            leftmost_oracle(&all, modes[mi], &lm);
            exp = &lm;
        }
        uint64_t *each = calloc(ps->n, sizeof *each);
        for (size_t i = 0; i < exp->n; i++)
            each[exp->m[i].id]++;
        expect e = { exp, each, ps->n };

        for (size_t ri = 0; ri < NROWS; ri++) {
            row *r = &rows[ri];
            if (!r->asked || r->skipped)
                continue;
            snprintf(note, sizeof note, "row %s, set '%s', input %s (%zu bytes), mode %s",
                     r->label, ps->name, input, len, mode_names[mi]);
            tu_fail_note = note;
            hay_compile_opts co;
            hay_compile_opts_init(&co);
            co.backend = r->backend;
            co.algo = r->algo;
            co.params = r->params;
            co.mode = modes[mi];
            co.flags = ps->caseless ? HAY_CASELESS : 0;
            hay_patterns *set = NULL;
            hay_status s = hay_patterns_compile(pats, ps->n, &co, &set);
            if (s == HAY_ERR_NO_BACKEND || s == HAY_ERR_NO_DEVICE) {
                r->skipped = true;
                r->why = s;
                continue;
            }
            if (s == HAY_ERR_UNSUPPORTED && r->algo)
                continue;   /* an engine that does not take this set */
            CHECK_ST(s, HAY_OK, "compile");
            if (s != HAY_OK)
                continue;
            hay_scratch *sc = NULL;
            CHECK_ST(hay_scratch_create(set, &sc), HAY_OK, "scratch");

            /* Serial, then 3 threads with chunk boundaries every 7, 61
             * and 4096 bytes (the CPU's chunks; the GPU's pieces follow
             * chunk_size too), then 2 with the static schedule. */
            static const size_t chunks[] = { 0, 7, 61, 4096, 50 };
            for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                o.threads = ci == 0 ? 1 : chunks[ci] == 50 ? 2 : 3;
                o.schedule = chunks[ci] == 50 ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC;
                o.chunk_size = chunks[ci];
                char what[64];
                snprintf(what, sizeof what, "threads=%u chunk=%zu%s", o.threads, chunks[ci],
                         o.schedule == HAY_SCHEDULE_STATIC ? " static" : "");
                check_asks(r, what, set, sc, hay, len, NULL, &o, &e);
            }

            /* The buffer API: one buffer, the three asks. */
            hay_buffer *buf = NULL;
            s = hay_buffer_create(r->buffer_backend, hay, len, &buf);
            CHECK_ST(s, HAY_OK, "buffer_create");
            if (s == HAY_OK) {
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                o.threads = 3;
                check_asks(r, "buffer", set, sc, NULL, len, buf, &o, &e);
                o.chunk_size = 61;
                check_asks(r, "buffer chunk=61", set, sc, NULL, len, buf, &o, &e);
            }
            hay_buffer_free(buf);
            hay_scratch_free(sc);
            hay_patterns_free(set);
        }
        free(each);
        tu_mlist_free(&lm);
    }
    tu_mlist_free(&all);
    tu_fail_note = NULL;
}

/* hay_scan_marks and hay_scan_first: bad arguments are refused (nothing
 * written), len 0 writes nothing, a known case. */
static void check_marks_args(void)
{
    hay_pattern p = { "ab", 2 };
    hay_patterns *set = NULL;
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = HAY_BACKEND_CPU;
    CHECK_ST(hay_patterns_compile(&p, 1, &co, &set), HAY_OK, "compile");
    hay_scratch *sc = NULL;
    CHECK_ST(hay_scratch_create(set, &sc), HAY_OK, "scratch");
    uint64_t w = SENTINEL;
    hay_match f = { 7, 7, 7, 7 };
    CHECK_ST(hay_scan_marks(set, sc, "ab", 2, NULL, NULL), HAY_ERR_INVALID, "marks NULL");
    CHECK_ST(hay_scan_first(set, sc, "ab", 2, NULL, NULL), HAY_ERR_INVALID, "first NULL");
    CHECK_ST(hay_scan_marks(NULL, sc, "ab", 2, NULL, &w), HAY_ERR_INVALID, "marks set NULL");
    CHECK_ST(hay_scan_marks(set, sc, NULL, 2, NULL, &w), HAY_ERR_INVALID, "marks data NULL");
    CHECK_ST(hay_scan_marks(set, sc, "", 0, NULL, &w), HAY_OK, "marks len 0");
    CHECK(w == SENTINEL, "marks of len 0 wrote a word");
    CHECK_ST(hay_scan_first(set, sc, "", 0, NULL, &f), HAY_OK, "first len 0");
    CHECK(f.end == 0 && f.start == 0 && f.id == 0, "first of len 0 not zeroed");
    f.end = 9;
    CHECK_ST(hay_scan_first(set, sc, "xxxxx", 5, NULL, &f), HAY_OK, "first none");
    CHECK(f.end == 0, "first with no match: end %" PRIu64, f.end);
    CHECK_ST(hay_scan_first(set, sc, "xabab", 5, NULL, &f), HAY_OK, "first");
    CHECK(f.start == 1 && f.end == 3, "first: [%" PRIu64 ", %" PRIu64 ")", f.start, f.end);
    w = 0;
    CHECK_ST(hay_scan_marks(set, sc, "xabab", 5, NULL, &w), HAY_OK, "marks");
    CHECK(w == 0x14, "marks of xabab: %" PRIx64, w);
    CHECK_ST(hay_scan_marks_buffer(set, sc, NULL, NULL, &w), HAY_ERR_INVALID,
             "marks_buffer NULL");
    CHECK_ST(hay_scan_first_buffer(set, sc, NULL, NULL, &f), HAY_ERR_INVALID,
             "first_buffer NULL");
    hay_scratch_free(sc);
    hay_patterns_free(set);
}

int main(int argc, char **argv)
{
    bool any = argc < 2;
    for (int i = 1; i < argc; i++) {
        bool known = false;
        for (size_t ri = 0; ri < NROWS; ri++) {
            if (!strncmp(rows[ri].label, argv[i], strlen(argv[i])) &&
                (rows[ri].label[strlen(argv[i])] == 0 || rows[ri].label[strlen(argv[i])] == ' ')) {
                rows[ri].asked = known = true;
            }
        }
        if (!known) {
            fprintf(stderr, "usage: test_modes [cpu|opencl|cuda|auto ...]\n");
            return 2;
        }
    }
    for (size_t ri = 0; ri < NROWS; ri++)
        rows[ri].asked = rows[ri].asked || any;
    /* Ask once up front, so that a missing backend is named and its rows
     * cost nothing. */
    for (size_t ri = 0; ri < NROWS; ri++) {
        hay_status av = hay_backend_available(rows[ri].backend);
        if (rows[ri].asked && av < 0) {
            rows[ri].skipped = true;
            rows[ri].why = av;
        }
    }

    check_marks_args();
    tu_rng rng = { 0x5eed15 };
    static const size_t sizes[] = { 0, 1, 5, 63, 64, 65, 300, 5000 };
    for (size_t si = 0; si < NSETS; si++) {
        const pset *ps = &psets[si];
        hay_pattern pats[8];
        for (size_t i = 0; i < ps->n; i++) {
            pats[i].data = ps->pats[i];
            pats[i].len = strlen(ps->pats[i]);
        }
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint8_t *h = tu_random_text(&rng, ps->alphabet, sizes[k]);
            char input[40];
            snprintf(input, sizeof input, "random #%zu", k);
            run_input(ps, pats, h, sizes[k], input);
            free(h);
        }
        static const size_t steps[] = { 7, 61, 4096 };
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
            size_t len = steps[k] * 6 + 3;
            uint8_t *h = tu_boundary_text(pats, ps->n, steps[k], len);
            /* and pattern 0 ending at the last byte */
            memcpy(h + len - pats[0].len, pats[0].data, pats[0].len);
            char input[40];
            snprintf(input, sizeof input, "boundaries every %zu", steps[k]);
            run_input(ps, pats, h, len, input);
            free(h);
        }
    }

    size_t ran = 0;
    for (size_t ri = 0; ri < NROWS; ri++) {
        if (!rows[ri].asked)
            continue;
        if (rows[ri].skipped)
            printf("skipped row %s: %s\n", rows[ri].label, hay_strerror(rows[ri].why));
        else
            ran++;
    }
    if (ran == 0) {
        printf("every row asked for was skipped\n");
        return TU_SKIP;
    }
    return tu_finish();
}
