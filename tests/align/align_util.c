/* align_util.c - see align_util.h. */
#include "align_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const au_case au_cases[] = {
    { "blosum62", 0, 0, 11, 1 }, { "blosum62", 0, 0, 5, 2 },
    { "blosum62", 0, 0, 1, 1 },  { "blosum62", 0, 0, 3, 0 },
    { "blosum45", 0, 0, 14, 2 }, { "blosum50", 0, 0, 13, 2 },
    { "blosum80", 0, 0, 10, 1 }, { "blosum90", 0, 0, 10, 1 },
    { "pam30", 0, 0, 9, 1 },     { "pam70", 0, 0, 10, 1 },
    { "pam250", 0, 0, 14, 2 },   { NULL, 2, -3, 5, 2 },
    { NULL, 1, -1, 2, 1 },       { NULL, 5, -4, 10, 1 },
    { NULL, 1, -3, 1, 1 },
};
const size_t au_ncases = sizeof au_cases / sizeof au_cases[0];

hay_align_scoring *au_make(const au_case *c)
{
    hay_align_scoring *s = NULL;
    hay_status st = c->matrix
        ? hay_align_scoring_builtin(c->matrix, c->open, c->extend, &s)
        : hay_align_scoring_dna(c->match, c->mismatch, c->open, c->extend, &s);
    if (st != HAY_OK) {
        fprintf(stderr, "scoring: %s\n", hay_strerror(st));
        exit(1);
    }
    return s;
}

void au_scoring_from(const hay_align_scoring *s, au_scoring *out)
{
    out->alpha = hay_align_scoring_alpha(s);
    for (int a = 0; a < out->alpha; a++)
        for (int b = 0; b < out->alpha; b++)
            out->buf[a * out->alpha + b] =
                hay_align_scoring_score(s, (uint8_t)a, (uint8_t)b);
    out->m = out->buf;
    hay_align_scoring_gaps(s, &out->open, &out->extend);
}

int64_t au_oracle(const au_scoring *s, const uint8_t *q, size_t m,
                  const uint8_t *t, size_t n, uint64_t *qe, uint64_t *te)
{
    const int64_t NEG = INT64_MIN / 4;
    size_t w = n + 1;
    int64_t *H = malloc((m + 1) * w * sizeof *H);
    int64_t *E = malloc((m + 1) * w * sizeof *E);
    int64_t *F = malloc((m + 1) * w * sizeof *F);
    if (!H || !E || !F) {
        fprintf(stderr, "oracle: out of memory\n");
        exit(1);
    }
    for (size_t j = 0; j <= n; j++) {
        H[j] = 0;
        E[j] = F[j] = NEG;
    }
    int64_t best = 0;
    *qe = *te = 0;
    for (size_t i = 1; i <= m; i++) {
        H[i * w] = 0;
        E[i * w] = F[i * w] = NEG;
        for (size_t j = 1; j <= n; j++) {
            int64_t e1 = E[i * w + j - 1] - s->extend;
            int64_t e2 = H[i * w + j - 1] - s->open;
            int64_t f1 = F[(i - 1) * w + j] - s->extend;
            int64_t f2 = H[(i - 1) * w + j] - s->open;
            int64_t e = e1 > e2 ? e1 : e2, f = f1 > f2 ? f1 : f2;
            int64_t h = H[(i - 1) * w + j - 1] +
                        s->m[q[i - 1] * s->alpha + t[j - 1]];
            if (e > h)
                h = e;
            if (f > h)
                h = f;
            if (h < 0)
                h = 0;
            H[i * w + j] = h;
            E[i * w + j] = e;
            F[i * w + j] = f;
            if (h > best) {
                best = h;
                *qe = i - 1;
                *te = j - 1;
            }
        }
    }
    free(H);
    free(E);
    free(F);
    return best;
}

int64_t au_rescore(const au_scoring *s, const uint8_t *q, size_t m,
                   const uint8_t *t, size_t n, uint64_t qs, uint64_t ts,
                   const char *cigar, uint64_t *qspan, uint64_t *tspan,
                   int *ok)
{
    *ok = 0;
    int64_t sc = 0;
    uint64_t i = qs, j = ts;
    char prev = 0;
    for (const char *c = cigar; *c;) {
        if (!isdigit((unsigned char)*c))
            return -1;
        uint64_t k = strtoull(c, (char **)&c, 10);
        char op = *c++;
        if (k == 0)
            return -1;
        for (uint64_t x = 0; x < k; x++) {
            if (op == '=' || op == 'X') {
                if (i >= m || j >= n || (op == '=') != (q[i] == t[j]))
                    return -1;
                sc += s->m[q[i] * s->alpha + t[j]];
                i++;
                j++;
            } else if (op == 'I' || op == 'D') {
                if (op == 'I' ? i >= m : j >= n)
                    return -1;
                sc -= (x == 0 && prev != op) ? s->open : s->extend;
                if (op == 'I')
                    i++;
                else
                    j++;
            } else {
                return -1;
            }
        }
        if (prev == op)
            return -1;               /* runs are maximal */
        prev = op;
    }
    *qspan = i - qs;
    *tspan = j - ts;
    *ok = 1;
    return sc;
}

int au_check_result(const au_scoring *s, const uint8_t *q, size_t m,
                    const uint8_t *t, size_t n, const hay_align_result *r,
                    int64_t want, uint64_t qe, uint64_t te, const char *what)
{
    int good = CHECK(r->score == want, "%s: score %d, want %lld", what,
                     (int)r->score, (long long)want);
    if (want == 0)
        return good && CHECK(r->cigar == NULL, "%s: CIGAR for score 0", what);
    good &= CHECK(r->q_end == qe && r->t_end == te,
                  "%s: end (%llu,%llu), want (%llu,%llu)", what,
                  (unsigned long long)r->q_end, (unsigned long long)r->t_end,
                  (unsigned long long)qe, (unsigned long long)te);
    if (!CHECK(r->cigar != NULL, "%s: no CIGAR", what))
        return 0;
    uint64_t qspan = 0, tspan = 0;
    int ok;
    int64_t sc = au_rescore(s, q, m, t, n, r->q_start, r->t_start, r->cigar,
                            &qspan, &tspan, &ok);
    good &= CHECK(ok, "%s: CIGAR %s invalid at (%llu,%llu)", what, r->cigar,
                  (unsigned long long)r->q_start,
                  (unsigned long long)r->t_start);
    good &= CHECK(!ok || sc == want, "%s: CIGAR rescores to %lld, want %lld",
                  what, (long long)sc, (long long)want);
    good &= CHECK(!ok || (r->q_start + qspan == r->q_end + 1 &&
                          r->t_start + tspan == r->t_end + 1),
                  "%s: CIGAR spans do not match the coordinates", what);
    good &= CHECK(r->length == r->matches + r->mismatches + r->gaps,
                  "%s: counts do not add up", what);
    return good;
}

void au_make_pair(tu_rng *r, int alpha, uint8_t *q, size_t m, uint8_t *t,
                  size_t n, int related)
{
    for (size_t i = 0; i < m; i++)
        q[i] = (uint8_t)tu_below(r, (uint64_t)alpha);
    size_t k = 0;
    if (related)
        for (size_t i = 0; i < m && k < n;) {
            uint64_t x = tu_below(r, 1000);
            if (x < 8) {
                i += (size_t)tu_range(r, 1, 40);             /* gap in t */
            } else if (x < 16) {
                for (size_t g = (size_t)tu_range(r, 1, 40); g && k < n; g--)
                    t[k++] = (uint8_t)tu_below(r, (uint64_t)alpha);
            } else {
                t[k++] = x < 120 ? (uint8_t)tu_below(r, (uint64_t)alpha) : q[i];
                i++;
            }
        }
    while (k < n)
        t[k++] = (uint8_t)tu_below(r, (uint64_t)alpha);
}

/* The records of a FASTA file end to end, at most cap residues, as codes
 * (NULL: unreadable). */
static uint8_t *records(const hay_align_scoring *s, const char *path,
                        size_t cap, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = malloc(cap), line[4096];
    size_t k = 0;
    while (buf && k < cap && fgets(line, sizeof line, f))
        for (char *p = line; line[0] != '>' && *p && k < cap; p++)
            if (*p != '\n' && *p != '\r')
                buf[k++] = *p;
    fclose(f);
    uint8_t *codes = buf && k ? malloc(k) : NULL;
    if (codes && hay_align_encode(s, buf, k, codes, NULL) != HAY_OK) {
        free(codes);
        codes = NULL;
    }
    free(buf);
    *len = k;
    return codes;
}

int au_have_pairs(const char *dir)
{
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/bio/dna-pairs/MT-human.fa", dir);
    FILE *f = fopen(probe, "r");
    if (!f) {
        printf("SKIP the real pairs: no %s\n", probe);
        return 0;
    }
    fclose(f);
    return 1;
}

int au_read_pair(const hay_align_scoring *s, const char *dir, const char *a,
                 const char *b, size_t cap, uint8_t **q, size_t *m,
                 uint8_t **t, size_t *n)
{
    char pa[1024], pb[1024];
    snprintf(pa, sizeof pa, "%s/bio/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/bio/%s", dir, b);
    *q = records(s, pa, cap, m);
    *t = records(s, pb, cap, n);
    if (CHECK(*q && *t && *m > 0 && *n > 0, "cannot read %s or %s", pa, pb))
        return 1;
    free(*q);
    free(*t);
    *q = *t = NULL;
    return 0;
}

hay_align_db *au_load_db(const hay_align_scoring *s, const char *path)
{
    size_t n;
    uint8_t *text = tu_read_file(path, &n);
    if (!text)
        return NULL;
    hay_align_db *db = NULL;
    char msg[256];
    hay_status st = hay_align_db_from_fasta(s, text, n, &db, msg, sizeof msg);
    CHECK(st == HAY_OK, "%s: %s", path, msg);
    free(text);
    return db;
}

static int by_len(const void *a, const void *b)
{
    const hay_align_seq *x = a, *y = b;
    return x->len < y->len ? -1 : x->len > y->len;
}

int au_bio_open(const hay_align_scoring *s, const char *dir, au_bio *b)
{
    static const char *const names[3] = {
        "queries_24-5478aa.fasta", "sprot196.fasta", "ecoli_k12_proteome.faa"
    };
    hay_align_db **dbs[3] = { &b->queries, &b->sprot, &b->ecoli };
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/bio/protein/%s", dir, names[i]);
        *dbs[i] = au_load_db(s, path);
    }
    if (!b->queries || !b->sprot || !b->ecoli) {
        printf("SKIP bio sets: no data at %s/bio\n", dir);
        au_bio_close(b);
        return 0;
    }
    hay_align_db_info qi;
    hay_align_db_info_get(b->queries, &qi);
    b->nq = qi.sequences < 64 ? (size_t)qi.sequences : 64;
    for (size_t j = 0; j < b->nq; j++)
        hay_align_db_seq(b->queries, (uint32_t)j, NULL, &b->qs[j].codes,
                         &b->qs[j].len);
    qsort(b->qs, b->nq, sizeof *b->qs, by_len);
    return 1;
}

void au_bio_close(au_bio *b)
{
    hay_align_db_free(b->queries);
    hay_align_db_free(b->sprot);
    hay_align_db_free(b->ecoli);
    memset(b, 0, sizeof *b);
}
