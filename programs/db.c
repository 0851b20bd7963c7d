/*
 * db.c - `hay db`: build a sequence database for `hay align`'s database
 * search (residues encoded once, sorted into length partitions, names and
 * lengths in an index; the format is in haystack_align.h), and describe
 * one.  Only the public API is used.
 */
#include "align.h"
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_db(FILE *f)
{
    fputs(
"Usage: hay db build [OPTION]... IN OUT\n"
"       hay db info DB\n"
"       hay db serve [OPTION]... DB --socket PATH (see hay db serve --help)\n"
"build: reads IN (FASTA or FASTQ, gzipped or not; '-' is standard input)\n"
"and writes the database OUT, which hay align takes as its TARGET.  The\n"
"residues are stored as the codes of one alphabet: a database is searched\n"
"with a scoring of that alphabet (protein: the matrix it was built with or\n"
"another with the same letters; DNA: the --match/--mismatch scoring).\n"
"info: prints what a database holds, after checking it.\n"
"\n"
"      --dna, --protein      the sequences' kind (default: detected as hay\n"
"                            align does)\n"
"      --matrix NAME|FILE    the protein alphabet: a built-in matrix name or\n"
"                            an NCBI-format file (default blosum62)\n""      --strict-input        a record with no residues is an error (default:\n"
"                            left out, with a warning naming it)\n"
"  -h, --help                this help\n"
"\n"
"Exit status: 0 done, 2 bad input or usage.\n", f);
}

static int db_build(int argc, char **argv)
{
    enum { O_DNA = 256, O_PROTEIN, O_MATRIX, O_STRICT_INPUT };
    static const struct option opts[] = {
        { "dna", no_argument, NULL, O_DNA },
        { "protein", no_argument, NULL, O_PROTEIN },
        { "matrix", required_argument, NULL, O_MATRIX },
        { "strict-input", no_argument, NULL, O_STRICT_INPUT },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    aconfig cf;
    memset(&cf, 0, sizeof cf);
    int c;
    argv[0] = (char *)"hay db build";
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_DNA: cf.mode = 1; break;
        case O_PROTEIN: cf.mode = 2; break;
        case O_MATRIX: cf.matrix = optarg; break;
        case O_STRICT_INPUT: cf.strict_input = 1; break;
        case 'h': usage_db(stdout); return 0;
        default: usage_db(stderr); return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "hay db build: expected IN and OUT\n");
        usage_db(stderr);
        return 2;
    }
    const char *in = argv[optind], *outp = argv[optind + 1];
    seq_file f;
    char err[1024];
    if (seq_file_read(in, cf.strict_input, "hay db build", &f, err,
                      sizeof err)) {
        fprintf(stderr, "hay db build: %s\n", err);
        return 2;
    }
    int rc = 2;
    int dna = cf.mode == 1 || (cf.mode == 0 && looks_dna(&f, &f));
    hay_align_scoring *s = make_scoring(&cf, dna);
    hay_align_db *db = s ? db_from_seq_file(s, &f, in, "hay db build") : NULL;
    if (db) {
        if (hay_align_db_write(db, outp, err, sizeof err) != HAY_OK) {
            fprintf(stderr, "hay db build: %s: %s\n", outp, err);
        } else {
            hay_align_db_info info;
            hay_align_db_info_get(db, &info);
            printf("%s: %" PRIu64 " %s sequences, %" PRIu64 " residues, "
                   "%" PRIu64 " length partitions, letters %s (%s)\n", outp,
                   info.sequences, info.dna ? "DNA" : "protein",
                   info.residues, info.partitions, info.letters,
                   hay_align_scoring_name(s));
            rc = 0;
        }
    }
    hay_align_db_free(db);
    hay_align_scoring_free(s);
    seq_file_free(&f);
    return rc;
}

static int db_info(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage_db(argc == 2 ? stdout : stderr);
        return argc == 2 ? 0 : 2;
    }
    hay_align_db *db = NULL;
    char err[1024];
    if (hay_align_db_open(argv[1], &db, err, sizeof err) != HAY_OK) {
        fprintf(stderr, "hay db info: %s: %s\n", argv[1], err);
        return 2;
    }
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    printf("database: %s\nformat version: %u\nkind: %s\nalphabet: %s (%d "
           "codes)\nsequences: %" PRIu64 "\nresidues: %" PRIu64 "\nlongest: %"
           PRIu64 "\nlength partitions: %" PRIu64 "\n", argv[1], info.version,
           info.dna ? "DNA" : "protein", info.letters, info.alpha,
           info.sequences, info.residues, info.longest, info.partitions);
    hay_align_db_free(db);
    return 0;
}

int db_main(int argc, char **argv)
{
    if (argc < 2) {
        usage_db(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "build"))
        return db_build(argc - 1, argv + 1);
    if (!strcmp(argv[1], "info"))
        return db_info(argc - 1, argv + 1);
    if (!strcmp(argv[1], "serve"))
        return db_serve_main(argc - 1, argv + 1);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage_db(stdout);
        return 0;
    }
    fprintf(stderr, "hay db: unknown command '%s' (build, info, serve)\n",
            argv[1]);
    return 2;
}
