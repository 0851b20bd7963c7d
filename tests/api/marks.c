/*
 * marks.c - hay_scan_marks and hay_scan_first (and their buffer forms) on
 * every backend, against two oracles: the bitmap and first match built
 * from hay_scan's own callback on the same set and options, and, in
 * HAY_MATCH_ALL, the independent oracle of testutil (every end position).
 *
 *   {cpu, opencl, cuda (default engine, pfac and fdr-gpu in pieces of 4096
 *    and 1000 bytes), auto, auto gpu_min=0, auto split=emulate}
 *   x sets with overlaps, duplicates, caseless letters, one pattern, long
 *     patterns across chunk boundaries
 *   x inputs of 0, 1, 63, 64, 65, 200, 4097 and 20000 bytes (lengths around
 *     and off multiples of 64), one with a match ending at its last byte,
 *     one with patterns across every 61st byte
 *   x all, leftmost-first, leftmost-longest
 *   x serial, 3 threads with chunks of 7, 61, 64, 100 and 4096 bytes (the
 *     GPU's pieces follow chunk_size too: unaligned piece starts), static
 *
 *   test_marks [cpu|opencl|cuda|auto ...]   the rows to run (default: all)
 *
 * A row whose backend is missing is skipped and named; the test exits 77
 * only when every row asked for was skipped.
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
    hay_backend buffer_backend;
    bool asked, skipped;
    hay_status why;
} row;

static row rows[] = {
    { "cpu", HAY_BACKEND_CPU, NULL, NULL, HAY_BACKEND_CPU, false, false, HAY_OK },
    { "opencl", HAY_BACKEND_OPENCL, NULL, NULL, HAY_BACKEND_CPU, false, false, HAY_OK },
    { "cuda", HAY_BACKEND_CUDA, NULL, NULL, HAY_BACKEND_CUDA, false, false, HAY_OK },
    /* Pieces of 4096 bytes (64-byte aligned starts) and of 1000 (not):
     * the device bitmaps' words meet the caller's at every alignment. */
    { "cuda pfac chunk=4096", HAY_BACKEND_CUDA, "pfac", "chunk=4096,streams=2",
      HAY_BACKEND_CUDA, false, false, HAY_OK },
    { "cuda fdr-gpu chunk=1000", HAY_BACKEND_CUDA, "fdr-gpu", "chunk=1000,streams=3",
      HAY_BACKEND_CUDA, false, false, HAY_OK },
    { "cuda pfac chunk=1000", HAY_BACKEND_CUDA, "pfac", "chunk=1000,streams=1,bpt=1",
      HAY_BACKEND_CUDA, false, false, HAY_OK },
    { "auto", HAY_BACKEND_AUTO, NULL, NULL, HAY_BACKEND_AUTO, false, false, HAY_OK },
    { "auto gpu_min=0", HAY_BACKEND_AUTO, NULL, "gpu_min=0", HAY_BACKEND_AUTO, false,
      false, HAY_OK },
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

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

static size_t words_of(uint64_t len)
{
    return (size_t)((len + 63) / 64);
}

static int mark_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start;
    uint64_t *m = ctx;
    m[(end - 1) / 64] |= 1ull << ((end - 1) % 64);
    return 0;
}

static int first_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    *(hay_match *)ctx = (hay_match){ id, 0, start, end };
    return 1;
}

/* The first word where a and b differ, or SIZE_MAX. */
static size_t diff_word(const uint64_t *a, const uint64_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return SIZE_MAX;
}

/* marks (and first) against hay_scan's over a host input or a buffer;
 * all_marks / all_first: the independent oracle's (mode all), or NULL. */
static void check_one(const row *r, const char *what, const hay_patterns *set,
                      hay_scratch *sc, const uint8_t *hay, uint64_t len,
                      const hay_buffer *buf, const hay_scan_opts *o,
                      const uint64_t *all_marks, const hay_match *all_first)
{
    size_t nw = words_of(len);
    uint64_t *ref = calloc(nw + 1, sizeof *ref);
    uint64_t *got = malloc((nw + 1) * sizeof *got);
    for (size_t i = 0; i <= nw; i++)
        got[i] = SENTINEL;
    hay_match rf = { 0 };
    hay_status s = buf ? hay_scan_buffer(set, sc, buf, o, mark_cb, ref)
                       : hay_scan(set, sc, hay, len, o, mark_cb, ref);
    CHECK_ST(s, HAY_OK, "scan (marks oracle)");
    s = buf ? hay_scan_buffer(set, sc, buf, o, first_cb, &rf)
            : hay_scan(set, sc, hay, len, o, first_cb, &rf);
    CHECK_ST(s, rf.end ? HAY_STOPPED : HAY_OK, "scan (first oracle)");

    s = buf ? hay_scan_marks_buffer(set, sc, buf, o, got)
            : hay_scan_marks(set, sc, hay, len, o, got);
    CHECK_ST(s, HAY_OK, "marks");
    size_t d = diff_word(got, ref, nw);
    CHECK(d == SIZE_MAX, "%s %s marks: word %zu (bytes %zu..): %016" PRIx64 ", want %016"
          PRIx64, r->label, what, d, d * 64, d == SIZE_MAX ? 0 : got[d],
          d == SIZE_MAX ? 0 : ref[d]);
    CHECK(got[nw] == SENTINEL, "%s %s marks: word %zu past the end written", r->label, what,
          nw);
    if (all_marks) {
        d = diff_word(ref, all_marks, nw);
        CHECK(d == SIZE_MAX, "%s %s: hay_scan's marks differ from the oracle's at word %zu",
              r->label, what, d);
    }

    hay_match f;
    memset(&f, 0xee, sizeof f);
    s = buf ? hay_scan_first_buffer(set, sc, buf, o, &f)
            : hay_scan_first(set, sc, hay, len, o, &f);
    CHECK_ST(s, HAY_OK, "first");
    CHECK(f.id == rf.id && f.start == rf.start && f.end == rf.end && f.reserved == 0,
          "%s %s first: (%u, %" PRIu64 ", %" PRIu64 "), want (%u, %" PRIu64 ", %" PRIu64 ")",
          r->label, what, f.id, f.start, f.end, rf.id, rf.start, rf.end);
    if (all_first)
        CHECK(f.end == all_first->end, "%s %s first: end %" PRIu64 ", the oracle's %" PRIu64,
              r->label, what, f.end, all_first->end);
    free(ref);
    free(got);
}

static void run_input(const pset *ps, const hay_pattern *pats, const uint8_t *hay,
                      size_t len, const char *input)
{
    /* The independent oracle (mode all): marks and the lowest end. */
    tu_mlist all = { 0 };
    tu_oracle(hay, len, pats, ps->n, ps->caseless, &all);
    uint64_t *all_marks = calloc(words_of(len) + 1, sizeof *all_marks);
    hay_match all_first = { 0 };
    for (size_t i = 0; i < all.n; i++)
        mark_cb(all.m[i].id, all.m[i].start, all.m[i].end, all_marks);
    if (all.n)
        all_first.end = all.m[0].end;

    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        bool is_all = modes[mi] == HAY_MATCH_ALL;
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

            static const size_t chunks[] = { 0, 7, 61, 64, 100, 4096 };
            for (size_t ci = 0; ci <= sizeof chunks / sizeof chunks[0]; ci++) {
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                char what[64];
                if (ci == sizeof chunks / sizeof chunks[0]) {
                    o.threads = 2;
                    o.schedule = HAY_SCHEDULE_STATIC;
                    o.chunk_size = 50;
                    snprintf(what, sizeof what, "static threads=2 chunk=50");
                } else {
                    o.threads = ci == 0 ? 1 : 3;
                    o.chunk_size = chunks[ci];
                    snprintf(what, sizeof what, "threads=%u chunk=%zu", o.threads,
                             chunks[ci]);
                }
                check_one(r, what, set, sc, hay, len, NULL, &o, is_all ? all_marks : NULL,
                          is_all ? &all_first : NULL);
            }
            hay_buffer *buf = NULL;
            s = hay_buffer_create(r->buffer_backend, hay, len, &buf);
            CHECK_ST(s, HAY_OK, "buffer_create");
            if (s == HAY_OK) {
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                check_one(r, "buffer", set, sc, NULL, len, buf, &o,
                          is_all ? all_marks : NULL, is_all ? &all_first : NULL);
                o.chunk_size = 100;
                check_one(r, "buffer chunk=100", set, sc, NULL, len, buf, &o,
                          is_all ? all_marks : NULL, is_all ? &all_first : NULL);
            }
            hay_buffer_free(buf);
            hay_scratch_free(sc);
            hay_patterns_free(set);
        }
    }
    free(all_marks);
    tu_mlist_free(&all);
    tu_fail_note = NULL;
}

/* Arguments: bad API use is refused, len 0 writes nothing. */
static void check_args(void)
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
        size_t n = strlen(argv[i]);
        for (size_t ri = 0; ri < NROWS; ri++) {
            const char *l = rows[ri].label;
            if (!strncmp(l, argv[i], n) && (l[n] == 0 || l[n] == ' '))
                rows[ri].asked = known = true;
        }
        if (!known) {
            fprintf(stderr, "usage: test_marks [cpu|opencl|cuda|auto ...]\n");
            return 2;
        }
    }
    for (size_t ri = 0; ri < NROWS; ri++) {
        rows[ri].asked = rows[ri].asked || any;
        hay_status av = hay_backend_available(rows[ri].backend);
        if (rows[ri].asked && av < 0) {
            rows[ri].skipped = true;
            rows[ri].why = av;
        }
    }
    check_args();
    tu_rng rng = { 0x6d61726b73ull };
    static const size_t lens[] = { 0, 1, 63, 64, 65, 200, 4097, 20000 };
    for (size_t si = 0; si < NSETS; si++) {
        const pset *ps = &psets[si];
        hay_pattern pats[16];
        for (size_t i = 0; i < ps->n; i++)
            pats[i] = (hay_pattern){ ps->pats[i], strlen(ps->pats[i]) };
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            uint8_t *h = tu_random_text(&rng, ps->alphabet, lens[li]);
            char input[32];
            snprintf(input, sizeof input, "random");
            run_input(ps, pats, h, lens[li], input);
            free(h);
        }
        /* Patterns across every 61st byte, and pattern 0 ending at the
         * last byte. */
        uint8_t *h = tu_boundary_text(pats, ps->n, 61, 5000);
        memcpy(h + 5000 - pats[0].len, pats[0].data, pats[0].len);
        run_input(ps, pats, h, 5000, "patterns across every 61st byte");
        free(h);
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
    if (!ran) {
        printf("SKIP: no row could run\n");
        return TU_SKIP;
    }
    return tu_finish();
}
