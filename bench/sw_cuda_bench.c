/*
 * sw_cuda_bench.c - the CUDA one-pair Smith-Waterman kernels, timed
 * (bench/README.md: how to build and run; docs/PERF.md: results).
 *
 *   sw_cuda_bench table [--runs N]
 *       The paper's matrix-filling table: a 3,000 x 3,000 and an 8,461 x
 *       8,461 pair of random protein sequences (BLOSUM62, gaps 11/1, fixed
 *       seeds), the six paper variants at 128 threads per block and 32 x 32
 *       tiles, each over a sweep of block counts; median fill time, its
 *       compute and sync parts, GCUPS.  Then the best block count of each.
 *   sw_cuda_bench scale --data DIR [--runs N] [--variants a,b:params] [--max-cells X]
 *       GCUPS against length on real DNA pairs (mito, H. pylori, E. coli
 *       slices up to 1 Mbp x 1 Mbp) and a random 100k x 100k DNA pair;
 *       variants whose run would exceed --max-cells cells are skipped
 *       (default 2e10 for all but "fast").
 *   sw_cuda_bench sweep [--runs N] [--len L] [--params P;P;...]
 *       "fast" over launch shapes on a random DNA pair of L x L (100,000).
 *
 * Every line printed is tab-separated with a header; runs are preceded by
 * one warm-up.  DNA: A C G T -> 0..3, anything else -> 4 (N), match +2,
 * mismatch (and N) -3, gaps 5/2; protein: BLOSUM62, gaps 11/1.
 *
 * Internals: the paper's six variants and their launch shapes are reached
 * through the GPU contract (src/align/sw_device.h, hay_cuda_sw_score), which
 * the public align API hides behind one "auto" choice; BLOSUM62 comes from
 * the tests' copy.  So this program links the static library.
 */
#include "haystack.h"
#include "../src/align/sw_device.h"
#include "../tests/gpu/sw_blosum62.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seq {
    uint8_t *s;
    size_t n;
} seq;

static int32_t dna_mat[25];

static void init_dna(void)
{
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            dna_mat[a * 5 + b] = (a == b && a < 4) ? 2 : -3;
}

static uint8_t dna_code(int c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return 4;
    }
}

/* The first record of a FASTA file as DNA codes.  Exits with a message on
 * a file it cannot read. */
static seq read_fasta_dna(const char *path)
{
    FILE *f = fopen(path, "rb");
    seq r = {NULL, 0};
    size_t cap = 1 << 20;
    int c, in_header = 0, started = 0;
    if (f == NULL) {
        fprintf(stderr, "sw_cuda_bench: cannot open %s\n", path);
        exit(2);
    }
    r.s = malloc(cap);
    if (r.s == NULL)
        exit(1);
    while ((c = getc(f)) != EOF) {
        if (c == '>') {
            if (started)
                break;   /* the first record only */
            in_header = 1;
            started = 1;
            continue;
        }
        if (in_header) {
            if (c == '\n')
                in_header = 0;
            continue;
        }
        if (c == '\n' || c == '\r' || c == ' ' || c == '\t')
            continue;
        if (r.n == cap) {
            cap *= 2;
            r.s = realloc(r.s, cap);
            if (r.s == NULL)
                exit(1);
        }
        r.s[r.n++] = dna_code(c);
    }
    fclose(f);
    if (r.n == 0) {
        fprintf(stderr, "sw_cuda_bench: no sequence in %s\n", path);
        exit(2);
    }
    return r;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static seq random_seq(size_t n, int alpha, uint64_t seed)
{
    seq r = {malloc(n), n};
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    if (r.s == NULL)
        exit(1);
    for (size_t k = 0; k < n; k++)
        r.s[k] = (uint8_t)(rng_next(&s) % (uint64_t)alpha);
    return r;
}

static seq slice(seq a, size_t from, size_t len)
{
    seq r = {a.s + from, len};
    if (from + len > a.n) {
        fprintf(stderr, "sw_cuda_bench: slice past the end\n");
        exit(2);
    }
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct timing {
    int ok;
    int32_t score;
    uint64_t qe, te;
    double fill, compute, sync, total;   /* medians, seconds */
    int blocks, threads;
} timing;

/* runs + 1 calls (the first a warm-up); medians of each part. */
static timing time_variant(const hay_sw_problem *p, const char *variant, const char *params,
                           int runs)
{
    timing t;
    double fill[64], comp[64], syn[64], tot[64];
    memset(&t, 0, sizeof t);
    if (runs > 64)
        runs = 64;
    for (int k = 0; k <= runs; k++) {
        hay_sw_device_result r;
        int st = hay_cuda_sw_score(p, variant, params, &r);
        if (st != 0) {
            fprintf(stderr, "sw_cuda_bench: %s %s: %s\n", variant, params ? params : "",
                    hay_strerror((hay_status)st));
            return t;
        }
        if (k > 0 && (r.score != t.score || r.q_end != t.qe || r.t_end != t.te)) {
            fprintf(stderr, "sw_cuda_bench: %s: results differ between runs\n", variant);
            return t;
        }
        t.score = r.score;
        t.qe = r.q_end;
        t.te = r.t_end;
        t.blocks = r.blocks;
        t.threads = r.threads;
        if (k == 0)
            continue;
        comp[k - 1] = r.seconds_compute;
        syn[k - 1] = r.seconds_sync;
        fill[k - 1] = r.seconds_compute + r.seconds_sync;
        tot[k - 1] = r.seconds_total;
    }
    qsort(fill, (size_t)runs, sizeof(double), cmp_double);
    qsort(comp, (size_t)runs, sizeof(double), cmp_double);
    qsort(syn, (size_t)runs, sizeof(double), cmp_double);
    qsort(tot, (size_t)runs, sizeof(double), cmp_double);
    t.fill = fill[runs / 2];
    t.compute = comp[runs / 2];
    t.sync = syn[runs / 2];
    t.total = tot[runs / 2];
    t.ok = 1;
    return t;
}

static void print_device(void)
{
    char name[256] = "?";
    int count = 0;
    if (hay_device_count(HAY_BACKEND_CUDA, &count) != HAY_OK || count < 1) {
        printf("# no CUDA device\n");
        exit(77);
    }
    hay_device_describe(HAY_BACKEND_CUDA, 0, name, sizeof name);
    printf("# device: %s\n", name);
}

static int table(int runs)
{
    static const char *variants[] = {"simple-cpu",    "simple-gpu", "coalesced-cpu",
                                     "coalesced-gpu", "tiled-cpu",  "tiled-gpu"};
    static const int blocks[] = {8, 16, 24, 32, 66, 132, 264};
    const size_t lens[2] = {3000, 8461};
    printf("pair\tvariant\tblocks\tthreads\tfill_ms\tcompute_ms\tsync_ms\tsync_pct\tGCUPS\tscore\n");
    for (int L = 0; L < 2; L++) {
        seq q = random_seq(lens[L], 20, 11 + (uint64_t)L), t = random_seq(lens[L], 20, 101 + (uint64_t)L);
        hay_sw_problem p = {q.s, q.n, t.s, t.n, sw_blosum62, 24, 11, 1};
        timing best[6];
        memset(best, 0, sizeof best);
        for (int v = 0; v < 6; v++) {
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
                char params[96];
                snprintf(params, sizeof params, "blocks=%d,threads=128%s", blocks[b],
                         v >= 4 ? ",tile=32" : "");
                timing tm = time_variant(&p, variants[v], params, runs);
                if (!tm.ok)
                    continue;
                double cells = (double)q.n * (double)t.n;
                printf("%zux%zu\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%.3f\t%d\n", q.n, t.n,
                       variants[v], tm.blocks, tm.threads, 1e3 * tm.fill, 1e3 * tm.compute,
                       1e3 * tm.sync, tm.fill > 0 ? 100.0 * tm.sync / tm.fill : 0.0,
                       cells / tm.fill * 1e-9, (int)tm.score);
                if (!best[v].ok || tm.fill < best[v].fill)
                    best[v] = tm;
            }
        }
        printf("# best block count per variant, %zu x %zu\n", q.n, t.n);
        for (int v = 0; v < 6; v++)
            if (best[v].ok)
                printf("best\t%zux%zu\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.1f\n", q.n, t.n, variants[v],
                       best[v].blocks, 1e3 * best[v].fill, 1e3 * best[v].compute,
                       1e3 * best[v].sync, 100.0 * best[v].sync / best[v].fill);
        free(q.s);
        free(t.s);
    }
    return 0;
}

static void scale_one(const char *label, seq q, seq t, char **variants, size_t nv, int runs,
                      double max_cells)
{
    hay_sw_problem p = {q.s, q.n, t.s, t.n, dna_mat, 5, 5, 2};
    double cells = (double)q.n * (double)t.n;
    for (size_t v = 0; v < nv; v++) {
        /* "NAME" or "NAME:PARAMS" (e.g. fast:impl=2) */
        char name[64];
        const char *colon = strchr(variants[v], ':');
        size_t nlen = colon ? (size_t)(colon - variants[v]) : strlen(variants[v]);
        if (nlen >= sizeof name)
            nlen = sizeof name - 1;
        memcpy(name, variants[v], nlen);
        name[nlen] = 0;
        if (strcmp(name, "fast") != 0 && cells > max_cells) {
            printf("%s\t%zu\t%zu\t%s\tskipped (over --max-cells)\n", label, q.n, t.n, variants[v]);
            continue;
        }
        timing tm = time_variant(&p, name, colon ? colon + 1 : NULL, runs);
        if (!tm.ok)
            continue;
        printf("%s\t%zu\t%zu\t%s\t%d\t%d\t%.4f\t%.4f\t%.1f\t%.1f\t%d\t%llu\t%llu\n", label, q.n,
               t.n, variants[v], tm.blocks, tm.threads, tm.fill, tm.total, cells / tm.fill * 1e-9,
               cells / tm.total * 1e-9, (int)tm.score, (unsigned long long)tm.qe,
               (unsigned long long)tm.te);
        fflush(stdout);
    }
}

static int scale(const char *data, char **variants, size_t nv, int runs, double max_cells)
{
    char path[4096], path2[4096];
    printf("pair\tm\tn\tvariant\tblocks\tthreads\tfill_s\ttotal_s\tGCUPS_fill\tGCUPS_total\tscore"
           "\tq_end\tt_end\n");
    snprintf(path, sizeof path, "%s/bio/dna-pairs/MT-human.fa", data);
    snprintf(path2, sizeof path2, "%s/bio/dna-pairs/MT-orang.fa", data);
    seq a = read_fasta_dna(path), b = read_fasta_dna(path2);
    scale_one("mito human x orang", a, b, variants, nv, runs, max_cells);
    snprintf(path, sizeof path, "%s/bio/dna-pairs/H_pylori26695_Bslice.fasta", data);
    snprintf(path2, sizeof path2, "%s/bio/dna-pairs/H_pyloriJ99_Bslice.fasta", data);
    seq c = read_fasta_dna(path), d = read_fasta_dna(path2);
    scale_one("H. pylori B slices", c, d, variants, nv, runs, max_cells);
    snprintf(path, sizeof path, "%s/bio/dna-pairs/H_pylori26695_Eslice.fasta", data);
    snprintf(path2, sizeof path2, "%s/bio/dna-pairs/H_pyloriJ99_Eslice.fasta", data);
    seq e = read_fasta_dna(path), f = read_fasta_dna(path2);
    scale_one("H. pylori E slices", e, f, variants, nv, runs, max_cells);
    seq r1 = random_seq(100000, 4, 7), r2 = random_seq(100000, 4, 8);
    scale_one("random DNA", r1, r2, variants, nv, runs, max_cells);
    snprintf(path, sizeof path, "%s/bio/dna/ecoli_k12_mg1655.fna", data);
    seq ec = read_fasta_dna(path);
    static const size_t lens[] = {100000, 300000, 1000000};
    for (size_t k = 0; k < 3; k++) {
        /* the first L bases against L bases from the middle of the genome */
        scale_one("E. coli slices", slice(ec, 0, lens[k]), slice(ec, 2000000, lens[k]), variants,
                  nv, runs, max_cells);
    }
    free(a.s);
    free(b.s);
    free(c.s);
    free(d.s);
    free(e.s);
    free(f.s);
    free(r1.s);
    free(r2.s);
    free(ec.s);
    return 0;
}

static int sweep(size_t len, char *plist, int runs)
{
    seq q = random_seq(len, 4, 7), t = random_seq(len, 4, 8);
    hay_sw_problem p = {q.s, q.n, t.s, t.n, dna_mat, 5, 5, 2};
    double cells = (double)len * (double)len;
    printf("params\tblocks\tthreads\tfill_s\tsync_pct\tGCUPS_fill\tscore\n");
    for (char *tok = strtok(plist, ";"); tok; tok = strtok(NULL, ";")) {
        timing tm = time_variant(&p, "fast", *tok ? tok : NULL, runs);
        if (!tm.ok)
            continue;
        printf("%s\t%d\t%d\t%.4f\t%.1f\t%.1f\t%d\n", *tok ? tok : "(default)", tm.blocks,
               tm.threads, tm.fill, 100.0 * tm.sync / tm.fill, cells / tm.fill * 1e-9,
               (int)tm.score);
        fflush(stdout);
    }
    free(q.s);
    free(t.s);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: sw_cuda_bench table [--runs N]\n"
                    "       sw_cuda_bench scale --data DIR [--runs N] [--variants a,b:params] "
                    "[--max-cells X]\n"
                    "       sw_cuda_bench sweep [--runs N] [--len L] [--params 'P;P;...']\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int runs = 5;
    const char *data = NULL;
    char vdefault[] = "fast,coalesced-gpu";
    char *vlist = vdefault;
    char pdefault[] = ";tile=128;tile=256;tile=512;tile=256,threads=64;tile=256,threads=256";
    char *plist = pdefault;
    double max_cells = 2e10;
    size_t len = 100000;
    char *variants[16];
    size_t nv = 0;
    if (argc < 2)
        usage();
    for (int k = 2; k < argc; k++) {
        if (strcmp(argv[k], "--runs") == 0 && k + 1 < argc)
            runs = atoi(argv[++k]);
        else if (strcmp(argv[k], "--data") == 0 && k + 1 < argc)
            data = argv[++k];
        else if (strcmp(argv[k], "--variants") == 0 && k + 1 < argc)
            vlist = argv[++k];
        else if (strcmp(argv[k], "--max-cells") == 0 && k + 1 < argc)
            max_cells = atof(argv[++k]);
        else if (strcmp(argv[k], "--len") == 0 && k + 1 < argc)
            len = (size_t)atol(argv[++k]);
        else if (strcmp(argv[k], "--params") == 0 && k + 1 < argc)
            plist = argv[++k];
        else
            usage();
    }
    if (runs < 1 || runs > 64 || len < 1)
        usage();
    for (char *tok = strtok(vlist, ","); tok && nv < 16; tok = strtok(NULL, ","))
        variants[nv++] = tok;
    init_dna();
    print_device();
    printf("# runs %d (median), one warm-up\n", runs);
    if (strcmp(argv[1], "table") == 0)
        return table(runs);
    if (strcmp(argv[1], "scale") == 0) {
        if (data == NULL)
            usage();
        return scale(data, variants, nv, runs, max_cells);
    }
    if (strcmp(argv[1], "sweep") == 0)
        return sweep(len, plist, runs);
    usage();
    return 2;
}
