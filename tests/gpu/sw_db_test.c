/*
 * sw_db_test.c - the GPU database search (src/align/db_device.h,
 * src/cuda/sw_db*.cu) against a scalar Gotoh reference written here: every
 * score of every query x target pair, and each query's top-k hits against
 * a full sort of the reference scores (score desc, target index asc, score
 * >= max(min_score, 1)).  Random protein and DNA databases with lengths
 * 0..3000 including the boundaries of the kernels' shapes (4-residue words,
 * 16/32/64/128-row passes), targets that are mutated copies of the queries,
 * queries of 0..2561 residues (512/513: where the wide groups of 32 x 32
 * rows start on a small database, 1024/1025, 2048/2049: their passes);
 * scorings that run the 16-bit kernel (BLOSUM62, DNA), that saturate 16
 * bits (match 100: identical and low-complexity pairs, scores just below
 * and above the rescoring threshold), that need 32 bits throughout (scaled
 * BLOSUM62) and bits=32 forced; small batch and scratch budgets that force
 * several batches and launch segments; many short targets (large
 * launches, the IMAD-pair kernel, target pairs back to back); bad
 * arguments.  Exits 77 (skipped) with no GPU.
 */
#include "testutil.h"
#include "align/db_device.h"
#include "sw_blosum62.h"
#include "sw_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gotoh, score only (sw_ref.h). */
static int32_t ref_sw(const uint8_t *q, size_t m, const uint8_t *t, size_t n, const int32_t *mat,
                      int alpha, int go, int ge, int32_t *H, int32_t *F)
{
    return sw_ref_gotoh(q, m, t, n, mat, alpha, go, ge, H, F, NULL, NULL);
}

typedef struct db {
    uint8_t *codes;
    uint64_t *offset;
    size_t n;
} db;

typedef struct qset {
    uint8_t **q;
    size_t *len;
    size_t n;
} qset;

/* Residue drawn from a small alphabet slice to make low-complexity runs. */
static void fill_random(tu_rng *r, uint8_t *p, size_t n, int alpha, int lowc)
{
    int k = lowc ? 2 : alpha;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)tu_below(r, (uint64_t)k);
}

static const size_t bound_lens[] = {0,   1,   2,   3,   4,    5,    7,    8,    15,   16,  17,
                                    31,  32,  33,  63,  64,   65,   127,  128,  129,  255, 256,
                                    257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 3000};
/* The last, empty: its scores are 0 (no pass runs). */
static const size_t qbound_lens[] = {1,    2,    15,   16,   17,   31,   32,   33,  63,
                                     64,   65,   127,  128,  129,  255,  256,  257, 384,
                                     385,  512,  513,  1024, 1025, 2000, 2048, 2049, 2561,
                                     0};

/* Queries: the boundary lengths and random ones (1..2000, mostly short). */
static void make_queries(tu_rng *r, qset *qs, size_t nrand, int alpha, int lowc)
{
    size_t nb = sizeof qbound_lens / sizeof qbound_lens[0];
    qs->n = nb + nrand;
    qs->q = malloc(qs->n * sizeof *qs->q);
    qs->len = malloc(qs->n * sizeof *qs->len);
    for (size_t j = 0; j < qs->n; j++) {
        size_t m = j < nb ? qbound_lens[j]
                          : (tu_below(r, 4) ? tu_range(r, 1, 400) : tu_range(r, 1, 2000));
        qs->len[j] = m;
        qs->q[j] = malloc(m + 1);
        fill_random(r, qs->q[j], m, alpha, lowc && (j & 1));
    }
}

/* Targets: boundary lengths, random lengths, and mutated copies (pieces)
 * of the queries so that scores are high and ties appear. */
static void make_db(tu_rng *r, db *d, size_t nrand, const qset *qs, int alpha, int lowc)
{
    size_t nb = sizeof bound_lens / sizeof bound_lens[0];
    size_t n = nb + nrand + qs->n + 4;
    size_t *lens = malloc(n * sizeof *lens);
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++) {
        if (k < nb)
            lens[k] = bound_lens[k];
        else if (k < nb + nrand)
            lens[k] = tu_below(r, 5) ? tu_range(r, 1, 500) : tu_range(r, 1, 3000);
        else if (k < nb + nrand + qs->n)
            lens[k] = qs->len[k - nb - nrand];
        else
            lens[k] = qs->len[0];   /* exact duplicates of query 0: ties */
        total += lens[k];
    }
    d->n = n;
    d->offset = malloc((n + 1) * sizeof *d->offset);
    d->codes = malloc(total + 1);
    d->offset[0] = 0;
    for (size_t k = 0; k < n; k++) {
        uint8_t *p = d->codes + d->offset[k];
        if (k >= nb + nrand) {
            const uint8_t *src = qs->q[k < nb + nrand + qs->n ? k - nb - nrand : 0];
            memcpy(p, src, lens[k]);
            if (k < nb + nrand + qs->n)
                for (size_t i = 0; i < lens[k]; i++)
                    if (tu_below(r, 10) == 0)
                        p[i] = (uint8_t)tu_below(r, (uint64_t)alpha);
        } else {
            fill_random(r, p, lens[k], alpha, lowc && (k % 3 == 0));
        }
        d->offset[k + 1] = d->offset[k] + lens[k];
    }
    free(lens);
}

static void free_db(db *d)
{
    free(d->codes);
    free(d->offset);
}

static void free_qs(qset *qs)
{
    for (size_t j = 0; j < qs->n; j++)
        free(qs->q[j]);
    free(qs->q);
    free(qs->len);
}

/* Every reference score, query-major. */
static int32_t *ref_all(const db *d, const qset *qs, const hay_swdb_scoring *sc)
{
    int32_t *out = malloc(qs->n * d->n * sizeof *out);
    size_t maxn = 0;
    for (size_t k = 0; k < d->n; k++)
        if (d->offset[k + 1] - d->offset[k] > maxn)
            maxn = d->offset[k + 1] - d->offset[k];
#pragma omp parallel
    {
        int32_t *H = malloc((maxn + 1) * sizeof *H), *F = malloc((maxn + 1) * sizeof *F);
#pragma omp for schedule(dynamic, 1)
        for (long x = 0; x < (long)(qs->n * d->n); x++) {
            size_t j = (size_t)x / d->n, k = (size_t)x % d->n;
            out[x] = ref_sw(qs->q[j], qs->len[j], d->codes + d->offset[k],
                            d->offset[k + 1] - d->offset[k], sc->matrix, sc->alpha,
                            sc->gap_open, sc->gap_extend, H, F);
        }
        free(H);
        free(F);
    }
    return out;
}

static const int32_t *cmp_scores;

static int cmp_hit(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (cmp_scores[x] != cmp_scores[y])
        return cmp_scores[x] > cmp_scores[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* One database x query set x scoring through the GPU, all checks. */
static void run_case(const char *name, const db *d, const qset *qs, const hay_swdb_scoring *sc,
                     const char *params, const int32_t *ref)
{
    hay_swdb_targets tg = {d->codes, d->offset, d->n};
    hay_swdb_gpu *g = NULL;
    hay_swdb_stats stt;
    int st = hay_cuda_swdb_create(&tg, sc, -1, params, &g);
    if (!CHECK(st == 0, "%s: create: %d", name, st))
        return;
    int32_t *got = malloc(qs->n * d->n * sizeof *got);
    for (size_t x = 0; x < qs->n * d->n; x++)
        got[x] = -77;
    st = hay_cuda_swdb_scores(g, (const uint8_t *const *)qs->q, qs->len, qs->n, got, &stt);
    if (CHECK(st == 0, "%s: scores: %d", name, st)) {
        size_t bad = 0;
        for (size_t x = 0; x < qs->n * d->n; x++)
            if (got[x] != ref[x]) {
                if (bad < 5)
                    fprintf(stderr, "%s: query %zu (m=%zu) target %zu (n=%llu): got %d want %d\n",
                            name, x / d->n, qs->len[x / d->n], x % d->n,
                            (unsigned long long)(d->offset[x % d->n + 1] - d->offset[x % d->n]),
                            got[x], ref[x]);
                bad++;
            }
        CHECK(bad == 0, "%s: %zu of %zu scores differ (rescored %llu)", name, bad,
              qs->n * d->n, (unsigned long long)stt.rescored);
        printf("%s: %zu queries x %zu targets, %llu rescored in 32 bits\n", name, qs->n, d->n,
               (unsigned long long)stt.rescored);
    }

    /* Top-k against a full sort of the reference. */
    uint32_t *order = malloc(d->n * sizeof *order);
    size_t ks[3] = {1, 10, d->n + 3};
    int32_t mins[3] = {0, 0, 40};
    for (int c = 0; c < 3; c++) {
        size_t k = ks[c];
        hay_swdb_hit *hits = malloc(qs->n * k * sizeof *hits);
        size_t *nh = malloc(qs->n * sizeof *nh);
        st = hay_cuda_swdb_search(g, (const uint8_t *const *)qs->q, qs->len, qs->n, k, mins[c],
                                  hits, nh, NULL);
        if (CHECK(st == 0, "%s: search k=%zu: %d", name, k, st)) {
            size_t bad = 0;
            int32_t lo = mins[c] > 1 ? mins[c] : 1;
            for (size_t j = 0; j < qs->n; j++) {
                const int32_t *rs = ref + j * d->n;
                size_t want = 0;
                for (size_t x = 0; x < d->n; x++)
                    if (rs[x] >= lo)
                        order[want++] = (uint32_t)x;
                cmp_scores = rs;
                qsort(order, want, sizeof *order, cmp_hit);
                if (want > k)
                    want = k;
                if (nh[j] != want) {
                    if (bad++ < 5)
                        fprintf(stderr, "%s k=%zu query %zu: %zu hits, want %zu\n", name, k, j,
                                nh[j], want);
                    continue;
                }
                for (size_t i = 0; i < want; i++)
                    if (hits[j * k + i].target != order[i] ||
                        hits[j * k + i].score != rs[order[i]]) {
                        if (bad++ < 5)
                            fprintf(stderr,
                                    "%s k=%zu query %zu hit %zu: (%u, %d), want (%u, %d)\n",
                                    name, k, j, i, hits[j * k + i].target,
                                    hits[j * k + i].score, order[i], rs[order[i]]);
                        break;
                    }
            }
            CHECK(bad == 0, "%s: top-%zu differs for %zu queries", name, k, bad);
        }
        free(hits);
        free(nh);
    }
    free(order);
    free(got);
    hay_cuda_swdb_free(g);
}

/* 16 queries of qmin..qmax residues (over 256: 385..qmax, so that they
 * stay in the 8 x 32 shape) against nt targets of tmin..64 residues, every
 * 50th a piece of a query (high scores); then again with params if not
 * NULL. */
static void short_targets(tu_rng *r, const hay_swdb_scoring *prot, size_t qmin, size_t qmax,
                          size_t nt, size_t tmin, const char *name, const char *params)
{
    qset qs;
    db d;
    qs.n = 16;
    qs.q = malloc(qs.n * sizeof *qs.q);
    qs.len = malloc(qs.n * sizeof *qs.len);
    for (size_t j = 0; j < qs.n; j++) {
        qs.len[j] = qmax > 256 && (j & 1) ? tu_range(r, 385, qmax)
                                          : tu_range(r, qmin, qmax < 256 ? qmax : 256);
        qs.q[j] = malloc(qs.len[j]);
        fill_random(r, qs.q[j], qs.len[j], 24, 0);
    }
    d.n = nt;
    d.offset = malloc((d.n + 1) * sizeof *d.offset);
    d.codes = malloc(d.n * 64 + 1);
    d.offset[0] = 0;
    for (size_t k = 0; k < d.n; k++) {
        size_t n = tu_range(r, tmin, 64);
        fill_random(r, d.codes + d.offset[k], n, 24, 0);
        if (k % 50 == 0)
            memcpy(d.codes + d.offset[k], qs.q[k % qs.n], n);
        d.offset[k + 1] = d.offset[k] + n;
    }
    int32_t *ref = ref_all(&d, &qs, prot);
    run_case(name, &d, &qs, prot, NULL, ref);
    if (params) {
        char label[160];
        snprintf(label, sizeof label, "%s, %s", name, params);
        run_case(label, &d, &qs, prot, params, ref);
    }
    free(ref);
    free_db(&d);
    free_qs(&qs);
}

static int32_t blosum_x20[24 * 24], dna[4 * 4], sat[4 * 4];

int main(void)
{
    tu_rng r = {0x5eedc0de12345ull};
    hay_swdb_scoring prot = {sw_blosum62, 24, 11, 1};

    /* Skip without a device. */
    {
        uint8_t c[1] = {0};
        uint64_t off[2] = {0, 1};
        hay_swdb_targets tg = {c, off, 1};
        hay_swdb_gpu *g = NULL;
        int st = hay_cuda_swdb_create(&tg, &prot, -1, NULL, &g);
        if (st == HAY_ERR_NO_DEVICE || st == HAY_ERR_NO_BACKEND) {
            printf("no CUDA device: skipped\n");
            return TU_SKIP;
        }
        CHECK(st == 0, "create: %d", st);
        hay_cuda_swdb_free(g);
        /* Bad arguments. */
        hay_swdb_scoring bad = prot;
        bad.alpha = 0;
        CHECK(hay_cuda_swdb_create(&tg, &bad, -1, NULL, &g) == HAY_ERR_INVALID, "alpha 0");
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, "bits=8", &g) == HAY_ERR_INVALID, "bits=8");
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, "nokey=1", &g) == HAY_ERR_INVALID, "bad key");
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, "rows=24", &g) == HAY_ERR_INVALID, "rows=24");
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, "bits=16,bits=32", &g) == HAY_ERR_INVALID,
              "a key twice");
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, "scratch=1K", &g) == HAY_ERR_INVALID,
              "scratch under 1M");
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, "device=15", &g) == HAY_ERR_NO_DEVICE,
              "device=15");
        c[0] = 24;
        CHECK(hay_cuda_swdb_create(&tg, &prot, -1, NULL, &g) == HAY_ERR_INVALID, "bad code");
        c[0] = 0;
        CHECK(hay_cuda_swdb_create(NULL, &prot, -1, NULL, &g) == HAY_ERR_INVALID, "NULL db");
        hay_cuda_swdb_free(NULL);
    }
    for (int i = 0; i < 24 * 24; i++)
        blosum_x20[i] = sw_blosum62[i] * 20;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            dna[a * 4 + b] = a == b ? 2 : -3;
            sat[a * 4 + b] = a == b ? 100 : -100;
        }

    /* Protein, BLOSUM62 11/1: the 16-bit kernel, then the same forced to
     * 32 bits, then with tiny batch and scratch budgets. */
    {
        qset qs;
        db d;
        make_queries(&r, &qs, tu_scaled(12, 4), 24, 0);
        make_db(&r, &d, tu_scaled(500, 60), &qs, 24, 0);
        int32_t *ref = ref_all(&d, &qs, &prot);
        run_case("protein", &d, &qs, &prot, NULL, ref);
        run_case("protein bits=32", &d, &qs, &prot, "bits=32", ref);
        run_case("protein batch+scratch", &d, &qs, &prot, "batch=200K,scratch=1M", ref);
        free(ref);
        hay_swdb_scoring gap1 = {sw_blosum62, 24, 1, 1};
        ref = ref_all(&d, &qs, &gap1);
        run_case("protein gaps 1/1", &d, &qs, &gap1, NULL, ref);
        free(ref);
        hay_swdb_scoring big = {blosum_x20, 24, 200, 20};
        ref = ref_all(&d, &qs, &big);
        run_case("protein BLOSUM62x20 (32-bit)", &d, &qs, &big, NULL, ref);
        free(ref);
        free_db(&d);
        free_qs(&qs);
    }
    /* Many short targets: launches with more block tasks than 16 per
     * resident block (16 queries of 129..256 residues, the 8 x 32 shape,
     * against 24,000 targets of 8..64: 750 tasks a query), where the
     * kernels may switch to another instance (SWDB_PAIR_IMAD=2; taken on
     * GPUs of up to 144 multiprocessors at 4 blocks each). */
    short_targets(&r, &prot, 129, 256, 24000, 8, "protein, 24,000 short targets", NULL);
    /* The same with queries of 385..512 residues in half of them (two
     * passes of the 8 x 32 shape: the scratch row between passes) and an
     * odd number of targets of 0..64 residues (units with a lone target,
     * pairs of 1..3 columns), also with a small scratch budget (launch
     * segments): where the IMAD instance sweeps several target pairs back
     * to back in a pass (SWDB_B2B), every pair boundary and pass. */
    short_targets(&r, &prot, 129, 512, 24001, 0, "protein, 24,001 short targets, 2 passes",
                  "scratch=1M");
    /* DNA +2/-3, 5/2 with low-complexity sequences. */
    {
        qset qs;
        db d;
        hay_swdb_scoring sc = {dna, 4, 5, 2};
        make_queries(&r, &qs, tu_scaled(10, 4), 4, 1);
        make_db(&r, &d, tu_scaled(400, 60), &qs, 4, 1);
        int32_t *ref = ref_all(&d, &qs, &sc);
        run_case("dna", &d, &qs, &sc, NULL, ref);
        free(ref);
        free_db(&d);
        free_qs(&qs);
    }
    /* Saturation: match 100 / mismatch -100, gaps 150/50.  The rescoring
     * threshold is 32767 - 100: identical runs of 320..335 residues score
     * 32000..33500, around it; long identical and low-complexity pairs
     * score far above 32767. */
    {
        hay_swdb_scoring sc = {sat, 4, 150, 50};
        qset qs;
        db d;
        make_queries(&r, &qs, 4, 4, 1);
        /* Query 0: 2600 residues of code 1 (low complexity; over 2048:
         * the widest group). */
        free(qs.q[0]);
        qs.len[0] = 2600;
        qs.q[0] = malloc(2600);
        memset(qs.q[0], 1, 2600);
        make_db(&r, &d, 40, &qs, 4, 1);
        /* Append identical prefixes of query 1's (random) residues with
         * lengths 320..335 and low-complexity runs. */
        size_t extra = 16 + 4, add = 0;
        size_t base = d.offset[d.n];
        size_t lens[20];
        for (size_t k = 0; k < 16; k++)
            lens[k] = 320 + k;
        lens[16] = 3000;
        lens[17] = 1;
        lens[18] = 327;
        lens[19] = 2500;
        for (size_t k = 0; k < extra; k++)
            add += lens[k];
        d.codes = realloc(d.codes, base + add + 1);
        d.offset = realloc(d.offset, (d.n + extra + 1) * sizeof *d.offset);
        free(qs.q[1]);
        qs.len[1] = 2000;
        qs.q[1] = malloc(2000);
        fill_random(&r, qs.q[1], 2000, 4, 0);
        /* Query 2: query 1 and 600 more residues (the prefixes' scores
         * near the threshold in the widest group too). */
        free(qs.q[2]);
        qs.len[2] = 2600;
        qs.q[2] = malloc(2600);
        memcpy(qs.q[2], qs.q[1], 2000);
        fill_random(&r, qs.q[2] + 2000, 600, 4, 0);
        for (size_t k = 0; k < extra; k++) {
            uint8_t *p = d.codes + d.offset[d.n + k];
            if (k < 16 || k == 18)
                memcpy(p, qs.q[1], lens[k]);
            else
                memset(p, 1, lens[k]);
            d.offset[d.n + k + 1] = d.offset[d.n + k] + lens[k];
        }
        d.n += extra;
        int32_t *ref = ref_all(&d, &qs, &sc);
        run_case("saturating", &d, &qs, &sc, NULL, ref);
        free(ref);
        free_db(&d);
        free_qs(&qs);
    }
    return tu_finish();
}
