/*
 * engines.c - every CPU variant against the oracle (full matrix, small
 * pairs) and against the scalar reference (pairs up to 10,000 residues),
 * over every built-in matrix, DNA scorings and several gap settings; the
 * 16-bit saturation fallback; traceback with the full direction matrix and
 * in linear space; batches on several threads.
 */
#include "align_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A random sequence, and a relative of it (substitutions and indels). */
static void random_seq(tu_rng *r, uint8_t *x, size_t n, int alpha)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)tu_below(r, (uint64_t)alpha);
}

static size_t mutate(tu_rng *r, const uint8_t *a, size_t n, uint8_t *b,
                     size_t cap, int alpha, unsigned pct)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        unsigned x = (unsigned)tu_below(r, 100);
        if (x < pct / 3)
            continue;                                    /* deletion */
        if (x < 2 * pct / 3 && k < cap)
            b[k++] = (uint8_t)tu_below(r, (uint64_t)alpha);  /* insertion */
        if (k < cap)
            b[k++] = x < pct ? (uint8_t)tu_below(r, (uint64_t)alpha) : a[i];
    }
    if (k == 0)
        b[k++] = a[0];
    return k;
}

static const char *variant_list[16];
static size_t nvariants;

static void make_pair(tu_rng *r, int alpha, size_t m, size_t n, uint8_t *q,
                      uint8_t *t)
{
    random_seq(r, q, m, alpha);
    if (tu_below(r, 3) == 0) {
        random_seq(r, t, n, alpha);
    } else {
        /* a related region in the middle of a random target */
        size_t k = mutate(r, q, m, t, n, alpha, (unsigned)tu_range(r, 5, 40));
        size_t pad = n - k;
        memmove(t + pad / 2, t, k);
        random_seq(r, t, pad / 2, alpha);
        random_seq(r, t + pad / 2 + k, n - pad / 2 - k, alpha);
    }
}

/* Score passes of every variant on one pair against the given truth. */
static void check_scores(const hay_align_scoring *s, const uint8_t *q,
                         size_t m, const uint8_t *t, size_t n, int64_t want,
                         uint64_t qe, uint64_t te, const char *what)
{
    hay_align_options o;
    hay_align_options_init(&o);
    o.score_only = 1;
    for (size_t v = 0; v < nvariants; v++) {
        hay_align_result r;
        o.variant = variant_list[v];
        hay_status st = hay_align_pair(s, q, m, t, n, &o, &r);
        CHECK(st == HAY_OK, "%s %s: %s", what, variant_list[v],
              hay_strerror(st));
        CHECK(r.score == want && r.q_end == qe && r.t_end == te,
              "%s %s: m=%zu n=%zu got %d (%llu,%llu) want %lld (%llu,%llu)",
              what, variant_list[v], m, n, (int)r.score,
              (unsigned long long)r.q_end, (unsigned long long)r.t_end,
              (long long)want, (unsigned long long)qe, (unsigned long long)te);
        hay_align_result_clear(&r);
    }
}

static void check_traceback(const hay_align_scoring *s, const au_scoring *as,
                            const uint8_t *q, size_t m, const uint8_t *t,
                            size_t n, int64_t want, uint64_t qe, uint64_t te,
                            const char *what)
{
    hay_align_options o;
    hay_align_options_init(&o);
    hay_align_result full, lin;
    hay_status st = hay_align_pair(s, q, m, t, n, &o, &full);
    CHECK_ST(st, HAY_OK, what);
    au_check_result(as, q, m, t, n, &full, want, qe, te, what);
    o.traceback_bytes = 1;          /* every split down to single rows */
    o.variant = "scalar";
    st = hay_align_pair(s, q, m, t, n, &o, &lin);
    CHECK_ST(st, HAY_OK, what);
    au_check_result(as, q, m, t, n, &lin, want, qe, te, what);
    CHECK(full.q_start == lin.q_start && full.t_start == lin.t_start,
          "%s: starts differ between variants", what);
    if (want > 0 && m * n > 64)
        CHECK(!(full.flags & HAY_ALIGN_LINEAR) || (lin.flags & HAY_ALIGN_LINEAR),
              "%s: flags", what);
    hay_align_result_clear(&full);
    hay_align_result_clear(&lin);
}

int main(void)
{
    tu_rng rng = { 0x5eed5eedULL };
    const char *name;
    for (size_t i = 0; hay_align_variant_name(i, &name) == HAY_OK; i++)
        if (hay_align_variant_check(name, NULL) == HAY_OK)
            variant_list[nvariants++] = name;
        else
            printf("variant %s: not supported here, not tested\n", name);
    printf("variants:");
    for (size_t v = 0; v < nvariants; v++)
        printf(" %s", variant_list[v]);
    printf("\n");

    const size_t cap = 10000;
    uint8_t *q = malloc(cap), *t = malloc(cap);
    char what[128];
    tu_fail_note = what;

    /* 1. Small pairs: the oracle, every variant, traceback both ways. */
    size_t rounds = tu_scaled(40, 4);
    for (size_t c = 0; c < au_ncases; c++) {
        hay_align_scoring *s = au_make(&au_cases[c]);
        au_scoring as;
        au_scoring_from(s, &as);
        for (size_t k = 0; k < rounds; k++) {
            size_t m = (size_t)tu_range(&rng, 1, k % 4 == 0 ? 8 : 300);
            size_t n = (size_t)tu_range(&rng, 1, k % 5 == 0 ? 8 : 300);
            make_pair(&rng, as.alpha, m, n, q, t);
            uint64_t qe, te;
            int64_t want = au_oracle(&as, q, m, t, n, &qe, &te);
            snprintf(what, sizeof what, "case %zu (%s %d/%d) round %zu", c,
                     au_cases[c].matrix ? au_cases[c].matrix : "dna",
                     (int)au_cases[c].open, (int)au_cases[c].extend, k);
            check_scores(s, q, m, t, n, want, qe, te, what);
            check_traceback(s, &as, q, m, t, n, want, qe, te, what);
        }
        hay_align_scoring_free(s);
    }

    /* 2. Longer pairs, lengths sampled up to 10,000: scalar is the truth. */
    size_t long_rounds = tu_scaled(12, 2);
    for (size_t k = 0; k < long_rounds; k++) {
        const au_case *c = &au_cases[k % au_ncases];
        hay_align_scoring *s = au_make(c);
        au_scoring as;
        au_scoring_from(s, &as);
        size_t m = (size_t)tu_range(&rng, 1, k % 3 ? 3000 : cap);
        size_t n = (size_t)tu_range(&rng, 1, k % 3 ? 3000 : cap);
        if (m * n > 12000000)
            n = 12000000 / m;
        make_pair(&rng, as.alpha, m, n, q, t);
        hay_align_options o;
        hay_align_options_init(&o);
        o.variant = "scalar";
        o.score_only = 1;
        hay_align_result ref;
        hay_align_pair(s, q, m, t, n, &o, &ref);
        snprintf(what, sizeof what, "long %zu (%zu x %zu)", k, m, n);
        check_scores(s, q, m, t, n, ref.score, ref.q_end, ref.t_end, what);
        hay_align_result r;
        hay_align_options_init(&o);
        o.traceback_bytes = k % 2 ? 4096 : 0;
        CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, what);
        au_check_result(&as, q, m, t, n, &r, ref.score, ref.q_end, ref.t_end,
                        what);
        hay_align_result_clear(&r);
        hay_align_scoring_free(s);
    }

    /* 3. Scores past 16 bits: the 16-bit variants must recompute. */
    {
        hay_align_scoring *s;
        hay_align_scoring_dna(10, -9, 12, 3, &s);
        au_scoring as;
        au_scoring_from(s, &as);
        size_t lens[] = { 3270, 3277, 3300, 5000 };
        for (size_t k = 0; k < 4; k++) {
            size_t m = lens[k];
            random_seq(&rng, q, m, 4);
            memcpy(t, q, m);
            t[m / 2] = (uint8_t)((t[m / 2] + 1) % 4);   /* one mismatch */
            hay_align_options o;
            hay_align_options_init(&o);
            o.variant = "scalar";
            hay_align_result ref, r;
            hay_align_pair(s, q, m, t, m, &o, &ref);
            snprintf(what, sizeof what, "saturation m=%zu", m);
            CHECK(ref.score > 30000, "%s: score %d", what, (int)ref.score);
            check_scores(s, q, m, t, m, ref.score, ref.q_end, ref.t_end, what);
            o.variant = "striped16";
            CHECK_ST(hay_align_pair(s, q, m, t, m, &o, &r), HAY_OK, what);
            CHECK(ref.score < 32767 - 10 || (r.flags & HAY_ALIGN_RESCORED32),
                  "%s: not flagged as recomputed", what);
            au_check_result(&as, q, m, t, m, &r, ref.score, ref.q_end,
                            ref.t_end, what);
            hay_align_result_clear(&r);
            hay_align_result_clear(&ref);
        }
        hay_align_scoring_free(s);
    }

    /* 4. Batches on 3 threads equal pair by pair. */
    {
        hay_align_scoring *s = au_make(&au_cases[0]);
        enum { NQ = 5, NT = 7 };
        uint8_t *seqs[NQ + NT];
        hay_align_seq qs[NQ], ts[NT];
        for (int i = 0; i < NQ + NT; i++) {
            size_t len = (size_t)tu_range(&rng, 1, 400);
            seqs[i] = malloc(len);
            random_seq(&rng, seqs[i], len, 20);
            if (i < NQ)
                qs[i] = (hay_align_seq){ seqs[i], len };
            else
                ts[i - NQ] = (hay_align_seq){ seqs[i], len };
        }
        memcpy(seqs[NQ], seqs[0], qs[0].len < ts[0].len ? qs[0].len : ts[0].len);
        hay_align_result res[NQ * NT];
        hay_align_options o;
        hay_align_options_init(&o);
        o.threads = 3;
        CHECK_ST(hay_align_batch(s, qs, NQ, ts, NT, &o, res), HAY_OK, "batch");
        for (int i = 0; i < NQ; i++)
            for (int j = 0; j < NT; j++) {
                hay_align_result r;
                hay_align_pair(s, qs[i].codes, qs[i].len, ts[j].codes,
                               ts[j].len, NULL, &r);
                const hay_align_result *b = &res[i * NT + j];
                CHECK(r.score == b->score && r.q_start == b->q_start &&
                      r.t_start == b->t_start && r.q_end == b->q_end &&
                      (r.cigar == NULL) == (b->cigar == NULL) &&
                      (!r.cigar || !strcmp(r.cigar, b->cigar)),
                      "batch pair %d,%d differs", i, j);
                hay_align_result_clear(&r);
                hay_align_result_clear(&res[i * NT + j]);
            }
        /* An empty target in a batch: an error, and nothing left behind. */
        ts[3].len = 0;
        CHECK_ST(hay_align_batch(s, qs, NQ, ts, NT, &o, res), HAY_ERR_INVALID,
                 "batch with an empty target");
        for (int i = 0; i < NQ * NT; i++)
            CHECK(res[i].cigar == NULL, "batch error left a CIGAR");
        for (int i = 0; i < NQ + NT; i++)
            free(seqs[i]);
        hay_align_scoring_free(s);
    }
    free(q);
    free(t);
    tu_fail_note = NULL;
    return tu_finish();
}
