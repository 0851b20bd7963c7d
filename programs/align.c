/*
 * align.c - `hay align`: Smith-Waterman local alignment of every query
 * against every target (FASTA or FASTQ, gzipped or not), printed as
 * pairwise text, SAM, BLAST tabular, JSON or TSV.  Only the public API
 * (haystack_align.h) is used.
 */
#include "align.h"
#include "cli.h"

#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_align(FILE *f)
{
    fputs(
"Usage: hay align [OPTION]... QUERY TARGET\n"
"Smith-Waterman local alignment (affine gaps) of every sequence of QUERY\n"
"against every sequence of TARGET.  FASTA or FASTQ, gzipped or not; '-' is\n"
"standard input.  Scores and alignments are exact.\n"
"\n"
"Scoring:\n"
"      --dna, --protein      the sequences' kind (default: detected: DNA when\n"
"                            every residue is a nucleotide letter and 90%\n"
"                            are A, C, G, T, U or N)\n"
"      --matrix NAME|FILE    substitution matrix: a built-in name (blosum62,\n"
"                            blosum45, blosum50, blosum80, blosum90, pam30,\n"
"                            pam70, pam250) or an NCBI-format file\n"
"                            (protein default: blosum62)\n"
"      --match N, --mismatch N\n"
"                            DNA scores (default 2 and -3; N and the IUPAC\n"
"                            ambiguity letters score as mismatches)\n"
"      --gap-open N          cost of a gap's first residue (protein 11, DNA 5)\n"
"      --gap-extend N        cost of each further residue (protein 1, DNA 2)\n"
"                            A gap of k costs open + (k-1) x extend; BLAST's\n"
"                            existence E, extension X are open E+X, extend X.\n"
"\n"
"Output:\n"
"  -f, --format FMT          tsv (default): query, target, score, query start,\n"
"                              query end, target start, target end (1-based,\n"
"                              inclusive), CIGAR (=/X/I/D; '*' when none)\n"
"                            pair: pairwise text like EMBOSS water\n"
"                            sam: SAM (targets are the references; the best\n"
"                              target of a query is primary, others secondary)\n"
"                            blast6: BLAST tabular (-outfmt 6) columns; evalue\n"
"                              is '*' (not computed), bitscore holds the raw score\n"
"                            json: one JSON document\n"
"      --score-only          score and end cells only: no start, no CIGAR\n"
"                            (tsv and json only)\n"
"      --stats               timing, cells and GCUPS on standard error\n"
"\n"
"Engine:\n"
"      --backend NAME        cpu (default), cuda, opencl: where the score pass\n"
"                            runs (the traceback runs on the CPU)\n"
"      --variant NAME        scalar, striped16, striped32, striped16_sse2, ...\n"
"                            (default auto: striped16); see --list\n"
"  -j, --threads N           threads over pairs (default: all cores)\n"
"      --traceback-mem SIZE  memory for a full direction matrix (default 64M);\n"
"                            longer alignments are traced in linear space\n"
"      --list                list the variants and built-in matrices\n"
"\n"
"Database search (TARGET a database of 'hay db build', or FASTA with\n"
"--top or --min-score): the best hits of each query, by score, then by the\n"
"targets' order in the database's FASTA; alignments for those hits only.\n"
"      --top K               hits kept per query (default 50)\n"
"      --min-score N         only hits scoring at least N\n"
"  -h, --help                this help\n"
"\n"
"Exit status: 0 done, 2 bad input or usage.\n", f);
}

enum {
    O_MATRIX = 256, O_OPEN, O_EXTEND, O_MATCH, O_MISMATCH, O_DNA, O_PROTEIN,
    O_SCORE_ONLY, O_BACKEND, O_VARIANT, O_STATS, O_TBMEM, O_LIST, O_TOP,
    O_MIN_SCORE
};

static const struct option align_opts[] = {
    { "matrix", required_argument, NULL, O_MATRIX },
    { "gap-open", required_argument, NULL, O_OPEN },
    { "gap-extend", required_argument, NULL, O_EXTEND },
    { "match", required_argument, NULL, O_MATCH },
    { "mismatch", required_argument, NULL, O_MISMATCH },
    { "dna", no_argument, NULL, O_DNA },
    { "protein", no_argument, NULL, O_PROTEIN },
    { "score-only", no_argument, NULL, O_SCORE_ONLY },
    { "backend", required_argument, NULL, O_BACKEND },
    { "variant", required_argument, NULL, O_VARIANT },
    { "stats", no_argument, NULL, O_STATS },
    { "traceback-mem", required_argument, NULL, O_TBMEM },
    { "list", no_argument, NULL, O_LIST },
    { "top", required_argument, NULL, O_TOP },
    { "min-score", required_argument, NULL, O_MIN_SCORE },
    { "format", required_argument, NULL, 'f' },
    { "threads", required_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

static int parse_int(const char *s, const char *what, int32_t lo, int32_t hi,
                     int32_t *out)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (!*s || *e || v < lo || v > hi) {
        fprintf(stderr, "hay align: %s: '%s' is not an integer in [%ld, %ld]\n",
                what, s, (long)lo, (long)hi);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static void list_all(void)
{
    const char *n;
    printf("variants:");
    for (size_t i = 0; hay_align_variant_name(i, &n) == HAY_OK; i++) {
        const char *res;
        hay_status st = hay_align_variant_check(n, &res);
        printf(" %s", n);
        if (st != HAY_OK)
            printf("(unsupported)");
        else if (strcmp(res, n))
            printf("(=%s)", res);
    }
    printf("\nbackends:");
    static const hay_backend bs[] = { HAY_BACKEND_CPU, HAY_BACKEND_CUDA,
                                      HAY_BACKEND_OPENCL };
    for (size_t i = 0; i < 3; i++) {
        hay_status st = hay_align_backend_check(bs[i]);
        printf(" %s(%s)", hay_backend_name(bs[i]),
               st == HAY_OK ? "available"
               : st == HAY_ERR_NO_BACKEND ? "not built" : "no device");
    }
    printf("\nmatrices:");
    for (size_t i = 0; hay_align_matrix_name(i, &n) == HAY_OK; i++)
        printf(" %s", n);
    printf("\n");
}

static int parse_args(int argc, char **argv, aconfig *cf)
{
    memset(cf, 0, sizeof *cf);
    hay_align_options_init(&cf->opt);
    cf->argc = argc;
    cf->argv = argv;
    int c;
    argv[0] = (char *)"hay align";
    while ((c = getopt_long(argc, argv, "f:j:h", align_opts, NULL)) != -1) {
        switch (c) {
        case O_MATRIX: cf->matrix = optarg; break;
        case O_OPEN:
            if (parse_int(optarg, "--gap-open", 1, 1000000, &cf->open))
                return 2;
            cf->have_open = 1;
            break;
        case O_EXTEND:
            if (parse_int(optarg, "--gap-extend", 0, 1000000, &cf->extend))
                return 2;
            cf->have_extend = 1;
            break;
        case O_MATCH:
            if (parse_int(optarg, "--match", 1, 1000000, &cf->match))
                return 2;
            cf->have_match = 1;
            break;
        case O_MISMATCH:
            if (parse_int(optarg, "--mismatch", -1000000, 1000000, &cf->mismatch))
                return 2;
            cf->have_mismatch = 1;
            break;
        case O_DNA: cf->mode = 1; break;
        case O_PROTEIN: cf->mode = 2; break;
        case O_SCORE_ONLY: cf->score_only = 1; break;
        case O_STATS: cf->stats = 1; break;
        case O_BACKEND:
            if (hay_backend_parse(optarg, &cf->opt.backend) != HAY_OK) {
                fprintf(stderr, "hay align: unknown backend '%s' (auto, cpu, "
                        "cuda, opencl)\n", optarg);
                return 2;
            }
            break;
        case O_VARIANT: cf->opt.variant = optarg; break;
        case O_TBMEM: {
            uint64_t v;
            if (cli_parse_size(optarg, &v) || v == 0) {
                fprintf(stderr, "hay align: --traceback-mem: bad size '%s'\n",
                        optarg);
                return 2;
            }
            cf->opt.traceback_bytes = v;
            break;
        }
        case O_LIST: list_all(); return 0;
        case O_TOP: {
            int32_t v;
            if (parse_int(optarg, "--top", 1, INT32_MAX, &v))
                return 2;
            cf->top = (size_t)v;
            break;
        }
        case O_MIN_SCORE:
            if (parse_int(optarg, "--min-score", 1, INT32_MAX, &cf->min_score))
                return 2;
            cf->have_min_score = 1;
            break;
        case 'f':
            if (!strcmp(optarg, "tsv")) cf->format = F_TSV;
            else if (!strcmp(optarg, "pair")) cf->format = F_PAIR;
            else if (!strcmp(optarg, "sam")) cf->format = F_SAM;
            else if (!strcmp(optarg, "blast6")) cf->format = F_BLAST6;
            else if (!strcmp(optarg, "json")) cf->format = F_JSON;
            else {
                fprintf(stderr, "hay align: unknown format '%s' (tsv, pair, "
                        "sam, blast6, json)\n", optarg);
                return 2;
            }
            break;
        case 'j': {
            int32_t v;
            if (parse_int(optarg, "--threads", 0, 4096, &v))
                return 2;
            cf->opt.threads = v;
            break;
        }
        case 'h': usage_align(stdout); return 0;
        default: usage_align(stderr); return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "hay align: expected QUERY and TARGET files\n");
        usage_align(stderr);
        return 2;
    }
    cf->qpath = argv[optind];
    cf->tpath = argv[optind + 1];
    if (cf->score_only && (cf->format == F_PAIR || cf->format == F_SAM ||
                           cf->format == F_BLAST6)) {
        fprintf(stderr, "hay align: --score-only gives no alignments; use "
                "--format tsv or json\n");
        return 2;
    }
    cf->opt.score_only = cf->score_only;
    if (cf->opt.backend == HAY_BACKEND_CPU || cf->opt.backend == HAY_BACKEND_AUTO) {
        hay_status st = hay_align_variant_check(cf->opt.variant, NULL);
        if (st != HAY_OK) {
            fprintf(stderr, "hay align: variant '%s': %s\n", cf->opt.variant,
                    st == HAY_ERR_UNKNOWN_NAME ? "unknown (see --list)"
                                               : "not supported by this CPU");
            return 2;
        }
    }
    return -1;
}

/* DNA when every residue is a nucleotide letter (IUPAC codes included) and
 * at least 90% are A, C, G, T, U or N: a peptide such as "MKVHW" is made of
 * IUPAC letters too. */
int looks_dna(const seq_file *a, const seq_file *b)
{
    const seq_file *fs[2] = { a, b };
    uint64_t all = 0, plain = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < fs[k]->n; i++) {
            const char *s = fs[k]->recs[i].seq;
            for (size_t j = 0; j < fs[k]->recs[i].len; j++) {
                int c = toupper((unsigned char)s[j]);
                if (!c || !strchr("ACGTUNRYSWKMBDHV", c))
                    return 0;
                plain += strchr("ACGTUN", c) != NULL;
                all++;
            }
        }
    return plain * 10 >= all * 9;
}

hay_align_scoring *make_scoring(aconfig *cf, int dna)
{
    hay_align_scoring *s = NULL;
    hay_status st;
    if (!cf->have_open)
        cf->open = dna ? 5 : 11;
    if (!cf->have_extend)
        cf->extend = dna ? 2 : 1;
    if (cf->extend > cf->open) {
        fprintf(stderr, "hay align: --gap-extend (%d) must not exceed "
                "--gap-open (%d)\n", (int)cf->extend, (int)cf->open);
        return NULL;
    }
    if (!cf->matrix && dna) {
        if (!cf->have_match)
            cf->match = 2;
        if (!cf->have_mismatch)
            cf->mismatch = -3;
        st = hay_align_scoring_dna(cf->match, cf->mismatch, cf->open,
                                   cf->extend, &s);
        if (st != HAY_OK) {
            fprintf(stderr, "hay align: --mismatch must be below --match\n");
            return NULL;
        }
        return s;
    }
    if (cf->have_match || cf->have_mismatch) {
        fprintf(stderr, "hay align: --match and --mismatch are for DNA without "
                "--matrix\n");
        return NULL;
    }
    const char *m = cf->matrix ? cf->matrix : "blosum62";
    if (!strchr(m, '/')) {
        st = hay_align_scoring_builtin(m, cf->open, cf->extend, &s);
        if (st == HAY_OK)
            return s;
    }
    uint8_t *text;
    size_t len;
    char err[512];
    if (cli_read_all(m, &text, &len, err, sizeof err)) {
        fprintf(stderr, "hay align: matrix '%s': not a built-in name (see "
                "--list) and not a readable file\n", m);
        return NULL;
    }
    const char *base = strrchr(m, '/');
    size_t line;
    st = hay_align_scoring_parse((const char *)text, len, base ? base + 1 : m,
                                 cf->open, cf->extend, &s, &line);
    free(text);
    if (st != HAY_OK) {
        if (line)
            fprintf(stderr, "hay align: matrix file '%s': line %zu: not an "
                    "NCBI-format matrix row\n", m, line);
        else
            fprintf(stderr, "hay align: matrix file '%s': not an NCBI-format "
                    "matrix (a header of letters and one row per letter)\n", m);
        return NULL;
    }
    return s;
}

int encode_all(const hay_align_scoring *s, const seq_file *f,
               const char *path, hay_align_seq *out, uint8_t **bufs)
{
    for (size_t i = 0; i < f->n; i++) {
        const seq_rec *r = &f->recs[i];
        bufs[i] = malloc(r->len);
        if (!bufs[i]) {
            fprintf(stderr, "hay align: out of memory\n");
            return -1;
        }
        size_t bad;
        if (hay_align_encode(s, r->seq, r->len, bufs[i], &bad) != HAY_OK) {
            unsigned char ch = (unsigned char)r->seq[bad];
            fprintf(stderr, "hay align: %s: sequence '%s': invalid residue ",
                    path, r->id);
            if (isprint(ch))
                fprintf(stderr, "'%c'", ch);
            else
                fprintf(stderr, "\\x%02x", ch);
            fprintf(stderr, " at position %zu for %s scoring (letters %s)\n",
                    bad + 1, hay_align_scoring_name(s),
                    hay_align_scoring_letters(s));
            return -1;
        }
        out[i].codes = bufs[i];
        out[i].len = r->len;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------- */
void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

void print_tsv(const seq_rec *q, const seq_rec *t,
               const hay_align_result *r)
{
    printf("%s\t%s\t%d\t", q->id, t->id, (int)r->score);
    if (r->score == 0) {
        printf("*\t*\t*\t*\t*\n");
        return;
    }
    if (r->cigar)
        printf("%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n",
               r->q_start + 1, r->q_end + 1, r->t_start + 1, r->t_end + 1,
               r->cigar);
    else
        printf("*\t%" PRIu64 "\t*\t%" PRIu64 "\t*\n", r->q_end + 1,
               r->t_end + 1);
}

void print_blast6(const seq_rec *q, const seq_rec *t,
                  const hay_align_result *r)
{
    if (r->score == 0)
        return;
    printf("%s\t%s\t%.3f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
           "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t*\t%d\n",
           q->id, t->id, 100.0 * (double)r->matches / (double)r->length,
           r->length, r->mismatches, r->gap_opens, r->q_start + 1,
           r->q_end + 1, r->t_start + 1, r->t_end + 1, (int)r->score);
}

void print_json(const seq_rec *q, const seq_rec *t,
                const hay_align_result *r, int *first)
{
    printf("%s\n    {\"query\": ", *first ? "" : ",");
    *first = 0;
    json_str(q->id);
    printf(", \"target\": ");
    json_str(t->id);
    printf(", \"query_length\": %zu, \"target_length\": %zu, \"score\": %d",
           q->len, t->len, (int)r->score);
    if (r->score == 0) {
        printf("}");
        return;
    }
    printf(", \"query_end\": %" PRIu64 ", \"target_end\": %" PRIu64,
           r->q_end + 1, r->t_end + 1);
    if (r->cigar)
        printf(", \"query_start\": %" PRIu64 ", \"target_start\": %" PRIu64
               ", \"cigar\": \"%s\", \"length\": %" PRIu64 ", \"matches\": %"
               PRIu64 ", \"mismatches\": %" PRIu64 ", \"positives\": %" PRIu64
               ", \"gap_opens\": %" PRIu64 ", \"gaps\": %" PRIu64
               ", \"identity\": %.4f",
               r->q_start + 1, r->t_start + 1, r->cigar, r->length, r->matches,
               r->mismatches, r->positives, r->gap_opens, r->gaps,
               (double)r->matches / (double)r->length);
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
                const hay_align_result *r)
{
    int32_t open, ext;
    hay_align_scoring_gaps(s, &open, &ext);
    printf("########################################\n"
           "# Program: hay align\n"
           "# Aligned_sequences: 2\n"
           "# 1: %s\n# 2: %s\n", q->id, t->id);
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

static void print_sam_header(const aconfig *cf, const seq_file *tf)
{
    printf("@HD\tVN:1.6\tSO:unsorted\n");
    for (size_t i = 0; i < tf->n; i++)
        printf("@SQ\tSN:%s\tLN:%zu\n", tf->recs[i].id, tf->recs[i].len);
    print_sam_pg(cf);
}

void print_sam_pg(const aconfig *cf)
{
    printf("@PG\tID:hay\tPN:hay\tVN:%s\tCL:hay", hay_version());
    for (int i = 1; i < cf->argc; i++) {
        const char *a = cf->argv[i];
        printf(" ");
        for (; *a; a++)
            putchar(*a == '\t' || *a == '\n' ? ' ' : *a);
    }
    printf("\n");
}

void print_json_head(const aconfig *cf, const hay_align_scoring *s)
{
    printf("{\"program\": \"hay align\", \"version\": \"%s\", \"scoring\": "
           "{", hay_version());
    if (hay_align_scoring_is_dna(s))
        printf("\"match\": %d, \"mismatch\": %d", (int)cf->match,
               (int)cf->mismatch);
    else {
        printf("\"matrix\": ");
        json_str(hay_align_scoring_name(s));
    }
    printf(", \"gap_open\": %d, \"gap_extend\": %d},\n \"alignments\": [",
           (int)cf->open, (int)cf->extend);
}

/* ------------------------------------------------------------------------
 * The command
 * ---------------------------------------------------------------------- */
int align_main(int argc, char **argv)
{
    aconfig cf;
    int rc = parse_args(argc, argv, &cf);
    if (rc >= 0)
        return rc;
    if (align_db_wanted(&cf))
        return align_db_main(&cf);
    seq_file qf, tf;
    char err[1024];
    if (seq_file_read(cf.qpath, &qf, err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        return 2;
    }
    if (seq_file_read(cf.tpath, &tf, err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        seq_file_free(&qf);
        return 2;
    }
    rc = 2;
    int dna = cf.mode == 1 || (cf.mode == 0 && looks_dna(&qf, &tf));
    hay_align_scoring *s = make_scoring(&cf, dna);
    hay_align_seq *qs = calloc(qf.n, sizeof *qs), *ts = calloc(tf.n, sizeof *ts);
    uint8_t **qb = calloc(qf.n, sizeof *qb), **tb = calloc(tf.n, sizeof *tb);
    hay_align_result *res = NULL;
    if (!s || !qs || !ts || !qb || !tb)
        goto out;
    if (encode_all(s, &qf, cf.qpath, qs, qb) ||
        encode_all(s, &tf, cf.tpath, ts, tb))
        goto out;

    int threads = cf.opt.threads > 0 ? cf.opt.threads : (int)cli_cpu_count();
    cf.opt.threads = threads;
    /* Queries in blocks of a few thousand pairs: enough to keep the
     * threads busy between two barriers, few enough to hold the results;
     * every block is printed in order before the next one runs. */
    size_t qblock = (size_t)(4096 > 64 * threads ? 4096 : 64 * threads) / tf.n + 1;
    if (qblock > qf.n)
        qblock = qf.n;
    res = calloc(qblock * tf.n, sizeof *res);
    if (!res) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    if (cf.format == F_SAM)
        print_sam_header(&cf, &tf);
    if (cf.format == F_JSON)
        print_json_head(&cf, s);
    int first = 1;
    double seconds = 0;
    uint64_t cells = 0, pairs = 0, rescored = 0, linear = 0;
    for (size_t q0 = 0; q0 < qf.n; q0 += qblock) {
        size_t nq = qf.n - q0 < qblock ? qf.n - q0 : qblock;
        double t0 = cli_now();
        hay_status st = hay_align_batch(s, qs + q0, nq, ts, tf.n, &cf.opt, res);
        seconds += cli_now() - t0;
        if (st != HAY_OK) {
            fflush(stdout);
            if (st == HAY_ERR_NO_BACKEND)
                fprintf(stderr, "hay align: backend %s: Smith-Waterman on this "
                        "backend is not built into this hay\n",
                        hay_backend_name(cf.opt.backend));
            else
                fprintf(stderr, "hay align: %s\n", hay_strerror(st));
            goto out;
        }
        for (size_t a = 0; a < nq; a++) {
            const seq_rec *q = &qf.recs[q0 + a];
            size_t primary = SIZE_MAX;
            if (cf.format == F_SAM)
                for (size_t b = 0; b < tf.n; b++)
                    if (res[a * tf.n + b].score > 0 &&
                        (primary == SIZE_MAX ||
                         res[a * tf.n + b].score > res[a * tf.n + primary].score))
                        primary = b;
            if (cf.format == F_SAM && primary == SIZE_MAX)
                print_sam_record(q, NULL, NULL, 4);
            for (size_t b = 0; b < tf.n; b++) {
                hay_align_result *r = &res[a * tf.n + b];
                const seq_rec *t = &tf.recs[b];
                switch (cf.format) {
                case F_TSV: print_tsv(q, t, r); break;
                case F_BLAST6: print_blast6(q, t, r); break;
                case F_JSON: print_json(q, t, r, &first); break;
                case F_PAIR:
                    print_pair(&cf, s, q, t, &qs[q0 + a], &ts[b], r);
                    break;
                case F_SAM:
                    if (r->score > 0)
                        print_sam_record(q, t, r, b == primary ? 0 : 256);
                    break;
                }
                cells += r->cells;
                pairs++;
                rescored += (r->flags & HAY_ALIGN_RESCORED32) != 0;
                linear += (r->flags & HAY_ALIGN_LINEAR) != 0;
                hay_align_result_clear(r);
            }
        }
    }
    if (cf.format == F_JSON)
        printf("\n]}\n");
    if (cf.stats) {
        const char *v = "gpu";
        if (cf.opt.backend == HAY_BACKEND_CPU || cf.opt.backend == HAY_BACKEND_AUTO)
            hay_align_variant_check(cf.opt.variant, &v);
        fprintf(stderr, "stats: pairs=%" PRIu64 " cells=%" PRIu64
                " seconds=%.6f gcups=%.3f variant=%s threads=%d "
                "rescored32=%" PRIu64 " linear_tracebacks=%" PRIu64 "\n",
                pairs, cells, seconds,
                seconds > 0 ? (double)cells / seconds * 1e-9 : 0.0, v,
                threads, rescored, linear);
    }
    rc = 0;
out:
    if (res)
        for (size_t i = 0; i < qblock * tf.n; i++)
            hay_align_result_clear(&res[i]);
    free(res);
    for (size_t i = 0; qb && i < qf.n; i++)
        free(qb[i]);
    for (size_t i = 0; tb && i < tf.n; i++)
        free(tb[i]);
    free(qb);
    free(tb);
    free(qs);
    free(ts);
    hay_align_scoring_free(s);
    seq_file_free(&qf);
    seq_file_free(&tf);
    if (fflush(stdout) != 0 && rc == 0)
        rc = 2;
    return rc;
}
