/*
 * api.c - the alignment API's contract: scoring construction and its
 * errors (matrix text in both NCBI layouts), encoding, hand-checked
 * alignments, every error status of hay_align_pair, rescoring; the
 * database search's device start (hay_align_db_warm_up) and timeline
 * through the library as built.
 */
#include "align_util.h"
#include "../../src/align/align_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char classic[] =
    "#  Matrix made by matblas from blosum62.iij\n"
    "   A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  Z  X  *\n"
    "A  4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0 -2 -1  0 -4\n"
    "R -1  5  0 -2 -3  1  0 -2  0 -3 -2  2 -1 -3 -2 -1 -1 -3 -2 -3 -1  0 -1 -4\n"
    "N -2  0  6  1 -3  0  0  0  1 -3 -3  0 -2 -3 -2  1  0 -4 -2 -3  3  0 -1 -4\n"
    "D -2 -2  1  6 -3  0  2 -1 -1 -3 -4 -1 -3 -3 -1  0 -1 -4 -3 -3  4  1 -1 -4\n"
    "C  0 -3 -3 -3  9 -3 -4 -3 -3 -1 -1 -3 -1 -2 -3 -1 -1 -2 -2 -1 -3 -3 -2 -4\n"
    "Q -1  1  0  0 -3  5  2 -2  0 -3 -2  1  0 -3 -1  0 -1 -2 -1 -2  0  3 -1 -4\n"
    "E -1  0  0  2 -4  2  5 -2  0 -3 -3  1 -2 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4\n"
    "G  0 -2  0 -1 -3 -2 -2  6 -2 -4 -4 -2 -3 -3 -2  0 -2 -2 -3 -3 -1 -2 -1 -4\n"
    "H -2  0  1 -1 -3  0  0 -2  8 -3 -3 -1 -2 -1 -2 -1 -2 -2  2 -3  0  0 -1 -4\n"
    "I -1 -3 -3 -3 -1 -3 -3 -4 -3  4  2 -3  1  0 -3 -2 -1 -3 -1  3 -3 -3 -1 -4\n"
    "L -1 -2 -3 -4 -1 -2 -3 -4 -3  2  4 -2  2  0 -3 -2 -1 -2 -1  1 -4 -3 -1 -4\n"
    "K -1  2  0 -1 -3  1  1 -2 -1 -3 -2  5 -1 -3 -1  0 -1 -3 -2 -2  0  1 -1 -4\n"
    "M -1 -1 -2 -3 -1  0 -2 -3 -2  1  2 -1  5  0 -2 -1 -1 -1 -1  1 -3 -1 -1 -4\n"
    "F -2 -3 -3 -3 -2 -3 -3 -3 -1  0  0 -3  0  6 -4 -2 -2  1  3 -1 -3 -3 -1 -4\n"
    "P -1 -2 -2 -1 -3 -1 -1 -2 -2 -3 -3 -1 -2 -4  7 -1 -1 -4 -3 -2 -2 -1 -2 -4\n"
    "S  1 -1  1  0 -1  0  0  0 -1 -2 -2  0 -1 -2 -1  4  1 -3 -2 -2  0  0  0 -4\n"
    "T  0 -1  0 -1 -1 -1 -1 -2 -2 -1 -1 -1 -1 -2 -1  1  5 -2 -2  0 -1 -1  0 -4\n"
    "W -3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1  1 -4 -3 -2 11  2 -3 -4 -3 -2 -4\n"
    "Y -2 -2 -2 -3 -2 -1 -2 -3  2 -1 -1 -2 -1  3 -3 -2 -2  2  7 -1 -3 -2 -1 -4\n"
    "V  0 -3 -3 -3 -1 -2 -2 -3 -3  3  1 -2  1 -1 -2 -2  0 -3 -1  4 -3 -2 -1 -4\n"
    "B -2 -1  3  4 -3  0  1 -1  0 -3 -4  0 -3 -3 -2  0 -1 -4 -3 -3  4  1 -1 -4\n"
    "Z -1  0  0  1 -3  3  4 -2  0 -3 -3  1 -1 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4\n"
    "X  0 -1 -1 -1 -2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -2  0  0 -2 -1 -1 -1 -1 -1 -4\n"
    "* -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4  1\n";

static void parse_bad(const char *text, size_t want_line, const char *what)
{
    hay_align_scoring *s = TU_NOT_NULL;
    size_t line = 999;
    hay_status st = hay_align_scoring_parse(text, strlen(text), "t", 11, 1,
                                            &s, &line);
    CHECK_ST(st, HAY_ERR_INVALID, what);
    CHECK(s == NULL, "%s: output not NULL", what);
    CHECK(line == want_line, "%s: line %zu, want %zu", what, line, want_line);
}

/* Aligns two letter strings; returns the result (caller clears). */
static hay_align_result run(const hay_align_scoring *s, const char *a,
                            const char *b)
{
    size_t m = strlen(a), n = strlen(b);
    uint8_t *q = malloc(m + 1), *t = malloc(n + 1);
    hay_align_encode(s, a, m, q, NULL);
    hay_align_encode(s, b, n, t, NULL);
    hay_align_result r;
    hay_status st = hay_align_pair(s, q, m, t, n, NULL, &r);
    CHECK(st == HAY_OK, "align %s / %s: %s", a, b, hay_strerror(st));
    au_scoring as;
    au_scoring_from(s, &as);
    uint64_t qe, te;
    int64_t want = au_oracle(&as, q, m, t, n, &qe, &te);
    au_check_result(&as, q, m, t, n, &r, want, qe, te, a);
    free(q);
    free(t);
    return r;
}

/* hay_align_batch without options aligns every pair as hay_align_pair
 * does without them (both take the defaults of hay_align_options_init). */
static void test_batch_defaults(const hay_align_scoring *s)
{
    static const char *const text[] = { "HEAGAWGHEE", "PAWHEAE", "W", "MEEKAWHEAGW" };
    enum { NQ = 3, NT = 2 };
    uint8_t codes[4][16];
    hay_align_seq seq[4];
    for (int i = 0; i < 4; i++) {
        seq[i].len = strlen(text[i]);
        hay_align_encode(s, text[i], seq[i].len, codes[i], NULL);
        seq[i].codes = codes[i];
    }
    const hay_align_seq *qs = seq, *ts = seq + NQ - 1;   /* targets: "W", "MEEK..." */
    hay_align_result res[NQ * NT];
    CHECK_ST(hay_align_batch(s, qs, NQ, ts, NT, NULL, res), HAY_OK, "batch, NULL options");
    for (int i = 0; i < NQ; i++)
        for (int j = 0; j < NT; j++) {
            hay_align_result r, *b = &res[i * NT + j];
            CHECK_ST(hay_align_pair(s, qs[i].codes, qs[i].len, ts[j].codes, ts[j].len, NULL,
                                    &r), HAY_OK, "pair, NULL options");
            CHECK(b->score == r.score && b->q_end == r.q_end && b->t_end == r.t_end &&
                  (b->cigar == NULL) == (r.cigar == NULL) &&
                  (!r.cigar || !strcmp(b->cigar, r.cigar)),
                  "batch, NULL options: %s / %s: score %d cigar %s, pair %d %s", text[i],
                  text[NQ - 1 + j], (int)b->score, b->cigar ? b->cigar : "-", (int)r.score,
                  r.cigar ? r.cigar : "-");
            hay_align_result_clear(&r);
            hay_align_result_clear(b);
        }
}

/* The device start ahead of a database search, and the timeline its
 * results carry, in the library as built (with or without the GPU search;
 * the host logic behind them is tested in db_gpu_mock.c). */
static void test_db_warm_up(void)
{
    hay_align_scoring *s = NULL;
    hay_align_db *db = NULL;
    static const char fasta[] = ">a\nHEAGAWGHEE\n>b\nPAWHEAE\n";
    CHECK_ST(hay_align_scoring_builtin("blosum62", 11, 1, &s), HAY_OK, "blosum62");
    CHECK_ST(hay_align_db_from_fasta(s, fasta, strlen(fasta), &db, NULL, 0), HAY_OK, "db");
    if (!s || !db) {
        hay_align_db_free(db);
        hay_align_scoring_free(s);
        return;
    }
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    CHECK(o.warm == NULL, "options_init: warm not NULL");
    hay_align_db_warm *w = (hay_align_db_warm *)&o;
    CHECK_ST(hay_align_db_warm_up(&o, 0, NULL), HAY_ERR_INVALID, "warm_up, out NULL");
    o.align.backend = HAY_BACKEND_CPU;
    CHECK_ST(hay_align_db_warm_up(&o, UINT64_MAX, &w), HAY_OK, "warm_up, cpu");
    CHECK(w == NULL, "warm_up, cpu: a handle");
    o.align.backend = HAY_BACKEND_AUTO;
    w = (hay_align_db_warm *)&o;
    CHECK_ST(hay_align_db_warm_up(&o, 100, &w), HAY_OK, "warm_up, auto, 100 cells");
    CHECK(w == NULL, "warm_up, auto, 100 cells: a handle");
    o.align.backend = HAY_BACKEND_CUDA;
    w = (hay_align_db_warm *)&o;
    hay_status st = hay_align_db_warm_up(&o, 0, &w);
    /* No GPU search built: NO_BACKEND; built: a start, whether or not a
     * device is there (the search reports it). */
    CHECK((st == HAY_ERR_NO_BACKEND && w == NULL) || (st == HAY_OK && w != NULL),
          "warm_up, cuda: status %d", (int)st);
    hay_align_db_warm_free(w);
    hay_align_db_warm_free(NULL);

    /* A CPU search's results list its phases, in the order they began. */
    uint8_t q[10];
    hay_align_encode(s, "HEAGAWGHEE", 10, q, NULL);
    hay_align_seq qs = { q, 10 };
    o.align.backend = HAY_BACKEND_CPU;
    hay_align_db_results *r = NULL;
    double t0 = tu_now();
    CHECK_ST(hay_align_db_search(db, s, &qs, 1, &o, &r), HAY_OK, "search");
    double t1 = tu_now();
    int scores = 0, tb = 0;
    for (size_t i = 0; r && i < r->nphases; i++) {
        const hay_align_phase *p = &r->phases[i];
        CHECK(p->start >= t0 && p->end <= t1 && p->start <= p->end && p->count >= 1,
              "phase %s outside the call", p->name);
        CHECK(i == 0 || r->phases[i - 1].start <= p->start, "phase %s out of order", p->name);
        scores += !strcmp(p->name, "search:cpu_scores");
        tb += !strcmp(p->name, "search:traceback");
    }
    CHECK(scores == 1 && tb == 1, "cpu_scores and traceback phases: %d and %d", scores, tb);
    hay_align_db_results_free(r);
    hay_align_db_free(db);
    hay_align_scoring_free(s);
}

int main(void)
{
    hay_align_scoring *s = NULL, *b = NULL;

    /* Scoring: built-ins, both layouts, errors. */
    CHECK_ST(hay_align_scoring_parse(classic, strlen(classic), "classic", 11,
                                     1, &s, NULL), HAY_OK, "classic layout");
    CHECK_ST(hay_align_scoring_builtin("BLOSUM62", 11, 1, &b), HAY_OK,
             "builtin BLOSUM62 (any case)");
    if (s && b) {
        CHECK(hay_align_scoring_alpha(s) == 24 &&
              !strcmp(hay_align_scoring_letters(s), hay_align_scoring_letters(b)) &&
              !memcmp(s->matrix, b->matrix, 24 * 24 * sizeof(int32_t)),
              "built-in blosum62 equals the classic text");
    }
    hay_align_scoring_free(s);
    hay_align_scoring_free(b);
    hay_align_scoring *p45;
    CHECK_ST(hay_align_scoring_builtin("pam250", 14, 2, &p45), HAY_OK, "pam250");
    CHECK(hay_align_scoring_alpha(p45) == 25 &&
          strchr(hay_align_scoring_letters(p45), 'J') != NULL,
          "current layout has J");
    hay_align_scoring_free(p45);
    const char *name;
    size_t nm = 0;
    while (hay_align_matrix_name(nm, &name) == HAY_OK) {
        hay_align_scoring *x;
        CHECK_ST(hay_align_scoring_builtin(name, 10, 1, &x), HAY_OK, name);
        hay_align_scoring_free(x);
        nm++;
    }
    CHECK(nm == 8, "8 built-in matrices, got %zu", nm);
    s = TU_NOT_NULL;
    CHECK_ST(hay_align_scoring_builtin("blosum63", 11, 1, &s),
             HAY_ERR_UNKNOWN_NAME, "unknown matrix");
    CHECK(s == NULL, "unknown matrix: output not NULL");
    CHECK_ST(hay_align_scoring_builtin("blosum62", 0, 0, &s), HAY_ERR_INVALID,
             "open 0");
    CHECK_ST(hay_align_scoring_builtin("blosum62", 1, 2, &s), HAY_ERR_INVALID,
             "extend > open");
    CHECK_ST(hay_align_scoring_builtin("blosum62", 5, -1, &s), HAY_ERR_INVALID,
             "negative extend");
    CHECK_ST(hay_align_scoring_dna(0, -1, 5, 2, &s), HAY_ERR_INVALID,
             "match 0");
    CHECK_ST(hay_align_scoring_dna(2, 2, 5, 2, &s), HAY_ERR_INVALID,
             "mismatch = match");
    parse_bad("  A C\nA 1 0\nC 0\n", 3, "short row");
    parse_bad("  A C\nA 1 0\nA 0 1\n", 3, "repeated row");
    parse_bad("  A C\nA 1 0\nC 0 1\nC 0 1\n", 4, "extra row");
    parse_bad("  A C\nA 1 0\n", 0, "missing row");
    parse_bad("  AB C\nA 1 0\nC 0 1\n", 1, "two-letter header");
    parse_bad("  A C\nA 1 x\nC 0 1\n", 2, "not a number");
    parse_bad("  A C\nA 1 0 7\nC 0 1\n", 2, "too many values");
    parse_bad("# only a comment\n", 0, "no header");
    parse_bad("  A A\nA 1 0\nA 0 1\n", 1, "repeated header letter");

    /* Encoding. */
    hay_align_scoring *dna, *prot;
    hay_align_scoring_dna(2, -3, 5, 2, &dna);
    hay_align_scoring_builtin("blosum62", 11, 1, &prot);
    uint8_t codes[16];
    size_t bad = 99;
    CHECK_ST(hay_align_encode(dna, "acgtNRyu", 8, codes, &bad), HAY_OK,
             "dna letters");
    CHECK(codes[0] == 0 && codes[3] == 3 && codes[4] == 4 && codes[5] == 4 &&
          codes[6] == 4 && codes[7] == 3, "dna codes");
    CHECK_ST(hay_align_encode(dna, "ACGE", 4, codes, &bad), HAY_ERR_INVALID,
             "dna E");
    CHECK(bad == 3, "bad position %zu", bad);
    CHECK_ST(hay_align_encode(prot, "MKu", 3, codes, &bad), HAY_OK,
             "U reads as X");
    CHECK(codes[2] == (uint8_t)(strchr(hay_align_scoring_letters(prot), 'X') -
                                hay_align_scoring_letters(prot)), "U is X");
    CHECK_ST(hay_align_encode(prot, "MK-L", 4, codes, &bad), HAY_ERR_INVALID,
             "gap character");
    CHECK(bad == 2, "bad position %zu", bad);
    CHECK_ST(hay_align_encode(prot, "MK1", 3, codes, &bad), HAY_ERR_INVALID,
             "digit");

    /* Hand-checked alignments. */
    hay_align_result r = run(dna, "ACGT", "ACGT");
    CHECK(r.score == 8 && r.cigar && !strcmp(r.cigar, "4="), "ACGT: %d %s",
          (int)r.score, r.cigar ? r.cigar : "-");
    hay_align_result_clear(&r);
    /* A 2-gap costs 5 + 2 = 7: 16 - 7 = 9 beats 8. */
    r = run(dna, "ACGTCCGTCA", "ACGTGTCA");
    CHECK(r.score == 9 && r.cigar && !strcmp(r.cigar, "4=2I4="),
          "gap: %d %s", (int)r.score, r.cigar ? r.cigar : "-");
    hay_align_result_clear(&r);
    r = run(dna, "ACGTGTCA", "ACGTCCGTCA");
    CHECK(r.score == 9 && r.cigar && !strcmp(r.cigar, "4=2D4="),
          "gap in query: %d %s", (int)r.score, r.cigar ? r.cigar : "-");
    hay_align_result_clear(&r);
    r = run(dna, "AAAA", "CCCC");
    CHECK(r.score == 0 && r.cigar == NULL, "nothing aligns");
    hay_align_result_clear(&r);
    /* Ties: "AC" occurs twice in the target: the first end wins. */
    r = run(dna, "AC", "ACGGAC");
    CHECK(r.score == 4 && r.t_start == 0 && r.t_end == 1, "tie: t %llu-%llu",
          (unsigned long long)r.t_start, (unsigned long long)r.t_end);
    hay_align_result_clear(&r);
    r = run(prot, "HEAGAWGHEE", "PAWHEAE");
    CHECK(r.score == 17 && r.q_start == 0 && r.t_start == 3, "HEAGAWGHEE");
    hay_align_result_clear(&r);
    r = run(prot, "W", "W");
    CHECK(r.score == 11 && !strcmp(r.cigar, "1="), "single residue");
    hay_align_result_clear(&r);

    test_batch_defaults(prot);

    /* hay_align_pair's errors. */
    hay_align_options o;
    hay_align_options_init(&o);
    uint8_t q[4] = { 0, 1, 2, 3 }, t[4] = { 0, 1, 2, 9 };
    CHECK_ST(hay_align_pair(dna, q, 0, q, 4, &o, &r), HAY_ERR_INVALID,
             "empty query");
    CHECK_ST(hay_align_pair(dna, q, 4, q, 0, &o, &r), HAY_ERR_INVALID,
             "empty target");
    CHECK_ST(hay_align_pair(dna, q, 4, t, 4, &o, &r), HAY_ERR_INVALID,
             "code out of range");
    CHECK(r.cigar == NULL && r.score == 0, "error leaves a clear result");
    CHECK_ST(hay_align_pair(NULL, q, 4, q, 4, &o, &r), HAY_ERR_INVALID,
             "NULL scoring");
    CHECK_ST(hay_align_pair(dna, q, 4, q, 4, &o, NULL), HAY_ERR_INVALID,
             "NULL result");
    o.variant = "striped8";
    CHECK_ST(hay_align_pair(dna, q, 4, q, 4, &o, &r), HAY_ERR_UNKNOWN_NAME,
             "unknown variant");
    CHECK_ST(hay_align_variant_check("striped8", NULL), HAY_ERR_UNKNOWN_NAME,
             "variant_check unknown");
    const char *res = NULL;
    CHECK_ST(hay_align_variant_check(NULL, &res), HAY_OK, "variant auto");
    CHECK(res && !strncmp(res, "striped16_", 10), "auto is striped16: %s",
          res ? res : "-");
    o.variant = NULL;
    /* A GPU backend either aligns (and agrees with the CPU) or says why
     * not: not built into this library, or no device here. */
    {
        hay_align_result cpu_r;
        memset(&cpu_r, 0, sizeof cpu_r);
        o.backend = HAY_BACKEND_CPU;
        CHECK_ST(hay_align_pair(dna, q, 4, q, 4, &o, &cpu_r), HAY_OK, "cpu pair");
        const hay_backend gpus[] = { HAY_BACKEND_CUDA, HAY_BACKEND_OPENCL };
        for (int g = 0; g < 2; g++) {
            o.backend = gpus[g];
            hay_status got = hay_align_pair(dna, q, 4, q, 4, &o, &r);
            if (got == HAY_OK) {
                CHECK(r.score == cpu_r.score, "%s score %d, cpu %d",
                      hay_backend_name(gpus[g]), (int)r.score, (int)cpu_r.score);
                hay_align_result_clear(&r);
            } else {
                CHECK(got == HAY_ERR_NO_BACKEND || got == HAY_ERR_NO_DEVICE,
                      "%s: got %d (%s), want success or no backend/device",
                      hay_backend_name(gpus[g]), (int)got, hay_strerror(got));
            }
        }
        hay_align_result_clear(&cpu_r);
    }
    o.backend = HAY_BACKEND_CPU;
    {
        /* The best score could pass 2^30: refused, not wrong. */
        hay_align_scoring *big;
        CHECK_ST(hay_align_scoring_dna(1000000, -1, 5, 2, &big), HAY_OK, "big");
        uint8_t *x = calloc(1100, 1);
        CHECK_ST(hay_align_pair(big, x, 1100, x, 1100, &o, &r),
                 HAY_ERR_TOO_LARGE, "score bound");
        CHECK_ST(hay_align_pair(big, x, 1000, x, 1000, &o, &r), HAY_OK,
                 "just below the bound");
        CHECK(r.score == 1000000000, "score %d", (int)r.score);
        hay_align_result_clear(&r);
        free(x);
        hay_align_scoring_free(big);
    }

    /* Rescoring. */
    int32_t sc = 0;
    uint8_t a8[8], b10[10];
    hay_align_encode(dna, "ACGTACGT", 8, a8, NULL);
    hay_align_encode(dna, "ACGTTTACGT", 10, b10, NULL);
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "4=2D4=", &sc),
             HAY_OK, "rescore");
    CHECK(sc == 9, "rescore: %d", (int)sc);
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "4M1D1D4M", &sc),
             HAY_OK, "rescore split gap");
    CHECK(sc == 9, "split gap is one gap: %d", (int)sc);
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "5=", &sc),
             HAY_ERR_INVALID, "= on a mismatch");
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "9M", &sc),
             HAY_ERR_INVALID, "past the query");
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "4", &sc),
             HAY_ERR_INVALID, "no op");
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "4Q", &sc),
             HAY_ERR_INVALID, "bad op");
    CHECK_ST(hay_align_rescore(dna, a8, 8, b10, 10, 0, 0, "", &sc),
             HAY_ERR_INVALID, "empty");
    {
        /* Codes past the alphabet (the caller's, not hay_align_encode's):
         * refused, not looked up past the end of the matrix. */
        const uint8_t far[3] = { 250, 0, 255 }, ok3[3] = { 0, 0, 0 };
        CHECK_ST(hay_align_rescore(prot, far, 3, ok3, 3, 0, 0, "3M", &sc),
                 HAY_ERR_INVALID, "query code past the alphabet");
        CHECK_ST(hay_align_rescore(prot, ok3, 3, far, 3, 0, 0, "3M", &sc),
                 HAY_ERR_INVALID, "target code past the alphabet");
        CHECK_ST(hay_align_rescore(dna, far, 3, far, 3, 0, 0, "3=", &sc),
                 HAY_ERR_INVALID, "equal codes past the alphabet");
        CHECK_ST(hay_align_rescore(prot, far, 3, ok3, 3, 1, 1, "1M", &sc),
                 HAY_OK, "codes past the alphabet outside the alignment");
        CHECK_ST(hay_align_rescore(prot, far, 3, ok3, 3, 0, 0, "1I2M", &sc),
                 HAY_ERR_INVALID, "a code past the alphabet in a gap");
    }

    hay_align_result_clear(NULL);
    hay_align_scoring_free(NULL);
    hay_align_scoring_free(dna);
    hay_align_scoring_free(prot);
    test_db_warm_up();
    return tu_finish();
}
