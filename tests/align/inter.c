/*
 * inter.c - the inter-sequence kernel (src/align/sw_inter*.c) and its use
 * by the database search (db_search.c, cpu key db_kernel).  Every instance
 * the CPU runs (AVX2; AVX-512BW) is checked.
 *
 *   1. Batches of 1, 15, 16, 17, 31, 32, 33, 63 and 64 targets (some empty, some of one
 *      residue, some related to the query), every scoring of the engine
 *      tests (au_cases): each 8- and 16-bit pass and the 8 -> 16 cascade
 *      against the scalar reference (sw_scalar.c), score by score; a lane
 *      reports saturation exactly when the reference reaches its width's
 *      limit.
 *   2. Saturation: self-similar and low-complexity targets scoring just
 *      below, at and past the 8- and 16-bit limits (and 127, 255, 32767),
 *      alone and among ordinary targets; scorings too wide for 8-bit lanes
 *      (16 only) and for both (every target to 32 bits).
 *   3. The search with db_kernel=inter against db_kernel=striped: the same
 *      hits (target, score, end and start cells, CIGAR, flags) in the same
 *      order, the same 32-bit redo count, at 1 and 2 threads, top 1, 50 and
 *      all, with and without traceback, on the saturation targets and on
 *      the bio sets; the default's choice (inter on the E. coli proteome,
 *      striped where every target is kept).
 *   4. Every query x target score of the bio sets (queries x sprot196, and
 *      with --full the queries x the E. coli proteome) against the scalar
 *      reference with the kernel forced (skipped without ../shared/data).
 *
 * Usage: test_align_inter [DATA_DIR] [--full]
 */
#include "align_util.h"
#include "../../src/align/sw_inter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The instances this CPU runs (main fills it). */
static int isas[2];
static size_t nisas;

static const char *isa_name(int isa)
{
    return isa == HAY_SW_INTER_AVX512 ? "avx512" : "avx2";
}

static int32_t ref_score(const hay_align_scoring *s, const uint8_t *q,
                         size_t m, const uint8_t *t, size_t n)
{
    sw_end e;
    if (n == 0)
        return 0;
    CHECK_ST(hay_sw_scalar_score(s, q, m, t, n, &e), HAY_OK, "scalar");
    return e.score;
}

/* A lane's result against the reference at a width's limit. */
static int lane_ok(int32_t got, int32_t want, int32_t limit)
{
    return want >= limit ? got == HAY_SW_INTER_SATURATED : got == want;
}

/* count (1 .. 32) targets: each width's passes and the cascade. */
static void check_batch(const hay_align_scoring *s, const uint8_t *q, size_t m,
                        const uint8_t *const *t, const size_t *n, size_t count,
                        const char *what)
{
    int32_t ref[HAY_SW_INTER_MAX_LANES], got[HAY_SW_INTER_MAX_LANES];
    for (size_t k = 0; k < count; k++)
        ref[k] = ref_score(s, q, m, t[k], n[k]);
    sw_inter_work work = { NULL, 0 };
    for (size_t ii = 0; ii < nisas; ii++) {
        sw_inter x;
        hay_sw_inter_prepare(s, isas[ii], &x);
        const char *isa = isa_name(isas[ii]);
        for (int bits = 8; bits <= 16; bits += 8) {
            if (!(bits == 8 ? x.usable8 : x.usable16))
                continue;
            size_t lanes = (size_t)(bits == 8 ? x.lanes8 : x.lanes16);
            int32_t limit = bits == 8 ? x.limit8 : x.limit16;
            /* the thread's scratch and a pass's own, in turn */
            for (size_t at = 0; at < count; at += lanes) {
                size_t c = count - at < lanes ? count - at : lanes;
                CHECK_ST(hay_sw_inter_pass(&x, bits, q, m, t + at, n + at, c,
                                           got + at, at % 2 ? NULL : &work),
                         HAY_OK, what);
            }
            for (size_t k = 0; k < count; k++)
                CHECK(lane_ok(got[k], ref[k], limit),
                      "%s: %s %d bits, %zu targets, lane %zu (m=%zu n=%zu): "
                      "got %d, want %d (limit %d)", what, isa, bits, count, k,
                      m, n[k], (int)got[k], (int)ref[k], (int)limit);
        }
        for (size_t at = 0; at < count; at += (size_t)x.lanes8) {
            size_t c = count - at < (size_t)x.lanes8 ? count - at
                                                     : (size_t)x.lanes8;
            CHECK_ST(hay_sw_inter_scores(&x, q, m, t + at, n + at, c,
                                         got + at, &work), HAY_OK, what);
        }
        for (size_t k = 0; k < count; k++)
            CHECK(x.usable16 ? lane_ok(got[k], ref[k], x.limit16)
                             : got[k] == HAY_SW_INTER_SATURATED,
                  "%s: %s cascade, %zu targets, lane %zu (m=%zu n=%zu): got "
                  "%d, want %d", what, isa, count, k, m, n[k], (int)got[k],
                  (int)ref[k]);
    }
    hay_sw_inter_work_free(&work);
}

/* ---- 1. batches ------------------------------------------------------- */
/* t: random, or (rel) q with point changes and gaps of up to 10. */
static void related(tu_rng *rng, int alpha, const uint8_t *q, size_t m,
                    uint8_t *t, size_t n, int rel)
{
    size_t i = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t x = tu_below(rng, 100);
        if (rel && x < 4)
            i += (size_t)tu_range(rng, 1, 10);
        if (rel && x >= 8 && i < m)
            t[j] = x < 20 ? (uint8_t)tu_below(rng, (uint64_t)alpha) : q[i++];
        else
            t[j] = (uint8_t)tu_below(rng, (uint64_t)alpha);
    }
}

static void part_batches(tu_rng *rng)
{
    static const size_t counts[] = { 1, 15, 16, 17, 31, 32, 33, 63, 64 };
    enum { MAXLEN = 180 };
    uint8_t *buf = malloc(HAY_SW_INTER_MAX_LANES * MAXLEN), q[MAXLEN];
    for (size_t c = 0; c < au_ncases; c++) {
        hay_align_scoring *s = au_make(&au_cases[c]);
        int alpha = hay_align_scoring_alpha(s);
        char what[96];
        snprintf(what, sizeof what, "case %zu (%s %d/%d)", c,
                 au_cases[c].matrix ? au_cases[c].matrix : "dna",
                 (int)au_cases[c].open, (int)au_cases[c].extend);
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            for (int rep = 0; rep < 3; rep++) {
                size_t m = rep == 0 && ci == 0 ? 1 : tu_range(rng, 1, MAXLEN);
                for (size_t i = 0; i < m; i++)
                    q[i] = (uint8_t)tu_below(rng, (uint64_t)alpha);
                const uint8_t *t[HAY_SW_INTER_MAX_LANES];
                size_t n[HAY_SW_INTER_MAX_LANES];
                for (size_t k = 0; k < counts[ci]; k++) {
                    uint8_t *tk = buf + k * MAXLEN;
                    /* every fifth empty, every seventh one residue */
                    n[k] = k % 5 == 4 ? 0 : k % 7 == 6 ? 1
                                                       : tu_range(rng, 1, MAXLEN);
                    related(rng, alpha, q, m, tk, n[k], (int)(k % 2));
                    t[k] = tk;
                }
                check_batch(s, q, m, t, n, counts[ci], what);
            }
        }
        hay_align_scoring_free(s);
    }
    free(buf);
}

/* ---- 2. saturation ---------------------------------------------------- */
/* x of `len` residues: a repeat of `unit` (its codes), one residue in
 * `every` (0: none) changed to code `other`. */
static void repeat(uint8_t *x, size_t len, const uint8_t *unit, size_t ul,
                   size_t every, uint8_t other)
{
    for (size_t i = 0; i < len; i++)
        x[i] = every && i % every == every - 1 ? other : unit[i % ul];
}

/* Targets of the query's own repeat whose lengths put their scores at
 * `score` - 2 .. score + 2 for a self score of `per` a residue, with
 * ordinary random targets between them. */
static void saturating_batch(tu_rng *rng, const hay_align_scoring *s,
                             const uint8_t *unit, size_t ul, int32_t per,
                             int32_t around, const char *what)
{
    size_t want = (size_t)(around / per) + 3;
    size_t m = want + 40;
    uint8_t *q = malloc(m), *buf = malloc(HAY_SW_INTER_MAX_LANES * (want + 8));
    repeat(q, m, unit, ul, 0, 0);
    const uint8_t *t[HAY_SW_INTER_MAX_LANES];
    size_t n[HAY_SW_INTER_MAX_LANES];
    int alpha = hay_align_scoring_alpha(s);
    size_t count = 0;
    for (size_t len = want - 6; len <= want && count + 2 <= 32;
         len++) {
        uint8_t *a = buf + count * (want + 8);
        repeat(a, len, unit, ul, 0, 0);
        t[count] = a;
        n[count++] = len;
        uint8_t *b = buf + count * (want + 8);
        for (size_t j = 0; j < len; j++)
            b[j] = (uint8_t)tu_below(rng, (uint64_t)alpha);
        t[count] = b;
        n[count++] = len;
    }
    check_batch(s, q, m, t, n, count, what);
    /* one alone, in a batch of one */
    check_batch(s, q, m, t + count - 2, n + count - 2, 1, what);
    free(q);
    free(buf);
}

static void part_saturation(tu_rng *rng)
{
    hay_align_scoring *dna, *prot;
    CHECK_ST(hay_align_scoring_dna(5, -4, 10, 1, &dna), HAY_OK, "dna");
    CHECK_ST(hay_align_scoring_builtin("blosum62", 11, 1, &prot), HAY_OK,
             "blosum62");
    sw_inter xd, xp;
    hay_sw_inter_prepare(dna, HAY_SW_INTER_AVX2, &xd);
    hay_sw_inter_prepare(prot, HAY_SW_INTER_AVX2, &xp);
    const uint8_t a = 0;           /* A: 5 against itself */
    uint8_t w;                     /* W: 11 against itself */
    hay_align_encode(prot, "W", 1, &w, NULL);
    const int32_t marks[] = { 127, 255, 32767 };
    for (size_t i = 0; i < 3; i++) {
        saturating_batch(rng, dna, &a, 1, 5, marks[i], "poly-A at a mark");
        saturating_batch(rng, prot, &w, 1, 11, marks[i], "poly-W at a mark");
    }
    saturating_batch(rng, dna, &a, 1, 5, xd.limit8, "poly-A at the 8-bit limit");
    saturating_batch(rng, dna, &a, 1, 5, xd.limit16, "poly-A at the 16-bit limit");
    saturating_batch(rng, prot, &w, 1, 11, xp.limit8, "poly-W at the 8-bit limit");
    saturating_batch(rng, prot, &w, 1, 11, xp.limit16,
                     "poly-W at the 16-bit limit");
    /* low complexity: WCWH repeats, one residue in 9 changed */
    uint8_t unit[4];
    hay_align_encode(prot, "WCWH", 4, unit, NULL);
    enum { L = 3200 };
    uint8_t *q = malloc(L), *buf = malloc(16 * L);
    repeat(q, L, unit, 4, 0, 0);
    const uint8_t *t[16];
    size_t n[16];
    for (size_t k = 0; k < 16; k++) {
        n[k] = L - 150 * k;
        repeat(buf + k * L, n[k], unit, 4, k % 3 ? 9 : 0, unit[3]);
        t[k] = buf + k * L;
    }
    check_batch(prot, q, L, t, n, 16, "WCWH repeats");
    free(q);
    free(buf);
    hay_align_scoring_free(dna);
    hay_align_scoring_free(prot);
}

static hay_align_db_results *search(const hay_align_db *db,
                                    const hay_align_scoring *s,
                                    const hay_align_seq *qs, size_t nq,
                                    const char *params, size_t k, int threads,
                                    int score_only);

/* Scorings too wide for 8-bit lanes (16 only), and for both (every target
 * to 32 bits; the search keeps the striped engines even when asked). */
static void part_wide_scorings(tu_rng *rng)
{
    static const int32_t match[] = { 100, 200 }, mismatch[] = { -90, -150 };
    enum { M = 90, N = 120, C = 20 };
    uint8_t q[M], buf[C * N];
    const uint8_t *t[C];
    size_t n[C];
    for (int w = 0; w < 2; w++) {
        hay_align_scoring *s;
        CHECK_ST(hay_align_scoring_dna(match[w], mismatch[w], 150, 20, &s),
                 HAY_OK, "wide dna");
        sw_inter x;
        hay_sw_inter_prepare(s, HAY_SW_INTER_NONE, &x);
        CHECK(!x.usable8 && x.usable16 == !w, "match %d: 8 bits %d, 16 bits %d",
              (int)match[w], x.usable8, x.usable16);
        for (size_t i = 0; i < M; i++)
            q[i] = (uint8_t)tu_below(rng, 4);
        for (size_t k = 0; k < C; k++) {
            n[k] = tu_range(rng, 1, N);
            related(rng, 4, q, M, buf + k * N, n[k], (int)(k % 2));
            t[k] = buf + k * N;
        }
        check_batch(s, q, M, t, n, C, w ? "match 200" : "match 100");
        /* the search asked for the kernel: only where 16-bit lanes fit */
        char fasta[C * (N + 16)];
        size_t len = 0;
        for (size_t k = 0; k < C; k++) {
            len += (size_t)snprintf(fasta + len, sizeof fasta - len, ">t%zu\n",
                                    k);
            for (size_t j = 0; j < n[k]; j++)
                fasta[len++] = "ACGT"[t[k][j]];
            fasta[len++] = '\n';
        }
        hay_align_db *db = NULL;
        char msg[256];
        CHECK_ST(hay_align_db_from_fasta(s, fasta, len, &db, msg, sizeof msg),
                 HAY_OK, "wide db");
        hay_align_seq qs = { q, M };
        hay_align_db_results *r = db ? search(db, s, &qs, 1, "db_kernel=inter",
                                              5, 1, 1) : NULL;
        if (r)
            CHECK(!strncmp(r->engine, "inter_", 6) == !w,
                  "match %d, db_kernel=inter: %s", (int)match[w], r->engine);
        hay_align_db_results_free(r);
        if (db && nisas == 1 && !w) {
            /* an instance named that the CPU cannot run, as a variant's */
            hay_align_db_options o;
            hay_align_db_options_init(&o);
            o.align.backend = HAY_BACKEND_CPU;
            o.align.device_params = "db_kernel=inter_avx512";
            r = NULL;
            CHECK_ST(hay_align_db_search(db, s, &qs, 1, &o, &r),
                     HAY_ERR_UNSUPPORTED, "db_kernel=inter_avx512 without it");
            hay_align_db_results_free(r);
        }
        hay_align_db_free(db);
        hay_align_scoring_free(s);
    }
}

/* ---- 3. the search, one kernel against the other ---------------------- */
/* Top 1, 50 and (all) every target, score only, and with traceback (the
 * same pass after either kernel) top 1 and 50 where `traceback`. */
static hay_align_db_results *search(const hay_align_db *db,
                                    const hay_align_scoring *s,
                                    const hay_align_seq *qs, size_t nq,
                                    const char *params, size_t k, int threads,
                                    int score_only)
{
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.top_k = k;
    o.align.threads = threads;
    o.align.score_only = score_only;
    o.align.device_params = params;
    o.align.backend = HAY_BACKEND_CPU;
    hay_align_db_results *r = NULL;
    CHECK_ST(hay_align_db_search(db, s, qs, nq, &o, &r), HAY_OK, params);
    return r;
}

static int same_hit(const hay_align_db_hit *a, const hay_align_db_hit *b)
{
    return a->target == b->target && a->r.score == b->r.score &&
           a->r.q_end == b->r.q_end && a->r.t_end == b->r.t_end &&
           a->r.q_start == b->r.q_start && a->r.t_start == b->r.t_start &&
           a->r.flags == b->r.flags &&
           !a->r.cigar == !b->r.cigar &&
           (!a->r.cigar || !strcmp(a->r.cigar, b->r.cigar));
}

/* One search's hits against the striped one's. */
static size_t same_hits(const hay_align_db_results *a,
                        const hay_align_db_results *b, size_t nq,
                        const char *what, const char *kernel, size_t k,
                        int threads, int so, size_t *hits)
{
    size_t bad = 0;
    CHECK(!strncmp(a->engine, "inter_", 6), "%s: %s ran %s", what, kernel,
          a->engine);
    CHECK(strncmp(b->engine, "inter_", 6), "%s: db_kernel=striped ran %s",
          what, b->engine);
    CHECK(a->rescored32 == b->rescored32,
          "%s: %s, top %zu, %d threads: %llu redone in 32 bits, striped %llu",
          what, kernel, k, threads, (unsigned long long)a->rescored32,
          (unsigned long long)b->rescored32);
    for (size_t j = 0; j < nq; j++) {
        const hay_align_db_hits *x = &a->queries[j];
        const hay_align_db_hits *y = &b->queries[j];
        int ok = x->nhits == y->nhits;
        for (size_t h = 0; ok && h < x->nhits; h++)
            ok = same_hit(&x->hits[h], &y->hits[h]);
        *hits += x->nhits;
        bad += !ok;
        CHECK(ok, "%s: %s, query %zu, top %zu, %d threads, score_only %d: "
              "the kernels' hits differ", what, kernel, j, k, threads, so);
    }
    return bad;
}

/* Every instance (db_kernel=inter_<isa>) against db_kernel=striped. */
static void compare_kernels(const hay_align_db *db, const hay_align_scoring *s,
                            const hay_align_seq *qs, size_t nq,
                            int all, int traceback, const char *extra,
                            const char *what)
{
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    const size_t ks[] = { 1, 50, (size_t)info.sequences };
    size_t bad = 0, hits = 0;
    double t0 = tu_now();
    const char *sep = extra ? "," : "", *more = extra ? extra : "";
    for (size_t ki = 0; ki < (all ? 3u : 2u); ki++)
        for (int threads = 1; threads <= 2; threads++)
            for (int so = 1; so >= (ki == 2 || !traceback ? 1 : 0); so--) {
                char pb[128];
                snprintf(pb, sizeof pb, "db_kernel=striped%s%s", sep, more);
                hay_align_db_results *b = search(db, s, qs, nq, pb, ks[ki],
                                                 threads, so);
                for (size_t ii = 0; b && ii < nisas; ii++) {
                    char pa[128];
                    snprintf(pa, sizeof pa, "db_kernel=inter_%s%s%s",
                             isa_name(isas[ii]), sep, more);
                    hay_align_db_results *a = search(db, s, qs, nq, pa,
                                                     ks[ki], threads, so);
                    if (a)
                        bad += same_hits(a, b, nq, what, pa, ks[ki], threads,
                                         so, &hits);
                    hay_align_db_results_free(a);
                }
                hay_align_db_results_free(b);
            }
    printf("%s: %zu hits compared, %zu differ (%.1f s)\n", what, hits, bad,
           tu_now() - t0);
}

/* The saturation targets of test_align_db's and more, as a database. */
static void part_search_saturation(void)
{
    hay_align_scoring *s;
    hay_align_scoring_builtin("blosum62", 11, 1, &s);
    enum { N = 4000 };
    size_t cap = 40 * (N + 32);
    char *fasta = malloc(cap), *a = malloc(N + 1);
    size_t w = 0;
    for (int i = 0; i < N; i++)
        a[i] = "WCWH"[i % 4];
    a[N] = 0;
    /* 36 targets: prefixes of the repeat (scores from a few to past
     * 32767: 16-bit batches mixing saturated and exact lanes) */
    for (int k = 0; k < 36; k++) {
        int len = k < 12 ? 2 + 3 * k : k < 24 ? 2900 + 20 * (k - 12)
                                              : 3600 + 30 * (k - 24);
        w += (size_t)snprintf(fasta + w, cap - w, ">t%d\n%.*s\n", k, len, a);
    }
    hay_align_db *db = NULL;
    char msg[256];
    CHECK_ST(hay_align_db_from_fasta(s, fasta, w, &db, msg, sizeof msg), HAY_OK,
             "saturation db");
    uint8_t *q = malloc(N);
    hay_align_encode(s, a, N, q, NULL);
    hay_align_seq qs = { q, N };
    if (db) {
        compare_kernels(db, s, &qs, 1, 1, 1, NULL, "repeats past 16 bits");
        /* the hits' pass may put a long pair on the wavefront (a flag):
         * the end cells of the inter kernel's hits must not */
        compare_kernels(db, s, &qs, 1, 1, 1, "wavefront_cells=1000",
                        "repeats past 16 bits, wavefront_cells=1000");
    }
    hay_align_db_free(db);
    free(q);
    free(a);
    free(fasta);
    hay_align_scoring_free(s);
}

/* ---- 4. the bio sets -------------------------------------------------- */
/* Every query x target through the kernel (forced, in batches of 32
 * neighbours in length as the search makes them) against the scalar
 * reference. */
static void every_pair(const hay_align_scoring *s, const hay_align_db *db,
                       const hay_align_seq *qs, size_t nq, const char *what)
{
    sw_inter xs[2];
    for (size_t ii = 0; ii < nisas; ii++)
        hay_sw_inter_prepare(s, isas[ii], &xs[ii]);
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    size_t nt = (size_t)info.sequences, bad = 0, pairs = 0, sat = 0;
    double t0 = tu_now();
    /* units of 32 neighbours (every instance takes 32) */
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad, pairs, sat)
    for (size_t u = 0; u < nq * ((nt + 31) / 32); u++) {
        size_t j = u % nq, lo = u / nq * 32;
        size_t c = nt - lo < 32 ? nt - lo : 32;
        const uint8_t *t[32];
        size_t n[32];
        int32_t got[2][32];
        for (size_t k = 0; k < c; k++)
            hay_align_db_seq(db, (uint32_t)(lo + k), NULL, &t[k], &n[k]);
        int ok = 1;
        for (size_t ii = 0; ii < nisas; ii++)
            ok &= hay_sw_inter_scores(&xs[ii], qs[j].codes, qs[j].len, t, n, c,
                                      got[ii], NULL) == HAY_OK;
        if (!ok) {
            bad += c;
            continue;
        }
        for (size_t k = 0; k < c; k++) {
            int32_t want = ref_score(s, qs[j].codes, qs[j].len, t[k], n[k]);
            sat += got[0][k] == HAY_SW_INTER_SATURATED;
            for (size_t ii = 0; ii < nisas; ii++)
                bad += !lane_ok(got[ii][k], want, xs[ii].limit16);
            pairs++;
        }
    }
    CHECK(bad == 0, "%s: %zu disagreements with the scalar reference in %zu "
          "pairs x %zu instances", what, bad, pairs, nisas);
    printf("%s: %zu pairs x %zu instances, %zu for 32 bits, %.1f s\n", what,
           pairs, nisas, sat, tu_now() - t0);
}

static int part_bio(const char *dir, int full)
{
    hay_align_scoring *s;
    hay_align_scoring_builtin("blosum62", 11, 1, &s);
    au_bio b;
    if (!au_bio_open(s, dir, &b)) {
        hay_align_scoring_free(s);
        return 0;
    }
    hay_align_db *sprot = b.sprot, *ecoli = b.ecoli;
    const hay_align_seq *qs = b.qs;
    size_t nq = b.nq;
    every_pair(s, sprot, qs, nq, "queries x sprot196");
    /* the short half x E. coli: 4,298 targets, 1.3 M residues */
    every_pair(s, ecoli, qs, full ? nq : nq / 3,
               full ? "queries x E. coli proteome"
                    : "the shortest third of the queries x E. coli proteome");
    compare_kernels(sprot, s, qs, nq, 1, 1, NULL, "queries x sprot196");
    compare_kernels(ecoli, s, qs, nq * 2 / 3, 0, 0, NULL,
                    "the shortest two thirds of the queries x E. coli proteome");
    /* the default: inter where it pays (many targets), else striped */
    hay_align_db_results *r = search(ecoli, s, qs, 1, NULL, 50, 2, 1);
    if (r)
        CHECK(!strncmp(r->engine, "inter_", 6), "E. coli, default: %s",
              r->engine);
    hay_align_db_results_free(r);
    /* every target kept: each would cost a striped pass for its end cell */
    r = search(sprot, s, qs, 1, NULL, 196, 2, 1);
    if (r)
        CHECK(strncmp(r->engine, "inter_", 6), "sprot196, top 196, default: %s",
              r->engine);
    hay_align_db_results_free(r);
    au_bio_close(&b);
    hay_align_scoring_free(s);
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = "../shared/data";
    int full = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            full = 1;
        else
            dir = argv[i];
    }
    for (int isa = HAY_SW_INTER_AVX2; isa <= HAY_SW_INTER_AVX512; isa++)
        if (hay_sw_inter_isa_supported(isa))
            isas[nisas++] = isa;
    printf("instances: %s%s\n", nisas ? "avx2" : "none",
           nisas > 1 ? ", avx512" : "");
    if (!nisas) {
        printf("SKIP: no AVX2, the database search keeps the striped "
               "engines\n");
        return TU_SKIP;
    }
    tu_rng rng = { 0x1e7e5eedULL };
    double t0 = tu_now();
    part_batches(&rng);
    printf("batches: %.1f s\n", tu_now() - t0);
    t0 = tu_now();
    part_saturation(&rng);
    printf("saturation: %.1f s\n", tu_now() - t0);
    part_wide_scorings(&rng);
    part_search_saturation();
    int ran = part_bio(dir, full);
    if (!ran && !tu_finish())
        return TU_SKIP;
    return tu_finish();
}
