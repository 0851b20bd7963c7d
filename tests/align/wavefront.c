/*
 * wavefront.c - the long-pair engine (src/align/sw_wavefront.c) against the
 * scalar reference (sw_scalar.c): score and end cell, equal on every pair.
 *
 *   1. Lengths around the tile boundaries (1, tile - 1, tile, tile + 1,
 *      several tiles, very unequal), small tiles, every scoring of the
 *      engine tests (au_cases), AVX2 tiles in 16 and 32 bits and scalar
 *      rows, threads 1, 2, 3 and 7; ties; scores past 16 bits.
 *   2. hay_align_pair: above wavefront_cells with more than one thread the
 *      pair runs there (HAY_ALIGN_WAVEFRONT) and its alignment equals the
 *      scalar variant's; below it, or on one thread, it does not; bad keys
 *      are HAY_ERR_INVALID.
 *   3. Real pairs (../shared/data/bio; skipped without it): the human and
 *      orangutan mitochondrial genomes; the protein queries end to end
 *      against Swiss-Prot records end to end (20,000 residues each).
 * Usage: test_align_wavefront [DATA_DIR]
 */
#include "align_util.h"
#include "../../src/align/align_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine at every thread count and both kernels against the scalar
 * reference. */
static void check_engine(const hay_align_scoring *s, const uint8_t *q,
                         size_t m, const uint8_t *t, size_t n, size_t tile,
                         const char *what)
{
    static const int thread_counts[] = { 1, 2, 3, 7 };
    sw_end ref, got;
    CHECK_ST(hay_sw_scalar_score(s, q, m, t, n, &ref), HAY_OK, what);
    static const int bits[] = { 0, 16, 32 };
    for (size_t b = 0; b < 3; b++)
        for (size_t k = 0; k < 4; k++) {
            int th = thread_counts[k];
            hay_status st = hay_sw_wavefront_score(s, q, m, t, n, th, tile,
                                                   bits[b], &got);
            /* 16 bits: saturated only near 2^15 */
            if (st == HAY_OK && bits[b] == 16 && got.saturated) {
                CHECK(ref.score > 32767 - 64, "%s: m=%zu n=%zu tile=%zu "
                      "threads=%d: 16 bits saturated at score %d", what, m, n,
                      tile, th, (int)ref.score);
                continue;
            }
            CHECK(st == HAY_OK && got.score == ref.score &&
                  got.q_end == ref.q_end && got.t_end == ref.t_end &&
                  !got.saturated,
                  "%s: m=%zu n=%zu tile=%zu threads=%d %s: got %d (%llu,%llu) "
                  "want %d (%llu,%llu)", what, m, n, tile, th,
                  bits[b] ? (bits[b] == 16 ? "avx2 16" : "avx2 32") : "scalar", (int)got.score,
                  (unsigned long long)got.q_end, (unsigned long long)got.t_end,
                  (int)ref.score, (unsigned long long)ref.q_end,
                  (unsigned long long)ref.t_end);
        }
}

static void part_boundaries(tu_rng *rng)
{
    static const size_t tiles[] = { 8, 13, 64 };
    char what[160];
    uint8_t *q = malloc(4096), *t = malloc(4096);
    for (size_t c = 0; c < au_ncases; c++) {
        hay_align_scoring *s = au_make(&au_cases[c]);
        int alpha = hay_align_scoring_alpha(s);
        for (size_t ti = 0; ti < 3; ti++) {
            size_t T = tiles[ti];
            const size_t lens[] = { 1, T - 1, T, T + 1, 3 * T + 5, 7 * T };
            for (size_t a = 0; a < 6; a++)
                for (size_t b = 0; b < 6; b++) {
                    size_t m = lens[a], n = lens[b];
                    if (m == 0 || n == 0 || (a + b + c + ti) % 3 != 0)
                        continue;
                    au_make_pair(rng, alpha, q, m, t, n, tu_below(rng, 4) != 0);
                    snprintf(what, sizeof what, "case %zu (%s %d/%d)", c,
                             au_cases[c].matrix ? au_cases[c].matrix : "dna",
                             (int)au_cases[c].open, (int)au_cases[c].extend);
                    check_engine(s, q, m, t, n, T, what);
                }
            /* very unequal: one row or column against many tiles */
            size_t longer = 40 * T + 3;
            au_make_pair(rng, alpha, q, 2, t, longer, 1);
            check_engine(s, q, 2, t, longer, T, "2 x many");
            au_make_pair(rng, alpha, q, longer, t, 3, 1);
            check_engine(s, q, longer, t, 3, T, "many x 3");
            au_make_pair(rng, alpha, q, 9 * T + 1, t, T / 2 + 1, 1);
            check_engine(s, q, 9 * T + 1, t, T / 2 + 1, T, "tall");
        }
        /* random sizes with the automatic tiles (rows and columns of
         * different sides past 1,536 residues on one thread) */
        for (int k = 0; k < 3; k++) {
            size_t m = (size_t)tu_range(rng, 1, k ? 1500 : 4096);
            size_t n = (size_t)tu_range(rng, 1, k ? 1500 : 4096);
            au_make_pair(rng, alpha, q, m, t, n, tu_below(rng, 4) != 0);
            check_engine(s, q, m, t, n, 0, "auto tile");
        }
        hay_align_scoring_free(s);
    }
    free(q);
    free(t);
}

/* Equal scores everywhere: the tie rule across tiles and lanes. */
static void part_ties(void)
{
    hay_align_scoring *s;
    hay_align_scoring_dna(1, -1, 2, 1, &s);
    uint8_t q[300], t[300];
    for (size_t i = 0; i < sizeof q; i++)
        q[i] = (uint8_t)(i % 4 == 3 ? 0 : 1);
    for (size_t j = 0; j < sizeof t; j++)
        t[j] = (uint8_t)(j % 5 == 0 ? 1 : 2);
    check_engine(s, q, sizeof q, t, sizeof t, 16, "ties (isolated matches)");
    memset(t, 1, sizeof t);
    check_engine(s, q, sizeof q, t, sizeof t, 16, "ties (periodic)");
    hay_align_scoring_free(s);
}

/* Scores past 16 bits: the 16-bit tiles say so, the 32-bit ones and
 * hay_align_pair (flags WAVEFRONT and RESCORED32) are exact. */
static void part_saturation(tu_rng *rng)
{
    hay_align_scoring *s;
    hay_align_scoring_dna(10, -9, 12, 3, &s);
    size_t m = 4000;
    uint8_t *q = malloc(m), *t = malloc(m);
    au_make_pair(rng, 4, q, m, t, m, 0);
    memcpy(t, q, m);
    t[m / 2] = (uint8_t)((t[m / 2] + 1) % 4);
    sw_end ref, got;
    hay_sw_scalar_score(s, q, m, t, m, &ref);
    CHECK(ref.score > 32767, "saturation: score %d", (int)ref.score);
    CHECK_ST(hay_sw_wavefront_score(s, q, m, t, m, 3, 256, 16, &got), HAY_OK,
             "16 bits");
    CHECK(got.saturated, "16 bits: a score of %d not flagged", (int)ref.score);
    check_engine(s, q, m, t, m, 256, "saturation");
    hay_align_options o;
    hay_align_options_init(&o);
    o.threads = 2;
    o.score_only = 1;
    o.device_params = "wavefront_cells=1M";
    hay_align_result r;
    CHECK_ST(hay_align_pair(s, q, m, t, m, &o, &r), HAY_OK, "saturation pair");
    CHECK(r.score == ref.score && r.q_end == ref.q_end && r.t_end == ref.t_end &&
          (r.flags & HAY_ALIGN_WAVEFRONT) && (r.flags & HAY_ALIGN_RESCORED32),
          "saturation pair: score %d flags %u", (int)r.score, r.flags);
    hay_align_result_clear(&r);
    hay_align_scoring_free(s);
    free(q);
    free(t);
}

static void part_api(tu_rng *rng)
{
    hay_align_scoring *s = au_make(&au_cases[0]);
    size_t m = 900, n = 1100;
    uint8_t *q = malloc(m), *t = malloc(n);
    au_make_pair(rng, 20, q, m, t, n, 1);
    au_scoring as;
    au_scoring_from(s, &as);
    hay_align_options o;
    hay_align_options_init(&o);
    o.variant = "scalar";
    hay_align_result ref, r;
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &ref), HAY_OK, "scalar");
    CHECK(ref.score > 100, "the related pair scores %d", (int)ref.score);
    hay_align_options_init(&o);
    o.threads = 3;
    o.device_params = "wavefront_cells=1000, wavefront_tile=64";
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, "wavefront");
    CHECK(r.flags & HAY_ALIGN_WAVEFRONT, "the pair did not use the wavefront");
    au_check_result(&as, q, m, t, n, &r, ref.score, ref.q_end, ref.t_end,
                    "wavefront pair");
    CHECK(r.q_start == ref.q_start && r.t_start == ref.t_start &&
          r.cigar && ref.cigar && !strcmp(r.cigar, ref.cigar),
          "wavefront pair: alignment differs from the scalar variant's");
    hay_align_result_clear(&r);
    /* In a batch of one pair too, with the traceback off. */
    hay_align_seq qs = { q, m }, ts = { t, n };
    o.score_only = 1;
    CHECK_ST(hay_align_batch(s, &qs, 1, &ts, 1, &o, &r), HAY_OK, "batch");
    CHECK((r.flags & HAY_ALIGN_WAVEFRONT) && r.score == ref.score &&
          r.q_end == ref.q_end && r.t_end == ref.t_end,
          "batch of one pair: wavefront %d, score %d", !!(r.flags &
          HAY_ALIGN_WAVEFRONT), (int)r.score);
    hay_align_result_clear(&r);
    /* A wild thread count is clamped (haystack.h), not handed to OpenMP:
     * 65,536 threads in libgomp fail or crash. */
    o.threads = 65536;
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, "65536 threads");
    CHECK(r.score == ref.score && r.q_end == ref.q_end && r.t_end == ref.t_end,
          "65536 threads: score %d", (int)r.score);
    hay_align_result_clear(&r);
    o.threads = 3;
    o.score_only = 0;
    /* Below the threshold, or on one thread: the striped engine. */
    o.device_params = "wavefront_cells=1000000";
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, "below");
    CHECK(!(r.flags & HAY_ALIGN_WAVEFRONT) && r.score == ref.score,
          "below the threshold");
    hay_align_result_clear(&r);
    o.device_params = "wavefront_cells=1000";
    o.threads = 1;
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, "one thread");
    CHECK(!(r.flags & HAY_ALIGN_WAVEFRONT), "one thread used the wavefront");
    hay_align_result_clear(&r);
    /* A forced variant is kept. */
    o.threads = 2;
    o.variant = "striped32";
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, "forced");
    CHECK(!(r.flags & HAY_ALIGN_WAVEFRONT), "a forced variant was replaced");
    hay_align_result_clear(&r);
    o.variant = NULL;
    /* A side shorter than two of the smallest tiles (a read against a
     * genome): no wavefront, however many cells. */
    o.threads = 3;
    CHECK_ST(hay_align_pair(s, q, HAY_SW_WAVEFRONT_MIN_SIDE - 1, t, n, &o, &r),
             HAY_OK, "thin");
    CHECK(!(r.flags & HAY_ALIGN_WAVEFRONT), "a thin pair used the wavefront");
    hay_align_result_clear(&r);
    /* Batches: fewer long pairs than threads run on the wavefront, as many
     * as the threads or more run one a thread. */
    {
        hay_align_seq qs2[3] = { { q, m }, { q, 100 }, { q + 10, m - 10 } };
        hay_align_result rs[3];
        o.score_only = 1;
        CHECK_ST(hay_align_batch(s, qs2, 3, &ts, 1, &o, rs), HAY_OK, "batch 3");
        CHECK((rs[0].flags & HAY_ALIGN_WAVEFRONT) &&
              !(rs[1].flags & HAY_ALIGN_WAVEFRONT) &&
              (rs[2].flags & HAY_ALIGN_WAVEFRONT) && rs[0].score == ref.score,
              "batch, 2 long pairs on 3 threads: flags %u %u %u", rs[0].flags,
              rs[1].flags, rs[2].flags);
        o.threads = 2;
        CHECK_ST(hay_align_batch(s, qs2, 3, &ts, 1, &o, rs), HAY_OK, "batch 2");
        CHECK(!(rs[0].flags & HAY_ALIGN_WAVEFRONT) &&
              !(rs[2].flags & HAY_ALIGN_WAVEFRONT) && rs[0].score == ref.score,
              "batch, 2 long pairs on 2 threads: flags %u %u", rs[0].flags,
              rs[2].flags);
        o.score_only = 0;
    }
    /* Bad keys and values. */
    static const char *const bad[] = {
        "wavefront_cells=0", "wavefront_tile=7", "wavefront_tile=x",
        "wavefront=1", "wavefront_cells=1,wavefront_cells=2", "tile=64",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.device_params = bad[i];
        CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_ERR_INVALID,
                 bad[i]);
        CHECK(r.cigar == NULL, "%s: a CIGAR left behind", bad[i]);
    }
    hay_align_result_clear(&ref);
    hay_align_scoring_free(s);
    free(q);
    free(t);
}

static void real_pair(const hay_align_scoring *s, const char *dir,
                      const char *a, const char *b, size_t tile)
{
    uint8_t *q, *t;
    size_t m, n;
    if (au_read_pair(s, dir, a, b, 20000, &q, &m, &t, &n)) {
        char what[256];
        snprintf(what, sizeof what, "%s x %s", a, b);
        sw_end ref, got;
        CHECK_ST(hay_sw_scalar_score(s, q, m, t, n, &ref), HAY_OK, what);
        static const int th[] = { 2, 3 };
        for (int k = 0; k < 4; k++) {
            int bits = k < 2 ? 16 : 32;
            CHECK_ST(hay_sw_wavefront_score(s, q, m, t, n, th[k % 2], tile,
                                            bits, &got), HAY_OK, what);
            CHECK(got.score == ref.score && got.q_end == ref.q_end &&
                  got.t_end == ref.t_end && !got.saturated, "%s, %d threads, "
                  "%d bits: got %d (%llu,%llu) want %d (%llu,%llu)", what,
                  th[k % 2], bits, (int)got.score,
                  (unsigned long long)got.q_end, (unsigned long long)got.t_end,
                  (int)ref.score, (unsigned long long)ref.q_end,
                  (unsigned long long)ref.t_end);
        }
        printf("%s: %zu x %zu, score %d\n", what, m, n, (int)ref.score);
    }
    free(q);
    free(t);
}

int main(int argc, char **argv)
{
    tu_rng rng = { 0x3a7e5eedULL };
    printf("AVX2 tiles: %s\n", hay_sw_wavefront_simd() ? "yes" : "no (the "
           "scalar rows only)");
    part_boundaries(&rng);
    part_ties();
    part_saturation(&rng);
    part_api(&rng);
    const char *dir = argc > 1 ? argv[1] : "../shared/data";
    if (au_have_pairs(dir)) {
        hay_align_scoring *dna, *prot;
        hay_align_scoring_dna(2, -3, 5, 2, &dna);
        hay_align_scoring_builtin("blosum62", 11, 1, &prot);
        real_pair(dna, dir, "dna-pairs/MT-human.fa", "dna-pairs/MT-orang.fa",
                  1024);
        real_pair(prot, dir, "protein/queries_24-5478aa.fasta",
                  "protein/sprot196.fasta", 128);
        hay_align_scoring_free(dna);
        hay_align_scoring_free(prot);
    }
    return tu_finish();
}
