/*
 * db.c - the sequence database and its search (hay_align_db_*): build and
 * open round trips (every sequence's codes, name and length, in memory and
 * through a file), the checks of a damaged file (truncated at every length,
 * wrong magic and version, bad offsets under a valid checksum, a bad code,
 * an empty database), ties ranked by input order, and the top-k of the
 * search against a full sort of the scalar reference's scores on the bio
 * sets, with and without tracebacks, on 1 and 2 threads (threads over
 * targets, and over whole queries when there are many).
 *
 * Usage: test_align_db DATA_DIR [TMP_DIR] [--big]
 *   --big: only the 2 GiB+ case (a sparse file of 4.3 G residues written
 *   here, independently of the library's writer, opened and read back at
 *   offsets past 2^31 and 2^32).
 */
#include "align_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- an independent writer of the format (haystack_align.h) ---------- */
static void w64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void w32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint64_t r64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, uint64_t len)
{
    for (uint64_t i = 0; i < len; i += 8) {
        uint8_t w[8] = { 0 };
        memcpy(w, p + i, len - i < 8 ? (size_t)(len - i) : 8);
        h ^= r64(w);
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The checksum of an image of n bytes whose sections (but residues) are
 * in memory; sections outside the image (damaged ones) are cut to it. */
static uint64_t image_checksum(const uint8_t *img, uint64_t n)
{
    uint8_t hdr[256];
    memcpy(hdr, img, 256);
    w64(hdr + 192, 0);
    uint64_t h = fnv(0xcbf29ce484222325ULL, hdr, 256);
    for (int k = 0; k < 5; k++) {
        uint64_t off = r64(img + 96 + 16 * k), len = r64(img + 96 + 16 * k + 8);
        if (off > n)
            off = n;
        if (len > n - off)
            len = n - off;
        h = fnv(h, img + off, len);
    }
    return h;
}

static void reseal(uint8_t *img, uint64_t n)
{
    w64(img + 192, image_checksum(img, n));
}

/* ---- helpers ---------------------------------------------------------- */
static char tmpdir[4096] = "/tmp";

static void tmp_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/hay_dbtest_%ld_%s", tmpdir, (long)getpid(), name);
}

static int write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Opens path; returns the status and checks that a failure says why. */
static hay_status try_open(const char *path, const char *what)
{
    hay_align_db *db = TU_NOT_NULL;
    char msg[256] = "";
    hay_status st = hay_align_db_open(path, &db, msg, sizeof msg);
    if (st == HAY_OK)
        hay_align_db_free(db);
    else
        CHECK(db == NULL && msg[0], "%s: failed without a reason or left "
              "*out set", what);
    return st;
}

/* Opens an image written to a file; the status. */
static hay_status open_image(const uint8_t *img, size_t n, const char *what,
                             char *msg, size_t cap)
{
    char p[4200];
    tmp_path(p, sizeof p, "img");
    if (write_bytes(p, img, n)) {
        CHECK(0, "%s: cannot write %s", what, p);
        return HAY_ERR_INVALID;
    }
    hay_align_db *db = TU_NOT_NULL;
    hay_status st = hay_align_db_open(p, &db, msg, cap);
    if (st == HAY_OK) {
        /* What opens is sound enough to search. */
        hay_align_scoring *s = NULL;
        hay_align_scoring_builtin("blosum62", 11, 1, &s);
        uint8_t q[10];
        hay_align_encode(s, "HEAGAWGHEE", 10, q, NULL);
        hay_align_seq qs = { q, 10 };
        hay_align_db_results *r = NULL;
        hay_status se = hay_align_db_search(db, s, &qs, 1, NULL, &r);
        CHECK(se == HAY_OK || se == HAY_ERR_INVALID, "%s: opened, then the "
              "search fails: %s", what, hay_strerror(se));
        hay_align_db_results_free(r);
        hay_align_scoring_free(s);
        hay_align_db_free(db);
    } else
        CHECK(db == NULL && msg[0], "%s: no reason given", what);
    unlink(p);
    return st;
}

/* ---- 1. round trips --------------------------------------------------- */
/* 120 residues: the second length partition */
#define XSEQ "MKVLAAGIVGLLLAQPAMAAEHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH" \
             "HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHWW"
static const char *const small_fasta =
    ">long first sequence\nAAAAHEAGAWGHEEAAAAAAAA\n"
    ">short\nHEAG\nAWGHEE\n"
    ">mid  \nHEAGAWGHEEA\n\n"
    ">nohit\nPPP\n"
    ">short-copy\nHEAGAWGHEE\n"
    ">x\n" XSEQ "\n";
static const char *const small_names[] = { "long", "short", "mid", "nohit",
                                           "short-copy", "x" };
static const char *const small_seqs[] = {
    "AAAAHEAGAWGHEEAAAAAAAA", "HEAGAWGHEE", "HEAGAWGHEEA", "PPP",
    "HEAGAWGHEE",
    XSEQ };
#define NSMALL 6

static void check_small(const hay_align_db *db, const hay_align_scoring *s,
                        const char *what)
{
    hay_align_db_info info;
    CHECK_ST(hay_align_db_info_get(db, &info), HAY_OK, what);
    CHECK(info.sequences == NSMALL, "%s: %llu sequences", what,
          (unsigned long long)info.sequences);
    CHECK(info.version == HAY_ALIGN_DB_VERSION && info.alpha ==
          hay_align_scoring_alpha(s) && !strcmp(info.letters,
          hay_align_scoring_letters(s)) && !info.dna, "%s: header", what);
    CHECK(info.partitions == 2 && info.longest == strlen(XSEQ), "%s: %llu partitions, "
          "longest %llu", what, (unsigned long long)info.partitions,
          (unsigned long long)info.longest);
    uint64_t total = 0;
    for (uint64_t i = 0; i < NSMALL; i++) {
        const char *name;
        const uint8_t *codes;
        size_t len;
        CHECK_ST(hay_align_db_seq(db, i, &name, &codes, &len), HAY_OK, what);
        size_t want = strlen(small_seqs[i]);
        uint8_t buf[256];
        hay_align_encode(s, small_seqs[i], want, buf, NULL);
        CHECK(len == want && !memcmp(codes, buf, want) &&
              !strcmp(name, small_names[i]), "%s: sequence %llu", what,
              (unsigned long long)i);
        total += len;
    }
    CHECK(info.residues == total, "%s: residues", what);
    CHECK_ST(hay_align_db_seq(db, NSMALL, NULL, NULL, NULL), HAY_ERR_INVALID,
             "index past the end");
    CHECK_ST(hay_align_db_check_scoring(db, s), HAY_OK, what);
}

static void test_round_trip(const hay_align_scoring *s)
{
    char msg[256];
    hay_align_db *a = NULL, *b = NULL, *c = NULL;
    CHECK_ST(hay_align_db_from_fasta(s, small_fasta, strlen(small_fasta), &a,
                                     msg, sizeof msg), HAY_OK, "from FASTA");
    if (!a)
        return;
    check_small(a, s, "built from FASTA");
    hay_align_db_input in[NSMALL];
    for (int i = 0; i < NSMALL; i++) {
        in[i].name = small_names[i];
        in[i].name_len = strlen(small_names[i]);
        in[i].residues = small_seqs[i];
        in[i].len = strlen(small_seqs[i]);
    }
    CHECK_ST(hay_align_db_create(s, in, NSMALL, &b, msg, sizeof msg), HAY_OK,
             "create");
    if (b)
        check_small(b, s, "created");
    char p[4200];
    tmp_path(p, sizeof p, "small.db");
    CHECK_ST(hay_align_db_write(a, p, msg, sizeof msg), HAY_OK, "write");
    CHECK_ST(hay_align_db_open(p, &c, msg, sizeof msg), HAY_OK, "open");
    if (c) {
        check_small(c, s, "opened");
        hay_align_db_info info;
        hay_align_db_info_get(c, &info);
        CHECK(info.mapped, "an opened database is mapped");
    }
    FILE *f = fopen(p, "rb");
    uint8_t head[8] = { 0 };
    CHECK(f && fread(head, 1, 8, f) == 8 && hay_align_db_is_db(head, 8),
          "the magic is recognised");
    if (f)
        fclose(f);
    CHECK(!hay_align_db_is_db(small_fasta, 8), "FASTA is not a database");
    unlink(p);

    /* Another alphabet cannot search it. */
    hay_align_scoring *d = NULL, *b45 = NULL;
    hay_align_scoring_dna(2, -3, 5, 2, &d);
    hay_align_scoring_builtin("blosum45", 11, 1, &b45);
    CHECK_ST(hay_align_db_check_scoring(a, d), HAY_ERR_INVALID, "DNA scoring");
    CHECK_ST(hay_align_db_check_scoring(a, b45), HAY_ERR_INVALID,
             "BLOSUM45 has a J");
    hay_align_db_results *res = TU_NOT_NULL;
    uint8_t q[4] = { 0, 1, 2, 3 };
    hay_align_seq qs = { q, 4 };
    CHECK_ST(hay_align_db_search(a, d, &qs, 1, NULL, &res), HAY_ERR_INVALID,
             "search with another alphabet");
    CHECK(res == NULL, "no results on error");
    hay_align_scoring_free(d);
    hay_align_scoring_free(b45);
    hay_align_db_free(a);
    hay_align_db_free(b);
    hay_align_db_free(c);
    hay_align_db_free(NULL);
    hay_align_db_results_free(NULL);
}

/* ---- 2. building errors ---------------------------------------------- */
static void test_build_errors(const hay_align_scoring *s)
{
    char msg[256];
    hay_align_db *db = TU_NOT_NULL;
    static const struct {
        const char *text, *what;
    } bad[] = {
        { "", "empty text" },
        { "\n\n", "blank lines" },
        { "MKV\n>a\nMKV\n", "text before the first header" },
        { ">a\n>b\nMKV\n", "an empty sequence" },
        { ">a\nMKV\n>b\n", "an empty last sequence" },
        { ">a\nMK1V\n", "a bad letter" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        db = TU_NOT_NULL;
        msg[0] = 0;
        CHECK_ST(hay_align_db_from_fasta(s, bad[i].text, strlen(bad[i].text),
                                         &db, msg, sizeof msg),
                 HAY_ERR_INVALID, bad[i].what);
        CHECK(db == NULL && msg[0], "%s: no reason or *out set", bad[i].what);
    }
    db = TU_NOT_NULL;
    CHECK_ST(hay_align_db_create(s, NULL, 0, &db, msg, sizeof msg),
             HAY_ERR_INVALID, "create with no sequence");
    CHECK(db == NULL && strstr(msg, "empty"), "empty: '%s'", msg);
    CHECK_ST(hay_align_db_open("/nonexistent/x.db", &db, msg, sizeof msg),
             HAY_ERR_INVALID, "a missing file");
    CHECK_ST(hay_align_db_open("/", &db, msg, sizeof msg), HAY_ERR_INVALID,
             "a directory");
}

/* ---- 3. damaged files ------------------------------------------------- */
static void test_damage(const hay_align_scoring *s)
{
    char msg[256], p[4200], what[128];
    hay_align_db *db = NULL;
    if (hay_align_db_from_fasta(s, small_fasta, strlen(small_fasta), &db, msg,
                                sizeof msg) != HAY_OK)
        return;
    tmp_path(p, sizeof p, "good.db");
    hay_align_db_write(db, p, msg, sizeof msg);
    hay_align_db_free(db);
    size_t n;
    uint8_t *img = tu_read_file(p, &n);
    unlink(p);
    if (!CHECK(img && n > 256, "read back the database"))
        return;
    CHECK(image_checksum(img, n) == r64(img + 192), "the checksum is the one "
          "haystack_align.h describes");

    /* Truncated at every length, and one byte too many. */
    tmp_path(p, sizeof p, "cut.db");
    size_t fails = 0;
    for (size_t len = 0; len < n; len++) {
        write_bytes(p, img, len);
        snprintf(what, sizeof what, "truncated to %zu of %zu bytes", len, n);
        fails += try_open(p, what) == HAY_ERR_INVALID;
    }
    CHECK(fails == n, "%zu of %zu truncated files refused", fails, n);
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, img, n);
    longer[n] = 0;
    write_bytes(p, longer, n + 1);
    CHECK_ST(try_open(p, "a trailing byte"), HAY_ERR_INVALID,
             "a trailing byte");
    free(longer);
    unlink(p);

    uint8_t *x = malloc(n);
    struct {
        const char *what, *say;
        void (*edit)(uint8_t *);
    } cases[] = {
        { "bad magic", "magic", NULL },
        { "version 2", "version 2", NULL },
        { "empty database", "empty", NULL },
        { "offset past the end", "not inside", NULL },
        { "unsorted offsets", "offset", NULL },
        { "not a permutation", "permutation", NULL },
        { "name without NUL", "name", NULL },
        { "code out of range", "outside", NULL },
        { "index byte flipped, checksum stale", "checksum", NULL },
        { "bad alphabet size", "alphabet", NULL },
        { "reserved byte set", "reserved", NULL },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(x, img, n);
        uint64_t res = r64(x + 96 + 16 * 5), order = r64(x + 96 + 16 * 2);
        uint64_t offs = r64(x + 96 + 16 * 1), names = r64(x + 96 + 16 * 4);
        int reseal_it = 1;
        switch (c) {
        case 0: x[3] = 'X'; break;
        case 1: w32(x + 8, 2); break;
        case 2: w64(x + 56, 0); break;
        case 3: w64(x + 96 + 16 * 3, n); break;
        case 4: w64(x + offs + 8, r64(x + offs + 16) + 1); break;
        case 5: w32(x + order, 1); w32(x + order + 4, 1); break;
        case 6: x[names + 4] = 'z'; break;   /* "long" + NUL */
        case 7: x[res + 3] = 200; reseal_it = 0; break;
        case 8: x[order] ^= 1; reseal_it = 0; break;
        case 9: w32(x + 16, 99); break;
        case 10: x[255] = 1; break;
        }
        if (reseal_it)
            reseal(x, n);
        msg[0] = 0;
        CHECK_ST(open_image(x, n, cases[c].what, msg, sizeof msg),
                 HAY_ERR_INVALID, cases[c].what);
        CHECK(strstr(msg, cases[c].say) != NULL,
              "%s: message '%s' lacks '%s'", cases[c].what, msg, cases[c].say);
    }
    /* Random damage to the header and index, resealed or not: never a
     * crash; what opens must read back sanely. */
    tu_rng rng = { 0xdb5eedULL };
    size_t idx_end = r64(img + 96 + 16 * 5);
    size_t rounds = tu_scaled(400, 20), opened = 0;
    for (size_t k = 0; k < rounds; k++) {
        memcpy(x, img, n);
        size_t flips = 1 + tu_below(&rng, 3);
        for (size_t f = 0; f < flips; f++)
            x[tu_below(&rng, idx_end)] ^= (uint8_t)(1u << tu_below(&rng, 8));
        if (tu_below(&rng, 4))
            reseal(x, n);
        if (open_image(x, n, "random damage", msg, sizeof msg) == HAY_OK)
            opened++;
    }
    printf("random damage: %zu of %zu damaged images still open (a name or "
           "padding byte changed)\n", opened, rounds);
    free(x);
    free(img);
}

/* ---- 4. ties ---------------------------------------------------------- */
static void test_ties(const hay_align_scoring *s)
{
    char msg[256];
    hay_align_db *db = NULL;
    if (hay_align_db_from_fasta(s, small_fasta, strlen(small_fasta), &db, msg,
                                sizeof msg) != HAY_OK)
        return;
    uint8_t q[16];
    hay_align_encode(s, "HEAGAWGHEE", 10, q, NULL);
    hay_align_seq qs = { q, 10 };
    /* "long" (0), "short" (1), "mid" (2), "short-copy" (4) score the same;
     * by length they sort 1, 4, 2, 0: the input order must win. */
    static const uint64_t want[] = { 0, 1, 2, 4 };
    for (int threads = 1; threads <= 2; threads++)
        for (size_t k = 1; k <= 6; k++) {
            hay_align_db_options o;
            hay_align_db_options_init(&o);
            o.top_k = k;
            o.align.threads = threads;
            hay_align_db_results *r = NULL;
            CHECK_ST(hay_align_db_search(db, s, &qs, 1, &o, &r), HAY_OK,
                     "ties");
            if (!r)
                continue;
            size_t exp = k < 4 ? k : 4;
            const hay_align_db_hits *h = &r->queries[0];
            int ok = h->nhits == exp || (k > 4 && h->nhits == 5);
            for (size_t i = 0; ok && i < exp; i++)
                ok = h->hits[i].target == want[i] &&
                     h->hits[i].r.score == h->hits[0].r.score &&
                     !strcmp(h->hits[i].name, small_names[want[i]]) &&
                     h->hits[i].r.cigar != NULL;
            CHECK(ok, "ties, top %zu, %d threads: ranked by input order", k,
                  threads);
            hay_align_db_results_free(r);
        }
    hay_align_db_free(db);
}

/* ---- 4b. scores past 16 bits ------------------------------------------ */
static void test_saturation(const hay_align_scoring *s)
{
    /* 4,000 residues of a low-complexity repeat score far beyond 32767
     * against themselves: the 16-bit pass saturates and the 32-bit one
     * must give the exact score, and the hits must still rank right. */
    enum { N = 4000 };
    char *a = malloc(N + 1), *b = malloc(N + 1), *fasta = malloc(3 * N + 64);
    for (int i = 0; i < N; i++) {
        a[i] = "WCWH"[i % 4];
        b[i] = i < N * 9 / 10 ? a[i] : 'G';
    }
    a[N] = b[N] = 0;
    snprintf(fasta, 3 * N + 64, ">most\n%s\n>short\nWCWHWCWH\n>full\n%s\n", b,
             a);
    hay_align_db *db = NULL;
    char msg[256];
    CHECK_ST(hay_align_db_from_fasta(s, fasta, strlen(fasta), &db, msg,
                                     sizeof msg), HAY_OK, "saturation db");
    uint8_t *q = malloc(N);
    hay_align_encode(s, a, N, q, NULL);
    hay_align_seq qs = { q, N };
    hay_align_options so;
    hay_align_options_init(&so);
    so.variant = "scalar";
    so.score_only = 1;
    for (int score_only = 1; db && score_only >= 0; score_only--) {
        hay_align_db_options o;
        hay_align_db_options_init(&o);
        o.align.threads = 2;
        o.align.score_only = score_only;
        hay_align_db_results *r = NULL;
        CHECK_ST(hay_align_db_search(db, s, &qs, 1, &o, &r), HAY_OK,
                 "saturation search");
        if (!r)
            continue;
        const hay_align_db_hits *h = &r->queries[0];
        static const uint32_t want[] = { 2, 0, 1 };
        int ok = h->nhits == 3 && r->rescored32 >= 2;
        for (size_t x = 0; ok && x < 3; x++) {
            const uint8_t *t;
            size_t n;
            hay_align_db_seq(db, want[x], NULL, &t, &n);
            hay_align_result ref;
            hay_align_pair(s, q, N, t, n, &so, &ref);
            ok = h->hits[x].target == want[x] &&
                 h->hits[x].r.score == ref.score &&
                 (x == 2 || (h->hits[x].r.score > 32767 &&
                             (h->hits[x].r.flags & HAY_ALIGN_RESCORED32)));
        }
        CHECK(ok, "saturated scores, score_only %d: %zu hits, %llu rescored",
              score_only, h->nhits, (unsigned long long)r->rescored32);
        hay_align_db_results_free(r);
    }
    hay_align_db_free(db);
    free(q);
    free(a);
    free(b);
    free(fasta);
}

/* ---- 5. top-k against the scalar reference on the bio sets ----------- */
typedef struct scored {
    int32_t score;
    uint64_t target;
} scored;

static int by_rank(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->target < y->target ? -1 : x->target > y->target;
}

static void compare_search(const hay_align_scoring *s, const hay_align_db *db,
                           const hay_align_seq *qs, size_t nq,
                           const char *what)
{
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    size_t nt = (size_t)info.sequences;
    au_scoring as;
    au_scoring_from(s, &as);
    scored *ref = malloc(nq * nt * sizeof *ref);
    hay_align_options so;
    hay_align_options_init(&so);
    so.variant = "scalar";
    so.score_only = 1;
    double t0 = tu_now();
    for (size_t j = 0; j < nq; j++)
        for (size_t i = 0; i < nt; i++) {
            const uint8_t *t;
            size_t n;
            hay_align_db_seq(db, i, NULL, &t, &n);
            hay_align_result r;
            hay_align_pair(s, qs[j].codes, qs[j].len, t, n, &so, &r);
            ref[j * nt + i].score = r.score;
            ref[j * nt + i].target = i;
        }
    for (size_t j = 0; j < nq; j++)
        qsort(ref + j * nt, nt, sizeof *ref, by_rank);
    printf("%s: scalar reference %.2f s\n", what, tu_now() - t0);

    static const size_t ks[] = { 1, 5, 50, 0 };
    static const int32_t mins[] = { 0, 45 };
    size_t runs = 0, bad = 0;
    for (size_t ki = 0; ki < 4; ki++)
        for (size_t mi = 0; mi < 2; mi++)
            for (int threads = 1; threads <= 2; threads++)
                for (int so_ = 1; so_ >= 0; so_--) {
                    if (so_ == 0 && ks[ki] == 0)
                        continue;   /* every target traced: slow, no news */
                    hay_align_db_options o;
                    hay_align_db_options_init(&o);
                    o.top_k = ks[ki] ? ks[ki] : nt;
                    o.min_score = mins[mi];
                    o.align.threads = threads;
                    o.align.score_only = so_;
                    hay_align_db_results *r = NULL;
                    t0 = tu_now();
                    hay_status st = hay_align_db_search(db, s, qs, nq, &o, &r);
                    double sec = tu_now() - t0;
                    runs++;
                    if (!CHECK(st == HAY_OK, "%s: search: %s", what,
                               hay_strerror(st)))
                        continue;
                    if (ks[ki] == 50 && threads == 2 && mi == 0)
                        printf("%s: top 50, 2 threads, %s: %.3f s (%s)\n",
                               what, so_ ? "score only" : "traceback", sec,
                               r->engine);
                    for (size_t j = 0; j < nq; j++) {
                        size_t want = 0;
                        while (want < o.top_k && want < nt &&
                               ref[j * nt + want].score > 0 &&
                               ref[j * nt + want].score >= mins[mi])
                            want++;
                        const hay_align_db_hits *h = &r->queries[j];
                        int ok = h->nhits == want;
                        for (size_t x = 0; ok && x < want; x++) {
                            const hay_align_db_hit *hit = &h->hits[x];
                            ok = hit->target == ref[j * nt + x].target &&
                                 hit->r.score == ref[j * nt + x].score;
                            if (!ok)
                                break;
                            const uint8_t *t;
                            size_t n;
                            hay_align_db_seq(db, hit->target, NULL, &t, &n);
                            uint64_t qe, te;
                            if (so_) {
                                au_oracle(&as, qs[j].codes, qs[j].len, t, n,
                                          &qe, &te);
                                ok = !hit->r.cigar && hit->r.q_end == qe &&
                                     hit->r.t_end == te;
                            } else if (x < 3) {
                                int64_t sc = au_oracle(&as, qs[j].codes,
                                                       qs[j].len, t, n, &qe,
                                                       &te);
                                ok = au_check_result(&as, qs[j].codes,
                                                     qs[j].len, t, n, &hit->r,
                                                     sc, qe, te, what);
                            } else {
                                int32_t sc;
                                ok = hit->r.cigar &&
                                     hay_align_rescore(s, qs[j].codes,
                                                       qs[j].len, t, n,
                                                       hit->r.q_start,
                                                       hit->r.t_start,
                                                       hit->r.cigar,
                                                       &sc) == HAY_OK &&
                                     sc == hit->r.score;
                            }
                        }
                        if (!ok)
                            bad++;
                        CHECK(ok, "%s: query %zu, top %zu, min %d, %d "
                              "threads, score_only %d: %zu hits, want %zu",
                              what, j, o.top_k, (int)mins[mi], threads, so_,
                              h->nhits, want);
                    }
                    hay_align_db_results_free(r);
                }
    printf("%s: %zu searches x %zu queries, %zu disagreements\n", what, runs,
           nq, bad);
    free(ref);
}

static int test_bio(const hay_align_scoring *s, const char *dir)
{
    au_bio b;
    if (!au_bio_open(s, dir, &b))
        return 0;
    hay_align_db *sprot = b.sprot, *ecoli = b.ecoli;
    const hay_align_seq *qs = b.qs;
    size_t nq = b.nq;
    /* Three queries of the short half x sprot196; the shortest x the
     * E. coli proteome (4,298 targets). */
    hay_align_seq three[3] = { qs[0], qs[nq / 4], qs[nq / 2] };
    compare_search(s, sprot, three, 3, "3 queries x sprot196");
    compare_search(s, ecoli, qs, 1, "1 query x E. coli proteome");
    /* Twelve queries: enough for 2 threads to take whole queries. */
    compare_search(s, sprot, qs, 12, "12 queries x sprot196");
    au_bio_close(&b);
    return 1;
}

/* ---- 6. 2 GiB+ -------------------------------------------------------- */
static int test_big(const hay_align_scoring *s)
{
    /* Three sequences of 1.2, 1.4 and 1.7 G residues (all 'A' but a
     * motif at the very end of the last one, past 2^32), written sparse. */
    static const char motif[] = "HEAGAWGHEE";
    const uint64_t lens[3] = { 1200000000ULL, 1400000000ULL, 1700000000ULL };
    const char *names[3] = { "big0", "big1", "big2" };
    uint64_t nres = lens[0] + lens[1] + lens[2];
    uint8_t img[1024];
    memset(img, 0, sizeof img);
    memcpy(img, "HAYSWDB\x1a", 8);
    w32(img + 8, 1);
    w32(img + 12, 256);
    w32(img + 16, (uint32_t)hay_align_scoring_alpha(s));
    memcpy(img + 24, hay_align_scoring_letters(s),
           (size_t)hay_align_scoring_alpha(s));
    w64(img + 56, 3);
    w64(img + 64, nres);
    w64(img + 72, lens[2]);
    w64(img + 80, 1);
    uint64_t off[6] = { 256, 320, 384, 448, 512, 576 };
    uint64_t sz[6] = { 32, 32, 12, 32, 15, nres };
    for (int k = 0; k < 6; k++) {
        w64(img + 96 + 16 * k, off[k]);
        w64(img + 96 + 16 * k + 8, sz[k]);
    }
    w64(img + 88, off[5] + nres);
    w64(img + 256, 0);
    w64(img + 264, 3);
    w64(img + 272, lens[0]);
    w64(img + 280, lens[2]);
    w64(img + 320, 0);
    w64(img + 328, lens[0]);
    w64(img + 336, lens[0] + lens[1]);
    w64(img + 344, nres);
    for (uint32_t i = 0; i < 3; i++) {
        w32(img + 384 + 4 * i, i);
        w64(img + 448 + 8 * i, 5 * i);
        memcpy(img + 512 + 5 * i, names[i], 4);
    }
    w64(img + 448 + 24, 15);
    reseal(img, 576);
    char p[4200];
    tmp_path(p, sizeof p, "big.db");
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    uint8_t tail[10];
    hay_align_encode(s, motif, 10, tail, NULL);
    int ok = fd >= 0 && pwrite(fd, img, 576, 0) == 576 &&
             ftruncate(fd, (off_t)(off[5] + nres)) == 0 &&
             pwrite(fd, tail, 10, (off_t)(off[5] + nres - 10)) == 10;
    if (fd >= 0)
        close(fd);
    if (!ok) {
        unlink(p);
        printf("SKIP 2 GiB+ database: cannot write a sparse file in %s\n",
               tmpdir);
        return 0;
    }
    double t0 = tu_now();
    hay_align_db *db = NULL;
    char msg[256] = "";
    hay_status st = hay_align_db_open(p, &db, msg, sizeof msg);
    CHECK(st == HAY_OK, "open the 4.3 G-residue database: %s", msg);
    printf("2 GiB+: opened (every check, %llu residues) in %.2f s\n",
           (unsigned long long)nres, tu_now() - t0);
    if (db) {
        const uint8_t *codes;
        size_t len;
        const char *name;
        CHECK_ST(hay_align_db_seq(db, 2, &name, &codes, &len), HAY_OK, "big2");
        CHECK(len == lens[2] && !strcmp(name, "big2") &&
              !memcmp(codes + len - 10, tail, 10) && codes[0] == 0,
              "the last sequence's codes past 2^32");
        CHECK_ST(hay_align_db_seq(db, 1, NULL, &codes, &len), HAY_OK, "big1");
        CHECK(len == lens[1] && codes[len - 1] == 0, "big1");
        /* Its end aligns: the motif at t_end past 2^30 in the target. */
        hay_align_result r;
        hay_align_db_seq(db, 2, NULL, &codes, &len);
        const uint8_t *end = codes + len - 100;
        CHECK_ST(hay_align_pair(s, tail, 10, end, 100, NULL, &r), HAY_OK,
                 "align the motif");
        CHECK(r.t_end == 99, "motif end %llu", (unsigned long long)r.t_end);
        hay_align_result_clear(&r);
        hay_align_db_free(db);
    }
    /* The same file cut by one byte is refused at once. */
    if (truncate(p, (off_t)(off[5] + nres - 1)) == 0)
        CHECK_ST(try_open(p, "big, truncated"), HAY_ERR_INVALID,
                 "big, truncated");
    unlink(p);
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/data";
    int big = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--big"))
            big = 1;
        else
            snprintf(tmpdir, sizeof tmpdir, "%s", argv[i]);
    }
    mkdir(tmpdir, 0755);
    hay_align_scoring *s = NULL;
    hay_align_scoring_builtin("blosum62", 11, 1, &s);
    if (big) {
        int ran = test_big(s);
        hay_align_scoring_free(s);
        return ran ? tu_finish() : TU_SKIP;
    }
    test_round_trip(s);
    test_build_errors(s);
    test_damage(s);
    test_ties(s);
    test_saturation(s);
    test_bio(s, dir);
    hay_align_scoring_free(s);
    return tu_finish();
}
