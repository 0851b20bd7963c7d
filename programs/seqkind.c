/*
 * seqkind.c - DNA or protein: telling the sequences' kind (hay align's
 * default scoring, hay db build's alphabet) and refusing sequences of the
 * other kind than the scoring's, as BLAST refuses mixed alphabets.
 */
#include "align.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Below this many residues a sequence is too short to tell. */
enum { KIND_MIN_RESIDUES = 20 };

typedef struct kind_count {
    uint64_t all, plain;  /* residues; of them A, C, G, T, U or N */
    int other;            /* a residue that is no nucleotide letter */
} kind_count;

/* A residue byte: 2 for A, C, G, T, U or N, 1 for another IUPAC nucleotide
 * code, 0 for anything else, either case.  (A table, not toupper and
 * strchr: this runs on every residue of a database, twice; 1.3 M residues
 * for the E. coli proteome, 14-26 ms a pass with strchr, 0.7 ms so.) */
static const unsigned char nucleotide[256] = {
    ['A'] = 2, ['C'] = 2, ['G'] = 2, ['T'] = 2, ['U'] = 2, ['N'] = 2,
    ['a'] = 2, ['c'] = 2, ['g'] = 2, ['t'] = 2, ['u'] = 2, ['n'] = 2,
    ['R'] = 1, ['Y'] = 1, ['S'] = 1, ['W'] = 1, ['K'] = 1, ['M'] = 1,
    ['B'] = 1, ['D'] = 1, ['H'] = 1, ['V'] = 1,
    ['r'] = 1, ['y'] = 1, ['s'] = 1, ['w'] = 1, ['k'] = 1, ['m'] = 1,
    ['b'] = 1, ['d'] = 1, ['h'] = 1, ['v'] = 1,
};

static void count(kind_count *k, const seq_rec *r)
{
    uint64_t plain = 0;
    int other = 0;
    for (size_t j = 0; j < r->len; j++) {
        int v = nucleotide[(unsigned char)r->seq[j]];
        other |= v == 0;
        plain += v == 2;
    }
    k->all += r->len;
    k->plain += plain;
    k->other |= other;
}

/* DNA when every residue is a nucleotide letter (IUPAC codes included) and
 * at least 90% are A, C, G, T, U or N: a peptide such as "MKVHW" is made of
 * IUPAC letters too. */
static int count_dna(const kind_count *k)
{
    return !k->other && k->plain * 10 >= k->all * 9;
}

int looks_dna(const seq_file *a, const seq_file *b)
{
    kind_count k = { 0, 0, 0 };
    for (size_t i = 0; i < a->n; i++)
        count(&k, &a->recs[i]);
    if (b != a)
        for (size_t i = 0; i < b->n; i++)
            count(&k, &b->recs[i]);
    return count_dna(&k);
}

/* A nucleotide scoring: the DNA one, or a matrix whose letters are all
 * nucleotide codes (NCBI's NUC.4.4, say). */
static int scoring_dna(const hay_align_scoring *s)
{
    if (hay_align_scoring_is_dna(s))
        return 1;
    for (const char *l = hay_align_scoring_letters(s); *l; l++)
        if (*l != '*' &&
            !strchr("ACGTUNRYSWKMBDHVX", toupper((unsigned char)*l)))
            return 0;
    return 1;
}

int check_kind(const aconfig *cf, const hay_align_scoring *s,
               const seq_file *f, const char *path, const char *role)
{
    int dna = scoring_dna(s);
    const seq_rec *first = NULL;
    size_t wrong = 0;
    kind_count all = { 0, 0, 0 };
    for (size_t i = 0; i < f->n; i++) {
        kind_count k = { 0, 0, 0 };
        count(&k, &f->recs[i]);
        all.all += k.all;
        all.plain += k.plain;
        all.other |= k.other;
        if (k.all >= KIND_MIN_RESIDUES && count_dna(&k) != dna) {
            first = first ? first : &f->recs[i];
            wrong++;
        }
    }
    /* Many short reads tell their kind together. */
    int whole = !first && all.all >= KIND_MIN_RESIDUES &&
                count_dna(&all) != dna;
    if (!first && !whole)
        return 0;
    const char *other = dna ? "protein" : "DNA";
    fprintf(stderr, "hay align: %s%s: ", cf->force ? "warning: " : "", path);
    if (first)
        fprintf(stderr, "%s '%s'", role, first->id);
    else
        fprintf(stderr, "the %s sequences", role);
    if (wrong > 1)
        fprintf(stderr, " (and %zu more)", wrong - 1);
    fprintf(stderr, " look%s like %s", first && wrong == 1 ? "s" : "", other);
    fprintf(stderr, " but the scoring (%s) is for %s",
            hay_align_scoring_name(s), dna ? "DNA" : "protein");
    if (cf->force) {
        fprintf(stderr, "; aligned as asked (--force)\n");
        return 0;
    }
    fprintf(stderr, "; mixed alphabets are refused, as BLAST does "
            "(--force aligns them anyway)\n");
    return -1;
}
