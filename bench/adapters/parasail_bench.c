/*
 * parasail_bench.c - parasail as a Smith-Waterman engine for the alignment
 * benchmark: every query against every target, OpenMP over pairs, through
 * parasail's public API (a profile per query, then the *_striped_profile_*
 * or *_scan_profile_* function; a saturated 16-bit result is redone with
 * the 32-bit one, as hay does).  Each query's profile is built once and
 * shared by the threads, as hay does.
 *
 * Usage: parasail_bench [--threads N] [--func striped16|striped32|scan32]
 *        [--matrix NAME|FILE] [--dna MATCH,MISMATCH] [--open N] [--extend N]
 *        QUERY.fa TARGET.fa
 * Prints "checksum: <sum of scores>" and
 *        "stats: pairs=P cells=C seconds=S gcups=G"
 * (seconds: the alignment loop only, profiles included, reading excluded).
 * FASTA only, plain text.  Build: cc -O2 -fopenmp parasail_bench.c -lparasail
 */
#include <parasail.h>

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct rec {
    char *s;
    int len;
} rec;

/* With dna set, upper case, and every letter but A C G T read as N, as
 * hay does with the IUPAC ambiguity codes (parasail would score unknown
 * letters otherwise). */
static rec *read_fasta(const char *path, size_t *n, int dna)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    rec *r = NULL;
    size_t cap = 0, cnt = 0, scap = 0;
    char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>') {
            if (cnt == cap) {
                cap = cap ? cap * 2 : 64;
                r = realloc(r, cap * sizeof *r);
            }
            r[cnt].s = NULL;
            r[cnt].len = 0;
            cnt++;
            scap = 0;
            continue;
        }
        if (!cnt)
            continue;
        rec *x = &r[cnt - 1];
        for (char *c = line; *c; c++) {
            if (*c == '\n' || *c == '\r' || *c == ' ')
                continue;
            if ((size_t)x->len + 2 > scap) {
                scap = scap ? scap * 2 : 1024;
                x->s = realloc(x->s, scap);
            }
            char ch = *c;
            if (dna) {
                ch = (char)(ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
                if (ch != 'A' && ch != 'C' && ch != 'G' && ch != 'T')
                    ch = 'N';
            }
            x->s[x->len++] = ch;
            x->s[x->len] = 0;
        }
    }
    fclose(f);
    *n = cnt;
    return r;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int threads = omp_get_num_procs(), open = 11, extend = 1;
    int dna = 0, match = 2, mismatch = -3;
    const char *func = "striped16", *mname = "blosum62";
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (i + 1 >= argc)
            break;
        if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--func"))
            func = argv[++i];
        else if (!strcmp(argv[i], "--matrix"))
            mname = argv[++i];
        else if (!strcmp(argv[i], "--open"))
            open = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--extend"))
            extend = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dna")) {
            dna = 1;
            if (sscanf(argv[++i], "%d,%d", &match, &mismatch) != 2)
                return 2;
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: parasail_bench [options] QUERY.fa TARGET.fa\n");
        return 2;
    }
    size_t nq, nt;
    rec *q = read_fasta(argv[i], &nq, dna), *t = read_fasta(argv[i + 1], &nt, dna);
    parasail_matrix_t *own = NULL;
    const parasail_matrix_t *mx;
    if (dna) {
        /* ACGTN; N scores a mismatch against everything, as in hay. */
        own = parasail_matrix_create("ACGTN", match, mismatch);
        for (int a = 0; a < 5; a++)
            parasail_matrix_set_value(own, 4, a, mismatch),
            parasail_matrix_set_value(own, a, 4, mismatch);
        mx = own;
    } else if (!(mx = parasail_matrix_lookup(mname))) {
        mx = own = parasail_matrix_from_file(mname);
    }
    if (!mx) {
        fprintf(stderr, "unknown matrix %s\n", mname);
        return 2;
    }
    int s16 = !strcmp(func, "striped16"), scan = !strcmp(func, "scan32");
    long long checksum = 0, saturated = 0;
    uint64_t cells = 0;
    for (size_t a = 0; a < nq; a++)
        for (size_t b = 0; b < nt; b++)
            cells += (uint64_t)q[a].len * (uint64_t)t[b].len;
    double t0 = now();
    /* One profile per query, shared read-only by the threads (as hay does);
     * a 32-bit one is made for a pair only when 16 bits saturate. */
    parasail_profile_t **prof = calloc(nq, sizeof *prof);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (size_t a = 0; a < nq; a++)
        prof[a] = s16 ? parasail_profile_create_16(q[a].s, q[a].len, mx)
                      : parasail_profile_create_32(q[a].s, q[a].len, mx);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) \
    reduction(+ : checksum, saturated)
    for (size_t p = 0; p < nq * nt; p++) {
        size_t a = p / nt, b = p % nt;
        parasail_result_t *r;
        if (s16) {
            r = parasail_sw_striped_profile_16(prof[a], t[b].s, t[b].len, open,
                                               extend);
            if (parasail_result_is_saturated(r)) {
                parasail_result_free(r);
                saturated++;
                parasail_profile_t *pr =
                    parasail_profile_create_32(q[a].s, q[a].len, mx);
                r = parasail_sw_striped_profile_32(pr, t[b].s, t[b].len, open,
                                                   extend);
                parasail_profile_free(pr);
            }
        } else {
            r = scan ? parasail_sw_scan_profile_32(prof[a], t[b].s, t[b].len,
                                                   open, extend)
                     : parasail_sw_striped_profile_32(prof[a], t[b].s,
                                                      t[b].len, open, extend);
        }
        checksum += parasail_result_get_score(r);
        parasail_result_free(r);
    }
    for (size_t a = 0; a < nq; a++)
        parasail_profile_free(prof[a]);
    free(prof);
    double sec = now() - t0;
    printf("checksum: %lld\n", checksum);
    printf("stats: pairs=%zu cells=%llu seconds=%.6f gcups=%.3f threads=%d "
           "saturated16=%lld func=%s\n", nq * nt, (unsigned long long)cells,
           sec, sec > 0 ? (double)cells / sec * 1e-9 : 0.0, threads, saturated,
           func);
    if (own)
        parasail_matrix_free(own);
    for (size_t a = 0; a < nq; a++)
        free(q[a].s);
    for (size_t b = 0; b < nt; b++)
        free(t[b].s);
    free(q);
    free(t);
    return 0;
}
