/*
 * parasail.c - hay's scores against parasail's (Debian libparasail-dev) on
 * the real data of ../shared/data/bio:
 *   every query of protein/queries_24-5478aa.fasta against every record of
 *   protein/sprot196.fasta, BLOSUM62 11/1 (and a subset with the matrix
 *   files BLOSUM45, PAM30 read by both programs, other gaps);
 *   the mitochondrial pair and the H. pylori B pair (DNA 2/-3, 5/2), and
 *   the 275 kb E pair when HAY_TEST_SCALE >= 4;
 *   the mitochondrial pair's full traceback, rescored from its CIGAR.
 * parasail runs its striped 16-bit profile functions, redone with 32 bits
 * when saturated.  Skips (77) without parasail or without the data.
 * Usage: test_align_parasail DATA_DIR
 */
#include "align_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAY_HAVE_PARASAIL
int main(void)
{
    printf("SKIP: built without parasail (install libparasail-dev)\n");
    return TU_SKIP;
}
#else
#include <parasail.h>

typedef struct seq {
    char *s;
    size_t len;
} seq;

static seq *read_fasta(const char *path, size_t *n, int upper_dna)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    seq *r = NULL;
    size_t cnt = 0, cap = 0, scap = 0;
    char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>') {
            if (cnt == cap) {
                cap = cap ? cap * 2 : 64;
                r = realloc(r, cap * sizeof *r);
            }
            r[cnt++] = (seq){ NULL, 0 };
            scap = 0;
            continue;
        }
        seq *x = &r[cnt - 1];
        for (char *c = line; *c; c++) {
            if (isspace((unsigned char)*c))
                continue;
            if (x->len + 2 > scap) {
                scap = scap ? scap * 2 : 4096;
                x->s = realloc(x->s, scap);
            }
            char ch = (char)toupper((unsigned char)*c);
            if (upper_dna && !strchr("ACGT", ch))
                ch = 'N';
            x->s[x->len++] = ch;
            x->s[x->len] = 0;
        }
    }
    fclose(f);
    *n = cnt;
    return r;
}

static void free_seqs(seq *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].s);
    free(s);
}

static int parasail_score(const seq *q, const seq *t, int open, int ext,
                          const parasail_matrix_t *mx)
{
    parasail_profile_t *p = parasail_profile_create_16(q->s, (int)q->len, mx);
    parasail_result_t *r =
        parasail_sw_striped_profile_16(p, t->s, (int)t->len, open, ext);
    parasail_profile_free(p);
    if (parasail_result_is_saturated(r)) {
        parasail_result_free(r);
        p = parasail_profile_create_32(q->s, (int)q->len, mx);
        r = parasail_sw_striped_profile_32(p, t->s, (int)t->len, open, ext);
        parasail_profile_free(p);
    }
    int sc = parasail_result_get_score(r);
    parasail_result_free(r);
    return sc;
}

static uint8_t *encode(const hay_align_scoring *s, const seq *x)
{
    uint8_t *c = malloc(x->len);
    size_t bad = 0;
    hay_status st = hay_align_encode(s, x->s, x->len, c, &bad);
    CHECK(st == HAY_OK, "encode: residue '%c' at %zu", x->s[bad], bad);
    return c;
}

/* Every query against every target: hay (batch, 2 threads) vs parasail. */
static void compare_all(const char *what, const hay_align_scoring *s,
                        const parasail_matrix_t *mx, const seq *qs, size_t nq,
                        const seq *ts, size_t nt)
{
    int32_t open, ext;
    hay_align_scoring_gaps(s, &open, &ext);
    hay_align_seq *hq = calloc(nq, sizeof *hq), *ht = calloc(nt, sizeof *ht);
    for (size_t i = 0; i < nq; i++)
        hq[i] = (hay_align_seq){ encode(s, &qs[i]), qs[i].len };
    for (size_t j = 0; j < nt; j++)
        ht[j] = (hay_align_seq){ encode(s, &ts[j]), ts[j].len };
    hay_align_result *res = calloc(nq * nt, sizeof *res);
    hay_align_options o;
    hay_align_options_init(&o);
    o.score_only = 1;
    o.threads = 2;
    CHECK_ST(hay_align_batch(s, hq, nq, ht, nt, &o, res), HAY_OK, what);
    size_t bad = 0;
    int *ps = calloc(nq * nt, sizeof *ps);
#pragma omp parallel for schedule(dynamic, 1) num_threads(2)
    for (size_t p = 0; p < nq * nt; p++)
        ps[p] = parasail_score(&qs[p / nt], &ts[p % nt], open, ext, mx);
    for (size_t p = 0; p < nq * nt; p++)
        if (!CHECK(res[p].score == ps[p], "%s: query %zu target %zu: hay %d, "
                   "parasail %d", what, p / nt, p % nt, (int)res[p].score,
                   ps[p]))
            bad++;
    printf("%s: %zu pairs, %zu differ\n", what, nq * nt, bad);
    free(ps);
    for (size_t i = 0; i < nq; i++)
        free((void *)hq[i].codes);
    for (size_t j = 0; j < nt; j++)
        free((void *)ht[j].codes);
    free(hq);
    free(ht);
    free(res);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    *len = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

static void dna_pair(const char *dir, const char *a, const char *b,
                     int traceback)
{
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/bio/dna-pairs/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/bio/dna-pairs/%s", dir, b);
    size_t na, nb;
    seq *x = read_fasta(pa, &na, 1), *y = read_fasta(pb, &nb, 1);
    if (!CHECK(x && y && na == 1 && nb == 1, "reading %s, %s", a, b))
        return;
    hay_align_scoring *s;
    hay_align_scoring_dna(2, -3, 5, 2, &s);
    parasail_matrix_t *mx = parasail_matrix_create("ACGTN", 2, -3);
    for (int k = 0; k < 5; k++) {
        parasail_matrix_set_value(mx, 4, k, -3);
        parasail_matrix_set_value(mx, k, 4, -3);
    }
    char what[256];
    snprintf(what, sizeof what, "%s x %s (%zu x %zu)", a, b, x->len, y->len);
    compare_all(what, s, mx, x, 1, y, 1);
    if (traceback) {
        uint8_t *q = encode(s, x), *t = encode(s, y);
        hay_align_options o;
        hay_align_options_init(&o);
        hay_align_result r;
        CHECK_ST(hay_align_pair(s, q, x->len, t, y->len, &o, &r), HAY_OK, what);
        au_scoring as;
        au_scoring_from(s, &as);
        int64_t want = parasail_score(x, y, 5, 2, mx);
        au_check_result(&as, q, x->len, t, y->len, &r, want, r.q_end, r.t_end,
                        what);
        printf("%s: traceback score %d, query %llu-%llu, target %llu-%llu, "
               "%s space\n", what, (int)r.score,
               (unsigned long long)r.q_start + 1,
               (unsigned long long)r.q_end + 1,
               (unsigned long long)r.t_start + 1,
               (unsigned long long)r.t_end + 1,
               (r.flags & HAY_ALIGN_LINEAR) ? "linear" : "full-matrix");
        hay_align_result_clear(&r);
        free(q);
        free(t);
    }
    parasail_matrix_free(mx);
    hay_align_scoring_free(s);
    free_seqs(x, na);
    free_seqs(y, nb);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/data";
    char pq[4096], pt[4096], pm[4096];
    snprintf(pq, sizeof pq, "%s/bio/protein/queries_24-5478aa.fasta", dir);
    snprintf(pt, sizeof pt, "%s/bio/protein/sprot196.fasta", dir);
    size_t nq, nt;
    seq *qs = read_fasta(pq, &nq, 0), *ts = read_fasta(pt, &nt, 0);
    if (!qs || !ts) {
        printf("SKIP: no data at %s/bio (see ../shared/data/README.md)\n", dir);
        return TU_SKIP;
    }

    /* 1. Built-in BLOSUM62 against parasail's: the same numbers first. */
    hay_align_scoring *s;
    hay_align_scoring_builtin("blosum62", 11, 1, &s);
    const parasail_matrix_t *pb = parasail_matrix_lookup("blosum62");
    const char *L = hay_align_scoring_letters(s);
    int same = 1;
    for (int a = 0; L[a]; a++)
        for (int b = 0; L[b]; b++)
            if (pb->matrix[pb->mapper[(unsigned char)L[a]] * pb->size +
                           pb->mapper[(unsigned char)L[b]]] !=
                hay_align_scoring_score(s, (uint8_t)a, (uint8_t)b))
                same = 0;
    CHECK(same, "built-in BLOSUM62 differs from parasail's blosum62");
    /* Under a sanitizer (scale < 1) the longest queries are left out. */
    size_t nq_all = tu_scale() < 1 ? nq / 2 : nq;
    char what0[128];
    snprintf(what0, sizeof what0, "%zu queries x sprot196, BLOSUM62 11/1",
             nq_all);
    compare_all(what0, s, pb, qs, nq_all, ts, nt);
    hay_align_scoring_free(s);

    /* 2. Matrix files, read by both, other gap penalties. */
    static const struct { const char *file; int open, ext; } files[] = {
        { "BLOSUM45", 14, 2 }, { "PAM30", 9, 1 }, { "BLOSUM62", 10, 1 },
    };
    size_t sub = nq < 6 ? nq : 6;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        snprintf(pm, sizeof pm, "%s/bio/matrices/%s", dir, files[f].file);
        size_t len = 0, line = 0;
        char *text = slurp(pm, &len);
        if (!CHECK(text != NULL, "reading %s", pm))
            continue;
        CHECK_ST(hay_align_scoring_parse(text, len, files[f].file,
                                         files[f].open, files[f].ext, &s,
                                         &line), HAY_OK, pm);
        free(text);
        parasail_matrix_t *mx = parasail_matrix_from_file(pm);
        char what[256];
        snprintf(what, sizeof what, "%zu queries x sprot196, %s file %d/%d",
                 sub, files[f].file, files[f].open, files[f].ext);
        if (CHECK(mx != NULL && s != NULL, "parasail reading %s", pm))
            compare_all(what, s, mx, qs, sub, ts, nt);
        parasail_matrix_free(mx);
        hay_align_scoring_free(s);
    }
    free_seqs(qs, nq);
    free_seqs(ts, nt);

    /* 3. DNA pairs. */
    dna_pair(dir, "MT-human.fa", "MT-orang.fa", 1);
    if (tu_scale() >= 1)
        dna_pair(dir, "H_pylori26695_Bslice.fasta", "H_pyloriJ99_Bslice.fasta",
                 0);
    if (tu_scale() >= 4)
        dna_pair(dir, "H_pylori26695_Eslice.fasta", "H_pyloriJ99_Eslice.fasta",
                 0);
    else
        printf("H. pylori E pair (73 G cells): only with HAY_TEST_SCALE >= 4\n");
    return tu_finish();
}
#endif
