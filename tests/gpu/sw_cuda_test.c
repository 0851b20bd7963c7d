/*
 * sw_cuda_test.c - every CUDA Smith-Waterman variant (src/cuda/sw_*.cu) against
 * the scalar Gotoh reference of sw_ref.h: score and best cell (smallest
 * q_end, then smallest t_end) must be equal.  Random protein and DNA pairs,
 * related (mutated copies) and unrelated, low-complexity pairs full of
 * ties, BLOSUM62, DNA, a binary alphabet, a 32-letter random matrix and a
 * scaled BLOSUM62 whose scores do not fit the fast kernel's byte profile;
 * several gap settings; lengths 1..10,000 (1 x N, N x 1, lengths around
 * the tile and strip sizes); launch shapes forced through params; two
 * 30,000 x 30,000 pairs; bad arguments.  Exits 77 (skipped) with no GPU.
 * `test_sw_cuda_test VARIANT` checks that variant only.
 */
#include "testutil.h"
#include "align/sw_device.h"
#include "sw_blosum62.h"
#include "sw_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference, with its own rows. */
static void ref_sw(const uint8_t *q, size_t m, const uint8_t *t, size_t n, const int32_t *mat,
                   int alpha, int go, int ge, int32_t *score, uint64_t *qe, uint64_t *te)
{
    int32_t *H = malloc((n + 1) * sizeof *H), *F = malloc((n + 1) * sizeof *F);
    if (H == NULL || F == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    *score = sw_ref_gotoh(q, m, t, n, mat, alpha, go, ge, H, F, qe, te);
    free(H);
    free(F);
}

typedef struct matrix {
    const char *name;
    int alpha;
    int32_t v[HAY_SW_MAX_ALPHA * HAY_SW_MAX_ALPHA];
} matrix;

static matrix mats[6];
static size_t nmats;

static void make_matrices(tu_rng *rng)
{
    matrix *x;
    x = &mats[nmats++];
    x->name = "BLOSUM62";
    x->alpha = 24;
    memcpy(x->v, sw_blosum62, sizeof sw_blosum62);
    x = &mats[nmats++];
    x->name = "DNA+2/-3";
    x->alpha = 4;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            x->v[a * 4 + b] = a == b ? 2 : -3;
    x = &mats[nmats++];
    x->name = "DNA5+1/-2,N-1";
    x->alpha = 5;
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            x->v[a * 5 + b] = (a == 4 || b == 4) ? -1 : a == b ? 1 : -2;
    x = &mats[nmats++];
    x->name = "binary+1/-1";
    x->alpha = 2;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            x->v[a * 2 + b] = a == b ? 1 : -1;
    x = &mats[nmats++];
    x->name = "random32";
    x->alpha = 32;
    for (int a = 0; a < 32; a++)
        for (int b = a; b < 32; b++) {
            int32_t v = a == b ? (int32_t)tu_range(rng, 3, 12) : (int32_t)tu_range(rng, 0, 9) - 6;
            x->v[a * 32 + b] = v;
            x->v[b * 32 + a] = v;
        }
    x = &mats[nmats++];
    x->name = "BLOSUM62x16";   /* scores + gap open beyond a byte */
    x->alpha = 24;
    for (int k = 0; k < 24 * 24; k++)
        x->v[k] = 16 * sw_blosum62[k];
}

static const int gaps[][2] = {{11, 1}, {5, 2}, {10, 10}, {3, 1}, {1, 1}, {6, 0}};

static size_t pick_len(tu_rng *rng, size_t maxlen)
{
    /* roughly log-uniform over 1..maxlen: short and long both occur */
    size_t v = 1 + (size_t)tu_below(rng, (uint64_t)1 << tu_below(rng, 15));
    return v > maxlen ? 1 + (size_t)tu_below(rng, maxlen) : v;
}

static void random_seq(tu_rng *rng, uint8_t *s, size_t len, int alpha, int lowc)
{
    if (lowc) {   /* a short motif repeated, with a few changes: many ties */
        uint8_t motif[4];
        size_t ml = 1 + tu_below(rng, 4);
        for (size_t k = 0; k < ml; k++)
            motif[k] = (uint8_t)tu_below(rng, (uint64_t)alpha);
        for (size_t k = 0; k < len; k++)
            s[k] = tu_below(rng, 20) == 0 ? (uint8_t)tu_below(rng, (uint64_t)alpha) : motif[k % ml];
        return;
    }
    for (size_t k = 0; k < len; k++)
        s[k] = (uint8_t)tu_below(rng, (uint64_t)alpha);
}

/* t: a mutated copy of q (substitutions, insertions, deletions), cut or
 * padded with random residues to length n. */
static void related_seq(tu_rng *rng, const uint8_t *q, size_t m, uint8_t *t, size_t n, int alpha)
{
    size_t k = 0, i = 0;
    size_t lead = tu_below(rng, n / 4 + 1);
    while (k < lead && k < n)
        t[k++] = (uint8_t)tu_below(rng, (uint64_t)alpha);
    while (k < n && i < m) {
        uint64_t r = tu_below(rng, 100);
        if (r < 8)
            t[k++] = (uint8_t)tu_below(rng, (uint64_t)alpha);      /* substitution */
        else if (r < 11)
            t[k++] = (uint8_t)tu_below(rng, (uint64_t)alpha), i--; /* insertion */
        else if (r < 14)
            ;                                                      /* deletion */
        else
            t[k++] = q[i];
        i++;
    }
    while (k < n)
        t[k++] = (uint8_t)tu_below(rng, (uint64_t)alpha);
}

typedef struct shape {
    const char *variant, *params;
    int bytes_only; /* fast impl=2/3: only where every score + open fits a byte */
} shape;

/* Every variant with its defaults, plus forced launch shapes. */
static const shape shapes[] = {
    {"fast", NULL, 0},          {"simple-cpu", NULL, 0},    {"simple-gpu", NULL, 0},
    {"coalesced-cpu", NULL, 0}, {"coalesced-gpu", NULL, 0}, {"tiled-cpu", NULL, 0},
    {"tiled-gpu", NULL, 0},     {"fast", "impl=1", 0},      {"fast", "impl=2", 1},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])
static const shape extra_shapes[] = {
    {"fast", "tile=128", 0},           {"fast", "tile=256,threads=64", 0},
    {"fast", "tile=512,threads=256", 0}, {"fast", "tile=128,blocks=1,threads=32", 0},
    {"fast", "blocks=3,split=0", 0},   {"simple-cpu", "blocks=1,threads=32", 0},
    {"coalesced-gpu", "blocks=2,threads=64", 0}, {"simple-gpu", "blocks=7,threads=96", 0},
    {"tiled-cpu", "tile=16,threads=16", 0}, {"tiled-gpu", "tile=64,threads=128,blocks=3", 0},
    {"tiled-gpu", "tile=7,threads=32", 0}, {"coalesced-cpu", "threads=1024", 0},
    {"fast", "chunk=8", 0},            {"fast", "chunk=8,tile=512,threads=64,blocks=2", 0},
    {"fast", "impl=1,tile=128", 0},    {"fast", "impl=1,tile=512,threads=64", 0},
    {"fast", "impl=2,tile=1024", 1}, {"fast", "impl=2,tile=128,chunk=8,threads=32", 1},
};

/* argv[1], when given: only this variant (so that one variant can be run
 * and timed alone). */
static const char *only;
static unsigned long long ncase;

static void run_case(const char *what, const uint8_t *q, size_t m, const uint8_t *t, size_t n,
                     const matrix *mx, int go, int ge, const shape *sh, size_t nsh)
{
    int32_t want;
    uint64_t wq, wt;
    char note[256];
    size_t todo = 0;
    int bytes = 1;
    for (int k = 0; k < mx->alpha * mx->alpha; k++)
        bytes &= mx->v[k] + go >= -127 && mx->v[k] + go <= 127;
    for (size_t k = 0; k < nsh; k++)
        todo += only == NULL || strcmp(only, sh[k].variant) == 0;
    if (todo == 0)
        return;
    printf("case %llu: %s %zu x %zu %s gaps %d/%d\n", ++ncase, what, m, n, mx->name, go, ge);
    fflush(stdout);
    ref_sw(q, m, t, n, mx->v, mx->alpha, go, ge, &want, &wq, &wt);
    hay_sw_problem p = {q, m, t, n, mx->v, mx->alpha, go, ge};
    for (size_t k = 0; k < nsh; k++) {
        hay_sw_device_result r;
        if ((only != NULL && strcmp(only, sh[k].variant) != 0) || (sh[k].bytes_only && !bytes))
            continue;
        snprintf(note, sizeof note, "%s %zux%zu %s gaps %d/%d, %s %s", what, m, n, mx->name, go,
                 ge, sh[k].variant, sh[k].params ? sh[k].params : "");
        tu_fail_note = note;
        int st = hay_cuda_sw_score(&p, sh[k].variant, sh[k].params, &r);
        if (!CHECK(st == 0, "status %d", st))
            continue;
        CHECK(r.score == want && (want == 0 || (r.q_end == wq && r.t_end == wt)) &&
                  (want != 0 || (r.q_end == 0 && r.t_end == 0)),
              "got %d at (%llu, %llu), want %d at (%llu, %llu)", (int)r.score,
              (unsigned long long)r.q_end, (unsigned long long)r.t_end, (int)want,
              (unsigned long long)wq, (unsigned long long)wt);
        CHECK(r.cells == (uint64_t)m * n, "cells %llu", (unsigned long long)r.cells);
        CHECK(r.seconds_total >= r.seconds_compute && r.seconds_compute >= 0 &&
                  r.seconds_sync >= 0 && r.blocks > 0 && r.threads > 0,
              "timing/shape fields: total %g compute %g sync %g blocks %d threads %d",
              r.seconds_total, r.seconds_compute, r.seconds_sync, r.blocks, r.threads);
    }
    tu_fail_note = NULL;
}

static void bad_arguments(void)
{
    const uint8_t q[3] = {0, 1, 2}, t[3] = {2, 1, 0}, bad[2] = {0, 4};
    hay_sw_device_result r;
    hay_sw_problem p = {q, 3, t, 3, mats[1].v, 4, 5, 2};
    CHECK_ST(hay_cuda_sw_score(NULL, NULL, NULL, &r), HAY_ERR_INVALID, "NULL problem");
    CHECK_ST(hay_cuda_sw_score(&p, NULL, NULL, NULL), HAY_ERR_INVALID, "NULL result");
    CHECK_ST(hay_cuda_sw_score(&p, "no-such", NULL, &r), HAY_ERR_UNKNOWN_NAME, "unknown variant");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "blocks=4,colour=2", &r), HAY_ERR_INVALID,
             "unknown key");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "blocks=0", &r), HAY_ERR_INVALID, "blocks=0");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "blocks", &r), HAY_ERR_INVALID, "no value");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "threads=33", &r), HAY_ERR_INVALID, "threads=33");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "tile=100", &r), HAY_ERR_INVALID, "fast tile=100");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "impl=3", &r), HAY_ERR_INVALID, "fast impl=3");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "impl=1,tile=1024", &r), HAY_ERR_INVALID,
             "fast impl=1 tile=1024");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "impl=2,tile=1024,chunk=16", &r), HAY_ERR_INVALID,
             "fast R=32 chunk=16");
    CHECK_ST(hay_cuda_sw_score(&p, "fast", "chunk=4", &r), HAY_ERR_INVALID, "fast chunk=4");
    {
        /* Version 2 needs the byte profile: not with scores + open > 127. */
        hay_sw_problem big = p;
        big.matrix = mats[5].v;
        big.alpha = mats[5].alpha;
        CHECK_ST(hay_cuda_sw_score(&big, "fast", "impl=2", &r), HAY_ERR_INVALID,
                 "fast impl=2 without a byte profile");
        CHECK(hay_cuda_sw_score(&big, "fast", NULL, &r) == HAY_OK, "fast falls back to version 1");
    }
    CHECK_ST(hay_cuda_sw_score(&p, "tiled-gpu", "tile=65", &r), HAY_ERR_INVALID, "tile=65");
    CHECK_ST(hay_cuda_sw_score(&p, "simple-cpu", "tile=32", &r), HAY_ERR_INVALID,
             "tile on a diagonal variant");
    CHECK_ST(hay_cuda_sw_score(&p, "coalesced-gpu", "blocks=1000000", &r), HAY_ERR_INVALID,
             "more blocks than can be resident");
    p.q = bad;
    p.m = 2;
    CHECK_ST(hay_cuda_sw_score(&p, NULL, NULL, &r), HAY_ERR_INVALID, "code >= alpha");
    p.q = q;
    p.m = 0;
    CHECK_ST(hay_cuda_sw_score(&p, NULL, NULL, &r), HAY_ERR_INVALID, "empty query");
    p.m = 3;
    p.alpha = 33;
    CHECK_ST(hay_cuda_sw_score(&p, NULL, NULL, &r), HAY_ERR_INVALID, "alpha 33");
    p.alpha = 4;
    p.gap_open = -1;
    CHECK_ST(hay_cuda_sw_score(&p, NULL, NULL, &r), HAY_ERR_INVALID, "negative gap");
    size_t k = 0;
    while (hay_cuda_sw_variant(k))
        k++;
    CHECK(k == 7, "%zu variants", k);
    CHECK(strcmp(hay_cuda_sw_variant(0), "fast") == 0, "variant 0 is %s", hay_cuda_sw_variant(0));
}

int main(int argc, char **argv)
{
    tu_rng rng = {0x5eed5eedULL};
    const size_t maxlen = 10000;
    uint8_t *q = malloc(30000), *t = malloc(30000);
    hay_sw_device_result r;
    if (q == NULL || t == NULL)
        return 1;
    if (argc > 1)
        only = argv[1];
    make_matrices(&rng);
    {
        const uint8_t a[1] = {0};
        hay_sw_problem p = {a, 1, a, 1, mats[1].v, 4, 5, 2};
        int st = hay_cuda_sw_score(&p, NULL, NULL, &r);
        if (st == HAY_ERR_NO_DEVICE) {
            printf("SKIPPED: no CUDA device\n");
            return TU_SKIP;
        }
    }
    bad_arguments();

    /* Fixed awkward shapes. */
    static const size_t fixed[][2] = {
        {1, 1},     {1, 7000},  {7000, 1},  {2, 3},     {31, 33},    {127, 129},
        {128, 128}, {255, 257}, {513, 1000}, {1000, 513}, {4097, 33}, {33, 4097},
        {129, 9999}, {9999, 129},
    };
    for (size_t c = 0; c < sizeof fixed / sizeof fixed[0]; c++) {
        const matrix *mx = &mats[c % nmats];
        size_t m = fixed[c][0], n = fixed[c][1];
        random_seq(&rng, q, m, mx->alpha, 0);
        if (c % 2)
            related_seq(&rng, q, m, t, n, mx->alpha);
        else
            random_seq(&rng, t, n, mx->alpha, 0);
        run_case("fixed", q, m, t, n, mx, gaps[c % 6][0], gaps[c % 6][1], shapes, NSHAPES);
    }

    /* Random pairs. */
    size_t cases = tu_scaled(60, 10);
    for (size_t c = 0; c < cases; c++) {
        const matrix *mx = &mats[tu_below(&rng, nmats)];
        const int *g = gaps[tu_below(&rng, 6)];
        size_t m = pick_len(&rng, maxlen), n = pick_len(&rng, maxlen);
        int kind = (int)tu_below(&rng, 3);   /* 0 unrelated, 1 related, 2 low complexity */
        random_seq(&rng, q, m, mx->alpha, kind == 2);
        if (kind == 1)
            related_seq(&rng, q, m, t, n, mx->alpha);
        else
            random_seq(&rng, t, n, mx->alpha, kind == 2);
        const char *what = kind == 0 ? "unrelated" : kind == 1 ? "related" : "low-complexity";
        run_case(what, q, m, t, n, mx, g[0], g[1], shapes, NSHAPES);
        if (c % 4 == 0)
            run_case(what, q, m, t, n, mx, g[0], g[1], extra_shapes,
                     sizeof extra_shapes / sizeof extra_shapes[0]);
    }

    /* Two long pairs. */
    random_seq(&rng, q, 30000, 4, 0);
    related_seq(&rng, q, 30000, t, 30000, 4);
    run_case("long DNA related", q, 30000, t, 30000, &mats[1], 5, 2, shapes, NSHAPES);
    random_seq(&rng, q, 30000, 24, 0);
    random_seq(&rng, t, 29000, 24, 0);
    run_case("long protein unrelated", q, 30000, t, 29000, &mats[0], 11, 1, shapes, NSHAPES);

    free(q);
    free(t);
    return tu_finish();
}
