/*
 * stats.c - the alignment statistics (hay_align_stats_*): the published
 * tables, the computed fallback against the published ungapped values,
 * BLAST's length adjustment and E-values against numbers blastp printed,
 * DNA's gcd scaling and even-score rounding, the fit to a search's own
 * scores on samples of known parameters, errors.  The comparison with
 * BLAST+ on real searches is tests/align/blast_check.sh.
 */
#include "align_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

static hay_align_stats protein(const char *name, int open, int extend)
{
    hay_align_scoring *s = NULL;
    hay_align_stats st;
    memset(&st, 0, sizeof st);
    CHECK_ST(hay_align_scoring_builtin(name, open, extend, &s), HAY_OK, name);
    if (s)
        CHECK_ST(hay_align_stats_get(s, &st), HAY_OK, name);
    hay_align_scoring_free(s);
    return st;
}

static hay_align_stats dna(int match, int mismatch, int open, int extend,
                           hay_status want)
{
    hay_align_scoring *s = NULL;
    hay_align_stats st;
    memset(&st, 0, sizeof st);
    CHECK_ST(hay_align_scoring_dna(match, mismatch, open, extend, &s), HAY_OK,
             "dna scoring");
    if (s)
        CHECK_ST(hay_align_stats_get(s, &st), want, "dna stats");
    hay_align_scoring_free(s);
    return st;
}

/* Published rows, in this library's gap convention (BLAST's + extension). */
static void test_published(void)
{
    hay_align_stats st = protein("blosum62", 11, 1);       /* BLAST 10/1 */
    CHECK(st.kind == HAY_ALIGN_STATS_PUBLISHED && st.lambda == 0.243 &&
          st.K == 0.024 && st.H == 0.10 && st.alpha == 2.5 && st.beta == -44,
          "blosum62 11/1: %g %g %s", st.lambda, st.K, st.source);
    st = protein("BLOSUM62", 12, 1);                        /* BLAST 11/1 */
    CHECK(st.lambda == 0.267 && st.K == 0.041, "blosum62 12/1: %g", st.lambda);
    CHECK(strstr(st.source, "BLOSUM62") && strstr(st.source, "11/1"),
          "source names the matrix and BLAST's gap costs: %s", st.source);
    st = protein("pam30", 10, 1);                           /* BLAST 9/1 */
    CHECK(st.lambda == 0.294 && st.K == 0.11, "pam30 10/1: %g", st.lambda);
    st = protein("blosum80", 27, 2);                        /* BLAST 25/2 */
    CHECK(st.lambda == 0.342 && st.K == 0.17, "blosum80 27/2: %g", st.lambda);
    st = protein("blosum45", 18, 3);                        /* BLAST 15/3 */
    CHECK(st.kind == HAY_ALIGN_STATS_COMPUTED &&
          strstr(st.source, "too small"),
          "blosum45 18/3 is not published: %d %s", st.kind, st.source);
    st = protein("blosum62", 100, 50);
    CHECK(st.kind == HAY_ALIGN_STATS_UNGAPPED && st.lambda == 0.3176,
          "blosum62 100/50 is ungapped: %d %g", st.kind, st.lambda);

    /* A matrix is recognised by its scores, not its name. */
    static const char *names[] = { "blosum45", "blosum50", "blosum62",
                                   "blosum80", "blosum90", "pam30", "pam70",
                                   "pam250" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        hay_align_scoring *b = NULL, *s = NULL;
        CHECK_ST(hay_align_scoring_builtin(names[i], 11, 1, &b), HAY_OK,
                 names[i]);
        if (!b)
            continue;
        /* Rebuild it as text under another name. */
        char text[8192];
        size_t n = 0;
        const char *L = hay_align_scoring_letters(b);
        int alpha = hay_align_scoring_alpha(b);
        n += (size_t)snprintf(text + n, sizeof text - n, " ");
        for (int a = 0; a < alpha; a++)
            n += (size_t)snprintf(text + n, sizeof text - n, " %c", L[a]);
        n += (size_t)snprintf(text + n, sizeof text - n, "\n");
        for (int a = 0; a < alpha; a++) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%c", L[a]);
            for (int c = 0; c < alpha; c++)
                n += (size_t)snprintf(
                    text + n, sizeof text - n, " %d",
                    (int)hay_align_scoring_score(b, (uint8_t)a, (uint8_t)c) +
                        (a == 0 && c == 0 && i == 0));
            n += (size_t)snprintf(text + n, sizeof text - n, "\n");
        }
        hay_align_stats st1, st2;
        CHECK_ST(hay_align_stats_get(b, &st1), HAY_OK, names[i]);
        CHECK_ST(hay_align_scoring_parse(text, n, "mine", 11, 1, &s, NULL),
                 HAY_OK, "rebuilt matrix");
        if (s) {
            CHECK_ST(hay_align_stats_get(s, &st2), HAY_OK, "rebuilt stats");
            /* names[0] had A/A changed by one: no longer BLOSUM45. */
            if (i == 0)
                CHECK(st2.kind == HAY_ALIGN_STATS_COMPUTED,
                      "a changed matrix is not recognised");
            else
                CHECK(st2.lambda == st1.lambda && st2.K == st1.K &&
                      st2.kind == st1.kind,
                      "%s read from text is recognised", names[i]);
        }
        hay_align_scoring_free(s);
        hay_align_scoring_free(b);
    }
}

/* The computed fallback reproduces the published ungapped parameters of
 * every standard matrix (Robinson & Robinson background, as BLAST). */
static void test_computed(void)
{
    static const char *names[] = { "blosum45", "blosum50", "blosum62",
                                   "blosum80", "blosum90", "pam30", "pam70",
                                   "pam250" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        hay_align_scoring *s = NULL;
        CHECK_ST(hay_align_scoring_builtin(names[i], 1000, 500, &s), HAY_OK,
                 names[i]);
        if (!s)
            continue;
        hay_align_stats pub, comp;
        CHECK_ST(hay_align_stats_get(s, &pub), HAY_OK, names[i]);
        CHECK_ST(hay_align_stats_ungapped(s, NULL, &comp), HAY_OK, names[i]);
        CHECK(pub.kind == HAY_ALIGN_STATS_UNGAPPED &&
              comp.kind == HAY_ALIGN_STATS_COMPUTED, "kinds");
        CHECK(near(comp.lambda, pub.lambda, 0.001) &&
              near(comp.K, pub.K, 0.01) && near(comp.H, pub.H, 0.005),
              "%s: computed lambda %.4f K %.4f H %.4f, published %.4f %.4f "
              "%.4f", names[i], comp.lambda, comp.K, comp.H, pub.lambda,
              pub.K, pub.H);
        hay_align_scoring_free(s);
    }
    /* DNA 2/-3, uniform background: blastn 2.12 prints 0.634 0.408 0.912
     * as its ungapped values for the same scores. */
    hay_align_stats st = dna(2, -3, 5, 2, HAY_OK);
    CHECK(st.kind == HAY_ALIGN_STATS_COMPUTED && near(st.lambda, 0.634, 0.002) &&
          near(st.K, 0.408, 0.002) && near(st.H, 0.912, 0.002),
          "dna 2/-3 ungapped: %g %g %g", st.lambda, st.K, st.H);
    /* +1/-1 with p = 1/4: lambda = ln 3 exactly. */
    st = dna(1, -1, 100, 100, HAY_OK);
    CHECK(near(st.lambda, log(3.0), 1e-9), "dna 1/-1 lambda %.12f", st.lambda);
    /* Caller's frequencies; bad ones. */
    hay_align_scoring *s = NULL;
    CHECK_ST(hay_align_scoring_dna(1, -1, 5, 2, &s), HAY_OK, "dna");
    double f[5] = { 1, 1, 1, 1, 0 }, bad[5] = { 1, -1, 1, 1, 0 };
    CHECK_ST(hay_align_stats_ungapped(s, f, &st), HAY_OK, "freqs");
    CHECK(near(st.lambda, log(3.0), 1e-9), "same as the default");
    CHECK_ST(hay_align_stats_ungapped(s, bad, &st), HAY_ERR_INVALID, "negative");
    hay_align_scoring_free(s);
}

static void test_dna_tables(void)
{
    hay_align_stats st = dna(2, -3, 7, 2, HAY_OK);          /* BLAST 5/2 */
    CHECK(st.kind == HAY_ALIGN_STATS_PUBLISHED && st.lambda == 0.625 &&
          st.K == 0.41 && st.round_down, "dna 2/-3 7/2: %g", st.lambda);
    /* Odd scores count as the even one below for E-values, not for bit
     * scores (blastn 2.12: raw 595 prints 537 bits and E 3.30e-155). */
    CHECK(hay_align_evalue(&st, 101, 300, 48502, 1) ==
              hay_align_evalue(&st, 100, 300, 48502, 1) &&
          hay_align_bitscore(&st, 101) > hay_align_bitscore(&st, 100),
          "round down");
    CHECK((long)hay_align_bitscore(&st, 595) == 537, "bits of 595: %.2f",
          hay_align_bitscore(&st, 595));
    /* 4/-6 is 2/-3 scaled by 2: lambda and alpha halve, gap costs double. */
    hay_align_stats st2 = dna(4, -6, 14, 4, HAY_OK);
    CHECK(st2.kind == HAY_ALIGN_STATS_PUBLISHED &&
          st2.lambda == 0.625 / 2 && st2.alpha == 0.8 / 2 && st2.K == 0.41,
          "dna 4/-6 14/4: %g %g", st2.lambda, st2.alpha);
    CHECK(near(hay_align_bitscore(&st2, 200), hay_align_bitscore(&st, 100),
               1e-12), "scaled scores, same bits");
    st = dna(1, -2, 3, 2, HAY_OK);                           /* BLAST 1/2 */
    CHECK(st.lambda == 1.30 && st.K == 0.52 && !st.round_down, "dna 1/-2");
    st = dna(1, -2, 100, 50, HAY_OK);        /* above BLAST's (2, 2) */
    CHECK(st.kind == HAY_ALIGN_STATS_COMPUTED && strstr(st.source, "above"),
          "dna 1/-2 100/50: %s", st.source);
    st = dna(2, -3, 5, 2, HAY_OK);                     /* BLAST 3/2: none */
    CHECK(st.kind == HAY_ALIGN_STATS_COMPUTED && strstr(st.source, "3/2"),
          "dna 2/-3 5/2: %s", st.source);
    /* Positive expected score: no statistics. */
    st = dna(5, -1, 5, 2, HAY_ERR_UNSUPPORTED);
    CHECK(st.lambda == 0 && hay_align_bitscore(&st, 10) == 0 &&
          hay_align_evalue(&st, 10, 100, 100, 1) == 0, "zeroed");
}

/* blastp 2.12 (OLD_FSC=1: without Spouge's finite-size correction), the
 * query sp|P01111|RASN_HUMAN (189 aa) against the E. coli K-12 proteome
 * (4,298 sequences, 1,329,980 letters), BLOSUM62 -gapopen 10 -gapextend 1:
 * "Effective search space used: 75053980"; the best hit scores 98 raw,
 * 39.7 bits, E 8.19e-05. */
static void test_blast_numbers(void)
{
    hay_align_stats st = protein("blosum62", 11, 1);
    uint64_t l = 0;
    double space = hay_align_search_space(&st, 189, 1329980, 4298, &l);
    CHECK(space == 75053980.0, "search space %.0f (l = %llu)", space,
          (unsigned long long)l);
    double bits = hay_align_bitscore(&st, 98);
    CHECK(fabs(bits - 39.7) < 0.05, "bits %.3f", bits);
    double e = hay_align_evalue(&st, 98, 189, 1329980, 4298);
    CHECK(near(e, 8.19e-05, 0.005), "evalue %.4g", e);
    CHECK(hay_align_evalue_space(&st, 98, space) == e, "two-step E");
    /* E falls by e^lambda per score unit. */
    CHECK(near(hay_align_evalue(&st, 99, 189, 1329980, 4298) * exp(0.243), e,
               1e-12), "slope");
    /* Default blastp (Spouge's finite-size correction) printed 2.89e-05
     * for that hit, NP_417064.1 of 599 residues. */
    CHECK(st.fsc, "BLOSUM62 11/1 has FSC parameters");
    double f = hay_align_evalue_fsc(&st, 98, 189, 599, 1329980);
    CHECK(near(f, 2.89e-05, 0.002), "fsc evalue %.4g", f);
    CHECK(hay_align_evalue_fsc(&st, 98, 189, 0, 1329980) < 0, "no target");
    hay_align_stats d = dna(2, -3, 7, 2, HAY_OK);
    CHECK(!d.fsc && hay_align_evalue_fsc(&d, 98, 189, 599, 1329980) < 0,
          "no FSC for DNA");
    /* Degenerate sizes: no adjustment where K m n is below max(m, n). */
    space = hay_align_search_space(&st, 5, 5, 1, &l);
    CHECK(l == 0 && space == 25, "tiny: %g %llu", space, (unsigned long long)l);
    CHECK(hay_align_search_space(&st, 0, 100, 1, NULL) == 0, "empty query");
    CHECK(hay_align_search_space(NULL, 10, 100, 1, NULL) == 0, "NULL");
    /* Errors. */
    hay_align_stats x;
    CHECK_ST(hay_align_stats_get(NULL, &x), HAY_ERR_INVALID, "NULL scoring");
    hay_align_scoring *s = NULL;
    CHECK_ST(hay_align_scoring_builtin("blosum62", 11, 1, &s), HAY_OK, "b62");
    CHECK_ST(hay_align_stats_get(s, NULL), HAY_ERR_INVALID, "NULL out");
    CHECK_ST(hay_align_stats_ungapped(s, NULL, NULL), HAY_ERR_INVALID, "NULL");
    hay_align_scoring_free(s);
}

/* Scores drawn from the Gumbel law the fit assumes, lambda 0.3, K 0.05,
 * a query of 300 against targets of 100..1099 residues, plus a few
 * related sequences scoring far above chance that must be set aside. */
static void test_fit(void)
{
    enum { N = 4000, RELATED = 20 };
    static int32_t scores[N + RELATED];
    static uint64_t lens[N + RELATED];
    uint64_t x = 12345;
    const double lambda = 0.3, K = 0.05, m = 300;
    for (size_t i = 0; i < N + RELATED; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
        lens[i] = 100 + (x >> 40) % 1000;
        double sc = (log(K * m * (double)lens[i]) - log(-log(u))) / lambda;
        scores[i] = i < N ? (int32_t)floor(sc + 0.5) : 1000;
    }
    hay_align_stats st;
    CHECK_ST(hay_align_stats_fit(scores, lens, N + RELATED, 300, &st), HAY_OK,
             "fit");
    CHECK(st.kind == HAY_ALIGN_STATS_FITTED && near(st.lambda, lambda, 0.05) &&
          near(st.K, K, 0.3), "fitted lambda %.4f K %.4f", st.lambda, st.K);
    /* The related 20, and the few chance scores (about N / 1000) whose
     * pair-wise E-value is below 1e-3 too. */
    const char *aside = strstr(st.source, "scores, ");
    unsigned long n_aside = 0;
    CHECK(aside && sscanf(aside, "scores, %lu set aside", &n_aside) == 1 &&
          n_aside >= RELATED && n_aside <= RELATED + 15,
          "related set aside: %s", st.source);
    /* No length adjustment: E = K m n e^(-lambda S) over the whole base. */
    uint64_t l = 1;
    double space = hay_align_search_space(&st, 300, 1000000, N, &l);
    CHECK(l == 0 && space == 300.0 * 1000000.0, "fitted space %g", space);
    CHECK_ST(hay_align_stats_fit(scores, lens, HAY_ALIGN_FIT_MIN - 1, 300, &st),
             HAY_ERR_UNSUPPORTED, "too few");
    int32_t same[HAY_ALIGN_FIT_MIN];
    for (size_t i = 0; i < HAY_ALIGN_FIT_MIN; i++)
        same[i] = 7;
    CHECK_ST(hay_align_stats_fit(same, lens, HAY_ALIGN_FIT_MIN, 300, &st),
             HAY_ERR_UNSUPPORTED, "all equal");
    CHECK_ST(hay_align_stats_fit(NULL, lens, N, 300, &st), HAY_ERR_INVALID,
             "NULL");
    CHECK_ST(hay_align_stats_fit(scores, lens, N, 0, &st), HAY_ERR_INVALID,
             "empty query");
}

int main(void)
{
    test_fit();
    test_published();
    test_computed();
    test_dna_tables();
    test_blast_numbers();
    return tu_finish();
}
