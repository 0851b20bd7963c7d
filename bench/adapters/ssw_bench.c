/*
 * ssw_bench.c - SSW (libssw, Zhao et al.) as a benchmark peer for
 * `hay align`: every query against every target, local alignment with
 * affine gaps, written against SSW's public C API (ssw.h).
 *
 *   ssw_bench [--matrix FILE] [--dna M,X] [--gap-open O] [--gap-extend E]
 *             [--threads N] [--traceback] QUERIES.fa TARGETS.fa
 *
 * Gap rule: SSW charges gap_open for the first position of a gap and
 * gap_extend for each further one, the same rule as hay and parasail.
 * Scores come back as 16-bit (SSW's limit); a pair whose score saturates
 * is flagged on stderr.  Prints the sum of the best scores on stdout and
 * "stats: phase=scan cells=C seconds=S gcups=G" on stderr.
 */
#define _GNU_SOURCE
#include <ssw.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct seq {
    char *name;
    int8_t *codes;
    int32_t len;
} seq;

static int code_of[256];
static int alpha;
static int8_t *mat;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "ssw_bench: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

/* NCBI matrix: '#' comments, a header row of residue letters, then one row
 * per letter.  Letters not in the header map to the last column ('*' or X). */
static void load_matrix(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open matrix", path);
    char line[4096], letters[64];
    int n = 0, row = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!n) {
            for (char *p = line; *p; p++)
                if (!isspace((unsigned char)*p))
                    letters[n++] = *p;
            mat = calloc((size_t)n * n, 1);
            continue;
        }
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        p++;   /* the row letter */
        for (int c = 0; c < n; c++) {
            long v = strtol(p, &p, 10);
            mat[row * n + c] = (int8_t)v;
        }
        if (++row == n)
            break;
    }
    fclose(f);
    if (!n || row != n)
        die("malformed matrix", path);
    alpha = n;
    int fallback = n - 1;
    for (int c = 0; c < n; c++)
        if (letters[c] == 'X')
            fallback = c;
    for (int c = 0; c < 256; c++)
        code_of[c] = fallback;
    for (int c = 0; c < n; c++) {
        code_of[(unsigned char)letters[c]] = c;
        code_of[tolower((unsigned char)letters[c])] = c;
    }
}

static void dna_matrix(int match, int mismatch)
{
    static const char acgt[] = "ACGTN";
    alpha = 5;
    mat = calloc(25, 1);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            mat[a * 5 + b] = (int8_t)(a == 4 || b == 4 ? 0 : a == b ? match : mismatch);
    for (int c = 0; c < 256; c++)
        code_of[c] = 4;
    for (int i = 0; i < 4; i++) {
        code_of[(unsigned char)acgt[i]] = i;
        code_of[tolower((unsigned char)acgt[i])] = i;
    }
}

static seq *read_fasta(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open", path);
    size_t cap = 16, n = 0;
    seq *s = calloc(cap, sizeof *s);
    size_t scap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t got;
    while ((got = getline(&line, &lcap, f)) > 0) {
        if (line[0] == '>') {
            if (n == cap)
                s = realloc(s, (cap *= 2) * sizeof *s);
            line[strcspn(line, " \t\r\n")] = 0;
            s[n].name = strdup(line + 1);
            s[n].codes = NULL;
            s[n].len = 0;
            scap = 0;
            n++;
            continue;
        }
        if (!n)
            die("not FASTA (no '>' header first)", path);
        seq *q = &s[n - 1];
        for (ssize_t i = 0; i < got; i++) {
            unsigned char c = (unsigned char)line[i];
            if (isspace(c))
                continue;
            if ((size_t)q->len == scap)
                q->codes = realloc(q->codes, scap = scap ? scap * 2 : 1024);
            q->codes[q->len++] = (int8_t)code_of[c];
        }
    }
    free(line);
    fclose(f);
    *count = n;
    return s;
}

int main(int argc, char **argv)
{
    const char *matrix = NULL;
    int match = 0, mismatch = 0, dna = 0, go = 11, ge = 1, threads = 1, tb = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--matrix") && i + 1 < argc)
            matrix = argv[++i];
        else if (!strcmp(argv[i], "--dna") && i + 1 < argc) {
            dna = 1;
            if (sscanf(argv[++i], "%d,%d", &match, &mismatch) != 2)
                die("--dna wants MATCH,MISMATCH", argv[i]);
        } else if (!strcmp(argv[i], "--gap-open") && i + 1 < argc)
            go = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gap-extend") && i + 1 < argc)
            ge = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--traceback"))
            tb = 1;
        else if (!strcmp(argv[i], "--version")) {
            puts("ssw_bench (libssw, Debian)");
            return 0;
        } else
            die("unknown option", argv[i]);
    }
    if (argc - i != 2)
        die("usage: ssw_bench [options] QUERIES.fa TARGETS.fa", NULL);
    if (dna)
        dna_matrix(match, mismatch);
    else if (matrix)
        load_matrix(matrix);
    else
        die("give --matrix FILE or --dna MATCH,MISMATCH", NULL);
    if (go < 0 || go > 255 || ge < 0 || ge > 255)
        die("gap penalties must be 0..255", NULL);

    size_t nq, nt;
    seq *q = read_fasta(argv[i], &nq);
    seq *t = read_fasta(argv[i + 1], &nt);
    double cells = 0;
    for (size_t a = 0; a < nq; a++)
        for (size_t b = 0; b < nt; b++)
            cells += (double)q[a].len * t[b].len;

    long long total = 0;
    long saturated = 0;
    double t0 = now();
    for (size_t a = 0; a < nq; a++) {
        if (q[a].len == 0)
            continue;
        s_profile *p = ssw_init(q[a].codes, q[a].len, mat, alpha, 2);
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : total, saturated)
#endif
        for (size_t b = 0; b < nt; b++) {
            if (t[b].len == 0)
                continue;
            s_align *r = ssw_align(p, t[b].codes, t[b].len, (uint8_t)go, (uint8_t)ge,
                                   tb ? 0x0f : 0, 0, 0, q[a].len / 2 > 15 ? q[a].len / 2 : 15);
            if (r) {
                total += r->score1;
                saturated += r->score1 == UINT16_MAX;
                align_destroy(r);
            }
        }
        init_destroy(p);
    }
    double secs = now() - t0;
    printf("%lld\n", total);
    if (saturated)
        fprintf(stderr, "ssw_bench: %ld pair(s) saturated SSW's 16-bit score\n", saturated);
    fprintf(stderr, "stats: phase=scan cells=%.0f seconds=%.6f gcups=%.3f\n", cells,
            secs, cells / secs / 1e9);
    (void)threads;
    return 0;
}
