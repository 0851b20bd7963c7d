/*
 * align_print.c - the writers of `hay align` (align.h): tsv, blast6 with
 * BLAST's number formats, json, pair (EMBOSS water's layout), SAM; shared
 * by the all-pairs path (align.c) and the database search (align_db.c).
 */
#include "align.h"
#include "cli.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The aligned part's first and last query residue (0-based) on the query as
 * given; the first needs a start (not score-only). */
static uint64_t hit_q_lo(const hit *h)
{
    return h->minus ? (uint64_t)h->q->len - 1 - h->r->q_end : h->r->q_start;
}

static uint64_t hit_q_hi(const hit *h)
{
    return h->minus ? (uint64_t)h->q->len - 1 - h->r->q_start : h->r->q_end;
}

/* E-value and bit score as BLAST+ 2.12 prints them in tabular output. */
static void blast_evalue(char *buf, size_t cap, double e)
{
    if (e < 1.0e-180)
        snprintf(buf, cap, "0.0");
    else if (e < 0.0009)
        snprintf(buf, cap, "%.2e", e);
    else if (e < 0.1)
        snprintf(buf, cap, "%.3f", e);
    else if (e < 1.0)
        snprintf(buf, cap, "%.2f", e);
    else if (e < 10.0)
        snprintf(buf, cap, "%.1f", e);
    else
        snprintf(buf, cap, "%.0f", e);
}

static void blast_bits(char *buf, size_t cap, double b)
{
    if (b > 99.9)
        snprintf(buf, cap, "%ld", (long)b);
    else
        snprintf(buf, cap, "%.1f", b);
}

void print_tsv(const seq_rec *t, const hit *h)
{
    const hay_align_result *r = h->r;
    printf("%s\t%s\t%d\t", h->q->id, t->id, (int)r->score);
    if (r->score == 0) {
        printf("*\t*\t*\t*\t*\t*\t*\t%c\n", h->minus ? '-' : '+');
        return;
    }
    if (r->cigar)
        printf("%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s",
               hit_q_lo(h) + 1, hit_q_hi(h) + 1, r->t_start + 1, r->t_end + 1,
               r->cigar);
    else if (h->minus)      /* the aligned end is the given query's start */
        printf("%" PRIu64 "\t*\t*\t%" PRIu64 "\t*", hit_q_lo(h) + 1,
               r->t_end + 1);
    else
        printf("*\t%" PRIu64 "\t*\t%" PRIu64 "\t*", r->q_end + 1,
               r->t_end + 1);
    if (h->have_stats)
        printf("\t%.3g\t%.1f", h->evalue, h->bits);
    else
        printf("\t*\t*");
    printf("\t%c\n", h->minus ? '-' : '+');
}

void print_blast6(const seq_rec *t, const hit *h)
{
    const hay_align_result *r = h->r;
    if (r->score == 0)
        return;
    char e[32] = "*", b[32] = "*";
    if (h->have_stats) {
        blast_evalue(e, sizeof e, h->evalue);
        blast_bits(b, sizeof b, h->bits);
    }
    /* blastn's convention: the query runs forward, the subject backward on
     * the minus strand. */
    uint64_t s0 = r->t_start + 1, s1 = r->t_end + 1;
    printf("%s\t%s\t%.3f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
           "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\n",
           h->q->id, t->id, 100.0 * (double)r->matches / (double)r->length,
           r->length, r->mismatches, r->gap_opens, hit_q_lo(h) + 1,
           hit_q_hi(h) + 1, h->minus ? s1 : s0, h->minus ? s0 : s1, e, b);
}

void print_json(const seq_rec *t, const hit *h, int *first)
{
    const hay_align_result *r = h->r;
    printf("%s\n    {\"query\": ", *first ? "" : ",");
    *first = 0;
    cli_json_string(h->q->id);
    printf(", \"target\": ");
    cli_json_string(t->id);
    printf(", \"query_length\": %zu, \"target_length\": %zu, \"score\": %d",
           h->q->len, t->len, (int)r->score);
    if (r->score == 0) {
        printf("}");
        return;
    }
    if (h->have_stats)
        printf(", \"evalue\": %.3g, \"bitscore\": %.1f", h->evalue, h->bits);
    printf(", \"strand\": \"%c\"", h->minus ? '-' : '+');
    if (h->minus)
        printf(", \"query_start\": %" PRIu64, hit_q_lo(h) + 1);
    else
        printf(", \"query_end\": %" PRIu64, r->q_end + 1);
    printf(", \"target_end\": %" PRIu64, r->t_end + 1);
    if (r->cigar)
        printf(", \"%s\": %" PRIu64 ", \"target_start\": %" PRIu64
               ", \"cigar\": \"%s\", \"length\": %" PRIu64 ", \"matches\": %"
               PRIu64 ", \"mismatches\": %" PRIu64 ", \"positives\": %" PRIu64
               ", \"gap_opens\": %" PRIu64 ", \"gaps\": %" PRIu64
               ", \"identity\": %.4f",
               h->minus ? "query_end" : "query_start",
               (h->minus ? hit_q_hi(h) : r->q_start) + 1, r->t_start + 1,
               r->cigar, r->length, r->matches, r->mismatches, r->positives,
               r->gap_opens, r->gaps, (double)r->matches / (double)r->length);
    printf("}");
}

/* One ops column at a time from a CIGAR. */
typedef struct cig_it {
    const char *p;
    uint64_t left;
    char op;
} cig_it;

static char cig_next(cig_it *it)
{
    while (it->left == 0) {
        if (!*it->p)
            return 0;
        it->left = strtoull(it->p, (char **)&it->p, 10);
        it->op = *it->p++;
    }
    it->left--;
    return it->op;
}

void print_pair(const aconfig *cf, const hay_align_scoring *s,
                const seq_rec *q, const seq_rec *t,
                const hay_align_seq *qc, const hay_align_seq *tc,
                const hay_align_result *r, int minus)
{
    int32_t open, ext;
    hay_align_scoring_gaps(s, &open, &ext);
    printf("########################################\n"
           "# Program: hay align\n"
           "# Aligned_sequences: 2\n"
           "# 1: %s\n# 2: %s\n", q->id, t->id);
    if (minus)
        printf("# Strand: minus (1 is the query's reverse complement)\n");
    if (hay_align_scoring_is_dna(s))
        printf("# Matrix: match %d, mismatch %d\n", (int)cf->match,
               (int)cf->mismatch);
    else
        printf("# Matrix: %s\n", hay_align_scoring_name(s));
    printf("# Gap_penalty: %d\n# Extend_penalty: %d\n#\n", (int)open, (int)ext);
    uint64_t len = r->score ? r->length : 0;
    double d = len ? (double)len : 1.0;
    printf("# Length: %" PRIu64 "\n", len);
    printf("# Identity:   %7" PRIu64 "/%" PRIu64 " (%5.1f%%)\n", r->matches,
           len, 100.0 * (double)r->matches / d);
    printf("# Similarity: %7" PRIu64 "/%" PRIu64 " (%5.1f%%)\n", r->positives,
           len, 100.0 * (double)r->positives / d);
    printf("# Gaps:       %7" PRIu64 "/%" PRIu64 " (%5.1f%%)\n", r->gaps, len,
           100.0 * (double)r->gaps / d);
    printf("# Score: %d\n#\n#\n#=======================================\n\n",
           (int)r->score);
    if (r->score > 0) {
        enum { W = 50 };
        char la[W + 1], lm[W + 1], lb[W + 1];
        cig_it it = { r->cigar, 0, 0 };
        uint64_t i = r->q_start, j = r->t_start;
        for (uint64_t col = 0; col < r->length;) {
            uint64_t i0 = i, j0 = j;
            int k = 0;
            for (; k < W && col < r->length; k++, col++) {
                char op = cig_next(&it);
                char a = '-', b = '-', mk = ' ';
                if (op != 'D')
                    a = (char)toupper((unsigned char)q->seq[i]);
                if (op != 'I')
                    b = (char)toupper((unsigned char)t->seq[j]);
                if (op == '=')
                    mk = '|';
                else if (op == 'X')
                    mk = hay_align_scoring_score(s, qc->codes[i],
                                                 tc->codes[j]) > 0 ? ':' : '.';
                if (op != 'D')
                    i++;
                if (op != 'I')
                    j++;
                la[k] = a;
                lm[k] = mk;
                lb[k] = b;
            }
            la[k] = lm[k] = lb[k] = 0;
            printf("%-13.13s %6" PRIu64 " %s %6" PRIu64 "\n", q->id,
                   i > i0 ? i0 + 1 : i0, la, i);
            printf("%-13s %6s %s\n", "", "", lm);
            printf("%-13.13s %6" PRIu64 " %s %6" PRIu64 "\n\n", t->id,
                   j > j0 ? j0 + 1 : j0, lb, j);
        }
    }
    printf("\n#---------------------------------------\n");
}

static int sam_seq_ok(const seq_rec *q)
{
    for (size_t i = 0; i < q->len; i++)
        if (!isalpha((unsigned char)q->seq[i]))
            return 0;
    return 1;
}

void print_sam_record(const seq_rec *q, const seq_rec *t,
                      const hay_align_result *r, int flag)
{
    printf("%s\t%d\t", q->id, flag);
    if (!r) {
        printf("*\t0\t0\t*\t*\t0\t0\t");
    } else {
        printf("%s\t%" PRIu64 "\t255\t", t->id, r->t_start + 1);
        if (r->q_start)
            printf("%" PRIu64 "S", r->q_start);
        printf("%s", r->cigar);
        if (r->q_end + 1 < q->len)
            printf("%" PRIu64 "S", (uint64_t)q->len - r->q_end - 1);
        printf("\t*\t0\t0\t");
    }
    if (sam_seq_ok(q))
        printf("%s\t%s", q->seq, q->qual ? q->qual : "*");
    else
        printf("*\t*");
    if (r)
        printf("\tAS:i:%d\tNM:i:%" PRIu64, (int)r->score,
               r->mismatches + r->gaps);
    putchar('\n');
}

void print_sam_header(const aconfig *cf, const seq_file *tf)
{
    printf("@HD\tVN:1.6\tSO:unsorted\n");
    for (size_t i = 0; i < tf->n; i++)
        printf("@SQ\tSN:%s\tLN:%zu\n", tf->recs[i].id, tf->recs[i].len);
    print_sam_pg(cf);
}

void print_sam_pg(const aconfig *cf)
{
    printf("@PG\tID:hay\tPN:hay\tVN:%s", hay_version());
    if (cf->command_line)
        printf("\tCL:%s", cf->command_line);
    printf("\n");
}

void print_json_head(const aconfig *cf, const hay_align_scoring *s,
                     int fitted, const hay_align_stats *st,
                     uint64_t db_residues, uint64_t db_sequences)
{
    printf("{\"program\": \"hay align\", \"version\": \"%s\", \"scoring\": "
           "{", hay_version());
    if (hay_align_scoring_is_dna(s))
        printf("\"match\": %d, \"mismatch\": %d", (int)cf->match,
               (int)cf->mismatch);
    else {
        printf("\"matrix\": ");
        cli_json_string(hay_align_scoring_name(s));
    }
    printf(", \"gap_open\": %d, \"gap_extend\": %d},\n", (int)cf->open,
           (int)cf->extend);
    if (fitted) {
        printf(" \"statistics\": {\"fitted_per_query\": true, "
               "\"db_residues\": %" PRIu64 ", \"db_sequences\": %" PRIu64
               ", \"source\": \"lambda and K fitted to each query's scores "
               "(maximum likelihood Gumbel with length correction, as "
               "ssearch does)\"},\n", db_residues, db_sequences);
    } else if (st) {
        printf(" \"statistics\": {\"lambda\": %.6g, \"K\": %.6g, \"H\": "
               "%.6g, \"alpha\": %.6g, \"beta\": %.6g, \"db_residues\": %"
               PRIu64 ", \"db_sequences\": %" PRIu64 ", \"source\": ",
               st->lambda, st->K, st->H, st->alpha, st->beta, db_residues,
               db_sequences);
        cli_json_string(st->source);
        printf("},\n");
    }
    printf(" \"alignments\": [");
}

/* ------------------------------------------------------------------------
 * The command
 * ---------------------------------------------------------------------- */

