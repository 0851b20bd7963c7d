/*
 * align_args.c - `hay align`'s command line: options into an aconfig, the
 * help text, --list, and the command line as SAM's @PG records it.
 */
#include "align.h"
#include "cli.h"

#include <getopt.h>
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
"Input:\n"
"      --strict-input        a record with no residues is an error (default:\n"
"                            left out, with a warning naming it)\n"
"      --force               align sequences of the other kind than the\n"
"                            scoring's (DNA against a protein matrix or the\n"
"                            converse; default: an error, as BLAST refuses\n"
"                            mixed alphabets).  A sequence of 20 or more\n"
"                            residues, or a file's all together, is DNA by\n"
"                            the rule of --dna below\n"
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
"                              inclusive), CIGAR (=/X/I/D; '*' when none),\n"
"                              E-value, bit score, strand (+ or -)\n"
"                            pair: pairwise text like EMBOSS water\n"
"                            sam: SAM (targets are the references; the best\n"
"                              target of a query is primary, others secondary)\n"
"                            blast6: BLAST tabular (-outfmt 6): qseqid sseqid\n"
"                              pident length mismatch gapopen qstart qend\n"
"                              sstart send evalue bitscore, printed as BLAST+\n"
"                              prints them\n"
"                            json: one JSON document\n"
"      --evalue X            print only hits with an E-value of at most X\n"
"      --score-only          score and end cells only: no start, no CIGAR\n"
"                            (tsv and json only)\n"
"      --stats               timing, cells, GCUPS and the E-values' parameters\n"
"                            on standard error; a database search adds its\n"
"                            timeline (every phase, the GPU's included)\n"
"\n"
"E-values: Karlin-Altschul statistics with BLAST's published parameters for\n"
"the standard matrices and gap costs and its length adjustment; the database\n"
"is TARGET (all its residues and sequences).\n"
"      --evalue-params WHICH auto (default): the published parameters; for other\n"
"                            scorings lambda and K fitted to each query's\n"
"                            scores when TARGET has at least 100 sequences\n"
"                            (as ssearch does), else ungapped parameters\n"
"                            computed from the matrix (--stats says which)\n"
"                            table: published, else computed; never fitted\n"
"                            fit: always fitted (needs 100 target sequences)\n"
"      --fsc                 protein E-values with Spouge's finite-size\n"
"                            correction instead of the length adjustment, as\n"
"                            blastp computes them by default (published\n"
"                            parameters only; other E-values stay as they are)\n"
"\n"
"DNA strands:\n"
"      --strand WHICH        both (default), plus or minus: the query as given,\n"
"                            its reverse complement, or both (the better of\n"
"                            the two is reported for each pair).  On the minus\n"
"                            strand query coordinates are on the query as\n"
"                            given, the CIGAR (SAM's and pair's too) reads\n"
"                            along the target, SAM has flag 16 and SEQ\n"
"                            reverse complemented, blast6 has sstart > send\n"
"                            (as blastn).\n"
"\n"
"Engine:\n"
"      --backend NAME        auto (default), cpu, cuda, opencl: where the score\n"
"                            pass runs (the traceback runs on the CPU); auto\n"
"                            is the CPU, except for a database search large\n"
"                            enough to pay a GPU's start-up (about 2.5e9\n"
"                            cells a CPU thread): the GPU where there is one\n"
"      --variant NAME        scalar, striped16, striped32, striped16_sse2, ...\n"
"                            (default auto: striped16); see --list\n"
"  -j, --threads N           threads (default: all cores): over pairs, and\n"
"                            all of them on a pair of wavefront_cells or more\n"
"      --params KEY=VAL,...  the backend's keys; cpu: wavefront_cells (default\n"
"                            256M), wavefront_tile (default: from the sizes),\n"
"                            traceback_cells (default 16M: the traceback's\n"
"                            parts of a long pair split on the threads)\n""                            db_kernel (a database search's score pass:\n"
"                            inter (AVX2), inter_avx512, striped, or auto\n"
"                            by the sizes)\n"
"      --traceback-mem SIZE  memory for a full direction matrix (default 64M);\n"
"                            longer alignments, or any whose matrix cannot\n"
"                            be allocated, are traced in linear space\n"
"      --list                list the variants and built-in matrices\n"
"\n"
"Database search (TARGET a database of 'hay db build', or FASTA with\n"
"--top or --min-score): the best hits of each query, by score, then by the\n"
"targets' order in the database's FASTA; alignments for those hits only.\n"
"E-values, --evalue, --fsc and --strand as above (the minus strand is a\n"
"second search, the better strand kept for each target); the parameters are\n"
"never fitted there (only the top hits are kept), so --evalue-params auto\n"
"uses the published or computed ones and fit is an error.\n"
"      --top K               hits kept per query (default 50)\n"
"      --min-score N         only hits scoring at least N\n"
"\n"
"Server ('hay db serve DB --socket PATH' keeps DB and the device ready):\n"
"      --server PATH         search the database served at PATH: QUERY is read\n"
"                            here and sent, the server writes the output of\n"
"                            this command (byte for byte) where this\n"
"                            command's goes; TARGET may be left out, and if\n"
"                            given must be the served file.  The scoring must\n"
"                            be the server's (an error otherwise); --backend\n"
"                            other than auto must be the server's\n"
"      --server-timeout S    give up waiting for the server after S seconds\n"
"                            (default 600; searches queue one at a time)\n"
"  -h, --help                this help\n"
"\n"
"Exit status: 0 done, 2 bad input or usage.\n", f);
}

enum {
    O_FIRST = SC_PROTEIN + 1,
    O_SCORE_ONLY, O_BACKEND, O_VARIANT, O_STATS, O_TBMEM, O_LIST, O_STRAND,
    O_EVALUE, O_PARAMS, O_FSC, O_TOP, O_MIN_SCORE, O_STRICT_INPUT, O_FORCE,
    O_BACKEND_PARAMS, O_SERVER, O_SERVER_TIMEOUT
};

static const struct option align_opts[] = {
    SCORING_LONG_OPTIONS,
    { "score-only", no_argument, NULL, O_SCORE_ONLY },
    { "backend", required_argument, NULL, O_BACKEND },
    { "variant", required_argument, NULL, O_VARIANT },
    { "stats", no_argument, NULL, O_STATS },
    { "traceback-mem", required_argument, NULL, O_TBMEM },
    { "list", no_argument, NULL, O_LIST },
    { "strand", required_argument, NULL, O_STRAND },
    { "evalue", required_argument, NULL, O_EVALUE },
    { "evalue-params", required_argument, NULL, O_PARAMS },
    { "params", required_argument, NULL, O_BACKEND_PARAMS },
    { "fsc", no_argument, NULL, O_FSC },
    { "top", required_argument, NULL, O_TOP },
    { "min-score", required_argument, NULL, O_MIN_SCORE },
    { "strict-input", no_argument, NULL, O_STRICT_INPUT },
    { "force", no_argument, NULL, O_FORCE },
    { "server", required_argument, NULL, O_SERVER },
    { "server-timeout", required_argument, NULL, O_SERVER_TIMEOUT },
    { "format", required_argument, NULL, 'f' },
    { "threads", required_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

int parse_int_opt(const char *prog, const char *s, const char *what,
                  int32_t lo, int32_t hi, int32_t *out)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (!*s || *e || v < lo || v > hi) {
        fprintf(stderr, "%s: %s: '%s' is not an integer in [%ld, %ld]\n",
                prog, what, s, (long)lo, (long)hi);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static int parse_int(const char *s, const char *what, int32_t lo, int32_t hi,
                     int32_t *out)
{
    return parse_int_opt("hay align", s, what, lo, hi, out);
}

int scoring_option(const char *prog, int c, const char *arg, aconfig *cf)
{
    switch (c) {
    case SC_MATRIX: cf->matrix = arg; return 0;
    case SC_DNA: cf->mode = 1; return 0;
    case SC_PROTEIN: cf->mode = 2; return 0;
    case SC_OPEN:
        cf->have_open = 1;
        return parse_int_opt(prog, arg, "--gap-open", 1, 1000000, &cf->open);
    case SC_EXTEND:
        cf->have_extend = 1;
        return parse_int_opt(prog, arg, "--gap-extend", 0, 1000000,
                             &cf->extend);
    case SC_MATCH:
        cf->have_match = 1;
        return parse_int_opt(prog, arg, "--match", 1, 1000000, &cf->match);
    case SC_MISMATCH:
        cf->have_mismatch = 1;
        return parse_int_opt(prog, arg, "--mismatch", -1000000, 1000000,
                             &cf->mismatch);
    }
    return -1;
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

/* "hay align" and the arguments in the order given (getopt_long moves the
 * operands last), tabs and newlines as spaces: SAM's @PG CL. */
static char *command_line(int argc, char *const *argv)
{
    static const char prog[] = "hay align";
    size_t n = sizeof prog;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *cl = malloc(n), *w = cl;
    if (!cl)
        return NULL;
    w += sprintf(w, "%s", prog);
    for (int i = 0; i < argc; i++) {
        *w++ = ' ';
        for (const char *a = argv[i]; *a; a++)
            *w++ = *a == '\t' || *a == '\n' || *a == '\r' ? ' ' : *a;
    }
    *w = 0;
    return cl;
}

/* The words getopt_long took for the option it just returned (optarg's
 * word and, when apart, the option's): left out of cf->args. */
static void drop_words(char **argv, char **drop, int *ndrop)
{
    drop[(*ndrop)++] = argv[optind - 1];
    if (optarg == argv[optind - 1] && optind >= 2)
        drop[(*ndrop)++] = argv[optind - 2];
}

void aconfig_free(aconfig *cf)
{
    free(cf->command_line);
    free(cf->args);
    cf->command_line = NULL;
    cf->args = NULL;
}

int align_parse_args(int argc, char **argv, aconfig *cf, int from_client)
{
    memset(cf, 0, sizeof *cf);
    hay_align_options_init(&cf->opt);
    cf->server_timeout = 600;
    /* The words as given (getopt_long reorders argv), and those of
     * --server and --server-timeout, which a client does not send. */
    char **given = malloc((size_t)(argc + 1) * sizeof *given);
    char *drop[4];
    int ndrop = 0;
    if (!given) {
        fprintf(stderr, "hay align: out of memory\n");
        return 2;
    }
    memcpy(given, argv, (size_t)(argc + 1) * sizeof *given);
    cf->args = given;   /* aconfig_free frees it on every path */
    int c;
    argv[0] = (char *)"hay align";
    optind = 0;   /* a server parses many command lines */
    while ((c = getopt_long(argc, argv, "f:j:h", align_opts, NULL)) != -1) {
        switch (c) {
        case O_SERVER:
        case O_SERVER_TIMEOUT:
            if (from_client) {
                fprintf(stderr, "hay align: --server: a server does not "
                        "forward to another\n");
                return 2;
            }
            if (ndrop + 2 <= 4)
                drop_words(argv, drop, &ndrop);
            if (c == O_SERVER) {
                cf->server = optarg;
            } else if (parse_int(optarg, "--server-timeout", 1, 86400,
                                 &cf->server_timeout)) {
                return 2;
            }
            break;
        case SC_MATRIX: case SC_OPEN: case SC_EXTEND: case SC_MATCH:
        case SC_MISMATCH: case SC_DNA: case SC_PROTEIN:
            if (scoring_option("hay align", c, optarg, cf))
                return 2;
            break;
        case O_STRICT_INPUT: cf->strict_input = 1; break;
        case O_FORCE: cf->force = 1; break;
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
        case O_BACKEND_PARAMS: cf->opt.device_params = optarg; break;
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
        case O_STRAND:
            if (!strcmp(optarg, "both")) cf->strand = 1;
            else if (!strcmp(optarg, "plus")) cf->strand = 2;
            else if (!strcmp(optarg, "minus")) cf->strand = 3;
            else {
                fprintf(stderr, "hay align: --strand: '%s' is not both, plus "
                        "or minus\n", optarg);
                return 2;
            }
            break;
        case O_FSC: cf->fsc = 1; break;
        case O_PARAMS:
            if (!strcmp(optarg, "auto")) cf->params = 0;
            else if (!strcmp(optarg, "table")) cf->params = 1;
            else if (!strcmp(optarg, "fit")) cf->params = 2;
            else {
                fprintf(stderr, "hay align: --evalue-params: '%s' is not "
                        "auto, table or fit\n", optarg);
                return 2;
            }
            break;
        case O_EVALUE: {
            char *e;
            cf->max_evalue = strtod(optarg, &e);
            if (!*optarg || *e || !(cf->max_evalue >= 0)) {
                fprintf(stderr, "hay align: --evalue: '%s' is not a number "
                        ">= 0\n", optarg);
                return 2;
            }
            cf->have_evalue = 1;
            break;
        }
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
    /* cf->args: the words but --server's, the command line of SAM's @PG. */
    int n = 0;
    for (int i = 1; i < argc; i++) {
        int keep = 1;
        for (int d = 0; d < ndrop; d++)
            keep &= given[i] != drop[d];
        if (keep)
            given[n++] = given[i];
    }
    given[n] = NULL;
    cf->nargs = n;
    cf->command_line = command_line(n, given);
    int one = cf->server || from_client;   /* TARGET: the served one */
    if (argc - optind != 2 && !(one && argc - optind == 1)) {
        fprintf(stderr, one ? "hay align: expected QUERY [DB] with --server\n"
                            : "hay align: expected QUERY and TARGET files\n");
        usage_align(stderr);
        return 2;
    }
    cf->qpath = argv[optind];
    cf->tpath = argc - optind == 2 ? argv[optind + 1] : NULL;
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
