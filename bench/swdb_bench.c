/*
 * swdb_bench.c - the GPU database search (src/align/db_device.h,
 * src/cuda/sw_db*.cu), timed: issue 16's benchmark shapes.
 *
 *   swdb_bench [--data DIR] [--runs N] [--params P] [CASE...]
 *
 * CASE (default: ecoli pseudo256):
 *   ecoli        the 31 queries of DIR/bio/protein/queries_24-5478aa.fasta
 *                against the E. coli K-12 proteome (ecoli_k12_proteome.faa)
 *   pseudo256    the same queries against 1,000,000 random proteins of 256
 *                residues drawn with background amino-acid frequencies
 *                (CUDASW++ 4.0's pseudo-database shape; fixed seed)
 *   pseudo1024   the same with 1,000,000 x 1,024 residues
 * BLOSUM62, gaps 11/1, top 50 hits per query.  Each case: one warm-up
 * search, then N (default 3) timed searches; the median is printed.
 * Columns (tab-separated, one header): case, queries, targets, cells,
 * create_s (sort and upload of the database), search_s (the whole
 * hay_cuda_swdb_search call), kernel_s (score kernels incl. 32-bit
 * rescoring), select_s (top-k on the device), rescored, GCUPS of the
 * kernels, of the search call, of create + search, and check (the sum of
 * every query's best score, equal on every run and backend).
 * Exits 77 without a CUDA device.
 */
#include "haystack.h"
#include "../src/align/db_device.h"
#include "../tests/gpu/sw_blosum62.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct seqs {
    uint8_t *codes;
    uint64_t *off;
    size_t n, cap, ncap;
} seqs;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int code_of(int c)
{
    const char *p;
    if (c >= 'a' && c <= 'z')
        c -= 32;
    p = strchr(SW_PROTEIN_CODES, c);
    return p && c ? (int)(p - SW_PROTEIN_CODES) : 22;   /* X */
}

static int push(seqs *s, uint8_t c)
{
    if (s->off[s->n + 1] + 1 > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1 << 20;
        uint8_t *p = realloc(s->codes, nc);
        if (p == NULL)
            return -1;
        s->codes = p;
        s->cap = nc;
    }
    s->codes[s->off[s->n + 1]++] = c;
    return 0;
}

static int new_seq(seqs *s)
{
    if (s->n + 2 > s->ncap) {
        size_t nc = s->ncap ? 2 * s->ncap : 1024;
        uint64_t *p = realloc(s->off, nc * sizeof *p);
        if (p == NULL)
            return -1;
        s->off = p;
        s->ncap = nc;
    }
    s->off[s->n + 1] = s->off[s->n];
    return 0;
}

/* Reads a FASTA file into codes (BLOSUM62 order). */
static int read_fasta(const char *path, seqs *s)
{
    FILE *f = fopen(path, "rb");
    int c, in_header = 0, started = 0;
    memset(s, 0, sizeof *s);
    if (f == NULL)
        return -1;
    s->off = calloc(2, sizeof *s->off);
    s->ncap = 2;
    while ((c = fgetc(f)) != EOF) {
        if (c == '>') {
            if (started)
                s->n++;
            if (new_seq(s) != 0)
                break;
            started = 1;
            in_header = 1;
        } else if (c == '\n') {
            in_header = 0;
        } else if (!in_header && started && c > ' ') {
            if (push(s, (uint8_t)code_of(c)) != 0)
                break;
        }
    }
    if (started)
        s->n++;
    fclose(f);
    return 0;
}

/* n random proteins of len residues, background frequencies (Robinson &
 * Robinson 1991, as BLAST uses), in BLOSUM62's residue order. */
static int make_pseudo(seqs *s, size_t n, size_t len)
{
    static const double freq[20] = {
        0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295, 0.07377, 0.02199, 0.05142,
        0.09019, 0.05744, 0.02243, 0.03856, 0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441};
    uint8_t table[4096];
    double acc = 0, sum = 0;
    int k = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 20; i++)
        sum += freq[i];
    for (int i = 0; i < 20; i++) {
        acc += freq[i] / sum;
        while (k < 4096 && (double)k < acc * 4096.0)
            table[k++] = (uint8_t)i;
    }
    while (k < 4096)
        table[k++] = 19;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->codes = malloc(n * len);
    s->off = malloc((n + 1) * sizeof *s->off);
    if (s->codes == NULL || s->off == NULL)
        return -1;
    for (size_t i = 0; i < n * len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s->codes[i] = table[x >> 52];
    }
    for (size_t i = 0; i <= n; i++)
        s->off[i] = i * len;
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_case(const char *name, const seqs *db, const seqs *qs, int runs, const char *params)
{
    hay_swdb_scoring sc = {sw_blosum62, 24, 11, 1};
    hay_swdb_targets tg = {db->codes, db->off, db->n};
    hay_swdb_gpu *g = NULL;
    const size_t top = 50;
    size_t nq = qs->n;
    const uint8_t **qp = malloc(nq * sizeof *qp);
    size_t *ql = malloc(nq * sizeof *ql), *nh = malloc(nq * sizeof *nh);
    hay_swdb_hit *hits = malloc(nq * top * sizeof *hits);
    double *tsearch = malloc((size_t)runs * sizeof(double)), *tkern = malloc((size_t)runs * sizeof(double));
    double *tsel = malloc((size_t)runs * sizeof(double));
    hay_swdb_stats st;
    long long check = 0;
    int rc = 0;
    for (size_t j = 0; j < nq; j++) {
        qp[j] = qs->codes + qs->off[j];
        ql[j] = (size_t)(qs->off[j + 1] - qs->off[j]);
    }
    double t0 = now_s();
    rc = hay_cuda_swdb_create(&tg, &sc, -1, params, &g);
    double tcreate = now_s() - t0;
    if (rc != 0) {
        fprintf(stderr, "%s: create: %s\n", name, hay_strerror(rc));
        goto out;
    }
    for (int r = -1; r < runs; r++) {
        t0 = now_s();
        rc = hay_cuda_swdb_search(g, qp, ql, nq, top, 0, hits, nh, &st);
        double t = now_s() - t0;
        if (rc != 0) {
            fprintf(stderr, "%s: search: %s\n", name, hay_strerror(rc));
            goto out;
        }
        long long c = 0;
        for (size_t j = 0; j < nq; j++)
            c += nh[j] ? hits[j * top].score : 0;
        if (r >= 0 && c != check) {
            fprintf(stderr, "%s: check %lld differs from %lld\n", name, c, check);
            rc = 1;
        }
        check = c;
        if (r >= 0) {
            tsearch[r] = t;
            tkern[r] = st.seconds_kernels;
            tsel[r] = st.seconds_select;
        }
    }
    qsort(tsearch, (size_t)runs, sizeof(double), cmp_d);
    qsort(tkern, (size_t)runs, sizeof(double), cmp_d);
    qsort(tsel, (size_t)runs, sizeof(double), cmp_d);
    {
        double cells = (double)st.cells, ts = tsearch[runs / 2], tk = tkern[runs / 2];
        printf("%s\t%zu\t%zu\t%.4g\t%.3f\t%.4f\t%.4f\t%.4f\t%llu\t%.1f\t%.1f\t%.1f\t%lld\n", name,
               nq, db->n, cells, tcreate, ts, tk, tsel[runs / 2],
               (unsigned long long)st.rescored, cells / tk * 1e-9, cells / ts * 1e-9,
               cells / (ts + tcreate) * 1e-9, check);
        fflush(stdout);
    }
out:
    hay_cuda_swdb_free(g);
    free(qp);
    free(ql);
    free(nh);
    free(hits);
    free(tsearch);
    free(tkern);
    free(tsel);
    return rc;
}

int main(int argc, char **argv)
{
    const char *data = "../shared/data", *params = NULL;
    const char *cases[8];
    int ncases = 0, runs = 3, rc = 0;
    char path[4096];
    seqs qs, db;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
            data = argv[++i];
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--params") == 0 && i + 1 < argc)
            params = argv[++i];
        else if (ncases < 8 && argv[i][0] != '-')
            cases[ncases++] = argv[i];
        else {
            fprintf(stderr, "usage: swdb_bench [--data DIR] [--runs N] [--params P] [CASE...]\n");
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (ncases == 0) {
        cases[ncases++] = "ecoli";
        cases[ncases++] = "pseudo256";
    }
    if (hay_backend_available(HAY_BACKEND_CUDA) != HAY_OK) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    snprintf(path, sizeof path, "%s/bio/protein/queries_24-5478aa.fasta", data);
    if (read_fasta(path, &qs) != 0 || qs.n == 0) {
        fprintf(stderr, "cannot read %s\n", path);
        return 77;
    }
    printf("case\tqueries\ttargets\tcells\tcreate_s\tsearch_s\tkernel_s\tselect_s\trescored\t"
           "gcups_kernel\tgcups_search\tgcups_create_search\tcheck\n");
    for (int c = 0; c < ncases; c++) {
        if (strcmp(cases[c], "ecoli") == 0) {
            snprintf(path, sizeof path, "%s/bio/protein/ecoli_k12_proteome.faa", data);
            if (read_fasta(path, &db) != 0 || db.n == 0) {
                fprintf(stderr, "cannot read %s\n", path);
                rc = 1;
                continue;
            }
        } else if (strcmp(cases[c], "pseudo256") == 0 || strcmp(cases[c], "pseudo1024") == 0) {
            if (make_pseudo(&db, 1000000, strcmp(cases[c], "pseudo256") == 0 ? 256 : 1024) != 0) {
                fprintf(stderr, "out of memory\n");
                rc = 1;
                continue;
            }
        } else {
            fprintf(stderr, "unknown case %s\n", cases[c]);
            rc = 2;
            continue;
        }
        if (run_case(cases[c], &db, &qs, runs, params) != 0)
            rc = 1;
        free(db.codes);
        free(db.off);
    }
    free(qs.codes);
    free(qs.off);
    return rc;
}
