/*
 * traceback_par.c - the linear-space traceback on several threads
 * (src/align/sw_hirschberg.c) against the serial one (sw_global.c): the
 * same ops, op for op, for 2, 3, 4 and 7 threads.
 *
 *   1. hay_sw_global_ops with a budget of 1 byte (Myers-Miller down to one
 *      row): lengths around the tile sides (1, tile - 1, tile, tile + 1,
 *      several tiles) and very unequal (1 x 100,000, 100,000 x 1,
 *      2 x 50,000), every scoring of the engine tests and large gap
 *      penalties, related and random pairs, tiles of 8, 13 and 64 and the
 *      automatic side, split thresholds from 1 cell (every split on the
 *      threads) to past the whole rectangle (all serial).
 *   2. hay_align_pair on the wavefront (wavefront_cells, traceback_cells
 *      small, traceback_bytes 1): score, start, end and CIGAR those of one
 *      thread and of the scalar variant, for 1, 2, 3, 4 and 7 threads (and
 *      65,536, clamped); hay_align_batch of the one pair on 3 threads.
 *   3. Real pairs (../shared/data/bio; skipped without it): the human and
 *      orangutan mitochondrial genomes (DNA, and with gap costs 40/10;
 *      1 MiB direction matrices), the protein queries against Swiss-Prot
 *      records end to end (20,000 residues each; the default 64 MiB),
 *      through hay_align_pair as in 2.
 * Usage: test_align_traceback_par [DATA_DIR]
 */
#include "align_util.h"
#include "../../src/align/align_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int thread_counts[] = { 2, 3, 4, 7 };
#define NTHREADS (sizeof thread_counts / sizeof thread_counts[0])

/* The serial ops of q x t, then the parallel ones for every thread count,
 * split threshold and the given tile side: equal. */
static void check_ops(const hay_align_scoring *s, const uint8_t *q, size_t m,
                      const uint8_t *t, size_t n, size_t tile,
                      const char *what)
{
    char *ref = malloc(m + n + 1), *got = malloc(m + n + 1);
    size_t rlen = 0, glen = 0;
    int64_t rsc = 0, gsc = 0;
    int rlin = 0, glin = 0;
    CHECK_ST(hay_sw_global_ops(s, q, m, t, n, NULL, 1, ref, &rlen, &rsc, &rlin),
             HAY_OK, what);
    const uint64_t splits[] = { 1, 200, (uint64_t)m * n / 3 + 1,
                                (uint64_t)m * n + 1 };
    for (size_t k = 0; k < NTHREADS; k++)
        for (size_t c = 0; c < sizeof splits / sizeof splits[0]; c++) {
            sw_global_par par = { thread_counts[k], splits[c], tile };
            memset(got, '?', m + n + 1);
            hay_status st = hay_sw_global_ops(s, q, m, t, n, &par, 1, got,
                                              &glen, &gsc, &glin);
            CHECK(st == HAY_OK && glen == rlen && gsc == rsc &&
                  glin == rlin && !memcmp(got, ref, rlen),
                  "%s: m=%zu n=%zu tile=%zu threads=%d split=%llu: status "
                  "%d, %zu ops of score %lld (linear %d), the serial %zu of "
                  "%lld (linear %d)%s", what, m, n, tile, thread_counts[k],
                  (unsigned long long)splits[c], (int)st, glen,
                  (long long)gsc, glin, rlen, (long long)rsc, rlin,
                  st == HAY_OK && glen == rlen && memcmp(got, ref, rlen)
                      ? ", different ops" : "");
        }
    free(ref);
    free(got);
}

static void part_ops(tu_rng *rng)
{
    static const size_t tiles[] = { 8, 13, 64 };
    const size_t cap = 100001;
    uint8_t *q = malloc(cap), *t = malloc(cap);
    char what[160];
    /* the engine tests' scorings, and gaps dearer than any mismatch run */
    const size_t nbig = 2;
    for (size_t c = 0; c < au_ncases + nbig; c++) {
        hay_align_scoring *s;
        if (c == au_ncases)
            hay_align_scoring_dna(1, -1, 40, 10, &s);
        else if (c == au_ncases + 1)
            hay_align_scoring_builtin("blosum62", 30, 15, &s);
        else
            s = au_make(&au_cases[c]);
        int alpha = hay_align_scoring_alpha(s);
        snprintf(what, sizeof what, "scoring %zu (%s)", c,
                 c == au_ncases ? "dna 1/-1 40/10"
                 : c > au_ncases ? "blosum62 30/15"
                 : au_cases[c].matrix ? au_cases[c].matrix : "dna");
        for (size_t ti = 0; ti < 3; ti++) {
            size_t T = tiles[ti];
            const size_t lens[] = { 1, T - 1, T, T + 1, 3 * T + 5, 7 * T };
            for (size_t a = 0; a < 6; a++)
                for (size_t b = 0; b < 6; b++) {
                    if ((a + b + c + ti) % 4 != 0)
                        continue;
                    au_make_pair(rng, alpha, q, lens[a], t, lens[b],
                                 tu_below(rng, 4) != 0);
                    check_ops(s, q, lens[a], t, lens[b], T, what);
                }
            /* tall and wide: long gaps along the first row and column
             * (every tile edge and corner of the first row and column
             * blocks decides where they go) */
            au_make_pair(rng, alpha, q, 20 * T + 3, t, 2 * T + 1, c % 2);
            check_ops(s, q, 20 * T + 3, t, 2 * T + 1, T, what);
            au_make_pair(rng, alpha, q, 2 * T + 1, t, 20 * T + 3, c % 2);
            check_ops(s, q, 2 * T + 1, t, 20 * T + 3, T, what);
        }
        /* random sizes, the automatic tiles */
        size_t m = (size_t)tu_range(rng, 300, 1500);
        size_t n = (size_t)tu_range(rng, 300, 1500);
        au_make_pair(rng, alpha, q, m, t, n, 1);
        check_ops(s, q, m, t, n, 0, what);
        hay_align_scoring_free(s);
    }
    /* Very unequal: one row, one column, two rows. */
    hay_align_scoring *s = au_make(&au_cases[11]);
    au_make_pair(rng, 4, q, 1, t, cap - 1, 0);
    check_ops(s, q, 1, t, cap - 1, 64, "1 x 100k");
    au_make_pair(rng, 4, q, cap - 1, t, 1, 0);
    check_ops(s, q, cap - 1, t, 1, 64, "100k x 1");
    au_make_pair(rng, 4, q, 2, t, 50000, 0);
    check_ops(s, q, 2, t, 50000, 0, "2 x 50k");
    au_make_pair(rng, 4, q, 6000, t, 9, 1);
    check_ops(s, q, 6000, t, 9, 8, "6000 x 9");
    hay_align_scoring_free(s);
    free(q);
    free(t);
}

/* hay_align_pair on 1, 2, 3, 4 and 7 threads: the one-thread result (and
 * the scalar variant's, when given) in every field. */
static void check_pair(const hay_align_scoring *s, const uint8_t *q, size_t m,
                       const uint8_t *t, size_t n, const char *params,
                       uint64_t tb_bytes, const hay_align_result *scalar,
                       const char *what)
{
    au_scoring as;
    au_scoring_from(s, &as);
    hay_align_options o;
    hay_align_options_init(&o);
    o.device_params = params;
    o.traceback_bytes = tb_bytes;
    o.threads = 1;
    hay_align_result ref, r;
    CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &ref), HAY_OK, what);
    CHECK(!(ref.flags & HAY_ALIGN_WAVEFRONT), "%s: one thread on the "
          "wavefront", what);
    if (scalar)
        CHECK(ref.score == scalar->score && ref.q_start == scalar->q_start &&
              ref.t_start == scalar->t_start && ref.cigar && scalar->cigar &&
              !strcmp(ref.cigar, scalar->cigar),
              "%s: one thread differs from the scalar variant", what);
    for (size_t k = 0; k <= NTHREADS; k++) {
        o.threads = k < NTHREADS ? thread_counts[k] : 1;
        if (k == NTHREADS)
            o.threads = 65536;          /* clamped (haystack.h) */
        CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &r), HAY_OK, what);
        int same = r.score == ref.score && r.q_start == ref.q_start &&
                   r.q_end == ref.q_end && r.t_start == ref.t_start &&
                   r.t_end == ref.t_end && r.cigar && ref.cigar &&
                   !strcmp(r.cigar, ref.cigar) && r.length == ref.length &&
                   r.matches == ref.matches && r.gaps == ref.gaps &&
                   r.gap_opens == ref.gap_opens &&
                   (r.flags & HAY_ALIGN_LINEAR) == (ref.flags & HAY_ALIGN_LINEAR);
        CHECK(same && (r.flags & HAY_ALIGN_WAVEFRONT),
              "%s: %d threads: score %d [%llu,%llu]x[%llu,%llu] wavefront %d, "
              "one thread %d [%llu,%llu]x[%llu,%llu]%s", what, o.threads,
              (int)r.score, (unsigned long long)r.q_start,
              (unsigned long long)r.q_end, (unsigned long long)r.t_start,
              (unsigned long long)r.t_end, !!(r.flags & HAY_ALIGN_WAVEFRONT),
              (int)ref.score, (unsigned long long)ref.q_start,
              (unsigned long long)ref.q_end, (unsigned long long)ref.t_start,
              (unsigned long long)ref.t_end,
              same ? "" : ", different alignments");
        au_check_result(&as, q, m, t, n, &r, ref.score, ref.q_end, ref.t_end,
                        what);
        hay_align_result_clear(&r);
    }
    /* A batch of one long pair runs it on all the threads too. */
    hay_align_seq qs = { q, m }, ts = { t, n };
    o.threads = 3;
    CHECK_ST(hay_align_batch(s, &qs, 1, &ts, 1, &o, &r), HAY_OK, what);
    CHECK((r.flags & HAY_ALIGN_WAVEFRONT) && r.cigar && ref.cigar &&
          !strcmp(r.cigar, ref.cigar) && r.q_start == ref.q_start &&
          r.t_start == ref.t_start, "%s: a batch of one pair on 3 threads "
          "differs from one thread", what);
    hay_align_result_clear(&r);
    hay_align_result_clear(&ref);
}

static void part_pair(tu_rng *rng)
{
    size_t m = 1500, n = 1300;
    uint8_t *q = malloc(m), *t = malloc(n);
    for (size_t c = 0; c < au_ncases; c += 5) {
        hay_align_scoring *s = au_make(&au_cases[c]);
        au_make_pair(rng, hay_align_scoring_alpha(s), q, m, t, n, 1);
        hay_align_options o;
        hay_align_options_init(&o);
        o.variant = "scalar";
        o.traceback_bytes = 1;
        hay_align_result sc;
        CHECK_ST(hay_align_pair(s, q, m, t, n, &o, &sc), HAY_OK, "scalar");
        CHECK(sc.score > 50 && (sc.flags & HAY_ALIGN_LINEAR),
              "case %zu: the related pair scores %d (linear %d)", c,
              (int)sc.score, !!(sc.flags & HAY_ALIGN_LINEAR));
        check_pair(s, q, m, t, n, "wavefront_cells=1000,wavefront_tile=64,"
                   "traceback_cells=5000", 1, &sc, "pair, tiles of 64");
        check_pair(s, q, m, t, n, "wavefront_cells=1000,traceback_cells=1",
                   1, &sc, "pair, every split on the threads");
        hay_align_result_clear(&sc);
        hay_align_scoring_free(s);
    }
    free(q);
    free(t);
}

static void real_pair(const hay_align_scoring *s, const char *dir,
                      const char *a, const char *b, const char *params,
                      uint64_t tb_bytes)
{
    char what[256];
    uint8_t *q, *t;
    size_t m, n;
    if (!au_read_pair(s, dir, a, b, 20000, &q, &m, &t, &n))
        return;
    snprintf(what, sizeof what, "%s x %s (%s)", a, b, params);
    check_pair(s, q, m, t, n, params, tb_bytes, NULL, what);
    printf("%s: %zu x %zu\n", what, m, n);
    free(q);
    free(t);
}

int main(int argc, char **argv)
{
    tu_rng rng = { 0x7b9a4c11ULL };
    part_ops(&rng);
    part_pair(&rng);
    const char *dir = argc > 1 ? argv[1] : "../shared/data";
    if (au_have_pairs(dir)) {
        hay_align_scoring *dna, *dear, *prot;
        hay_align_scoring_dna(2, -3, 5, 2, &dna);
        hay_align_scoring_dna(2, -3, 40, 10, &dear);
        hay_align_scoring_builtin("blosum62", 11, 1, &prot);
        const char *mt = "wavefront_cells=1M,traceback_cells=1M";
        real_pair(dna, dir, "dna-pairs/MT-human.fa", "dna-pairs/MT-orang.fa",
                  mt, (uint64_t)1 << 20);
        real_pair(dear, dir, "dna-pairs/MT-human.fa", "dna-pairs/MT-orang.fa",
                  mt, (uint64_t)1 << 20);
        /* the defaults but wavefront_cells: 64 MiB matrices */
        real_pair(prot, dir, "protein/queries_24-5478aa.fasta",
                  "protein/sprot196.fasta", "wavefront_cells=1M", 0);
        hay_align_scoring_free(dna);
        hay_align_scoring_free(dear);
        hay_align_scoring_free(prot);
    }
    return tu_finish();
}
