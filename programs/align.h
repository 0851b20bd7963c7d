/*
 * align.h - what the parts of `hay align` (align.c: options, scoring,
 * all-pairs alignment and the output writers; align_db.c: the database
 * search) and `hay db` (db.c) share.
 */
#ifndef HAY_ALIGN_CLI_H
#define HAY_ALIGN_CLI_H

#include "haystack_align.h"
#include "seqfile.h"

#include <stddef.h>
#include <stdint.h>

enum fmt { F_TSV, F_PAIR, F_SAM, F_BLAST6, F_JSON };

typedef struct aconfig {
    const char *matrix;
    int32_t open, extend, match, mismatch;
    int have_open, have_extend, have_match, have_mismatch;
    int mode;                       /* 0 auto, 1 dna, 2 protein */
    int score_only, stats;
    int strand;                     /* 0 default, 1 both, 2 plus, 3 minus */
    int have_evalue;
    int params;                     /* --evalue-params: 0 auto, 1 table, 2 fit */
    int fsc;                        /* --fsc */
    double max_evalue;              /* --evalue: hits above are not printed */
    enum fmt format;
    hay_align_options opt;
    size_t top;                     /* --top K; 0: not given */
    int32_t min_score;              /* --min-score */
    int have_min_score;
    int strict_input;               /* --strict-input: empty records are errors */
    int force;                      /* --force: align mixed alphabets */
    const char *qpath, *tpath;
    char *command_line;             /* "hay align ARGS" as given, for SAM's
                                       @PG (malloc'd; NULL if out of memory) */
    const char *server;             /* --server PATH: a client of hay db serve */
    int server_timeout;             /* --server-timeout S (default 600) */
    char **args;                    /* the arguments as given, --server and
                                       --server-timeout left out (malloc'd;
                                       nargs of them; what a client sends) */
    int nargs;
} aconfig;

/* seqkind.c: DNA when every residue is a nucleotide letter and 90% are A,
 * C, G, T, U or N (a and b may be the same file). */
int looks_dna(const seq_file *a, const seq_file *b);
/* 0 when f's sequences are of the scoring's kind (DNA or protein: each
 * sequence of 20 residues or more, and the file's all together, by
 * looks_dna's rule); else -1 after printing which ("PATH: ROLE 'ID' looks
 * like DNA but ..."), or 0 after printing it as a warning with --force. */
int check_kind(const aconfig *cf, const hay_align_scoring *s,
               const seq_file *f, const char *path, const char *role);
/* The scoring of the options (defaults filled in cf); NULL after printing
 * why. */
hay_align_scoring *make_scoring(aconfig *cf, int dna);
/* The defaults of the gaps and of --match/--mismatch into cf, as
 * make_scoring fills them (for a scoring made elsewhere). */
void scoring_defaults(aconfig *cf, int dna);
/* Encodes every record of f into out[i] (bufs[i] malloc'd); -1 after
 * printing the bad residue. */
int encode_all(const hay_align_scoring *s, const seq_file *f,
               const char *path, hay_align_seq *out, uint8_t **bufs);

/* One pair as printed: the result on the strand reported, the query as
 * given and as aligned (its reverse complement on the minus strand), and
 * the E-value and bit score (when the scoring has statistics). */
typedef struct hit {
    const hay_align_result *r;
    const seq_rec *q, *qa;
    const hay_align_seq *qc;
    int minus, have_stats;
    double evalue, bits;
} hit;

/* The reverse complement of every record of f (IUPAC letters, case kept;
 * FASTQ qualities reversed); ids are shared with f.  -1: out of memory
 * (what was made is freed by reverse_complement_free, which takes a
 * zeroed rc too). */
int reverse_complement(const seq_file *f, seq_file *rc);
void reverse_complement_free(seq_file *rc);

/* The writers of one alignment (align_print.c). */
/* The JSON document's head up to its "alignments" array: the scoring and
 * what the E-values rest on (fitted per query, st, or neither). */
void print_json_head(const aconfig *cf, const hay_align_scoring *s,
                     int fitted, const hay_align_stats *st,
                     uint64_t db_residues, uint64_t db_sequences);
void print_tsv(const seq_rec *t, const hit *h);
void print_blast6(const seq_rec *t, const hit *h);
void print_json(const seq_rec *t, const hit *h, int *first);
void print_pair(const aconfig *cf, const hay_align_scoring *s,
                const seq_rec *q, const seq_rec *t, const hay_align_seq *qc,
                const hay_align_seq *tc, const hay_align_result *r,
                int minus);
void print_sam_record(const seq_rec *q, const seq_rec *t,
                      const hay_align_result *r, int flag);
void print_sam_header(const aconfig *cf, const seq_file *tf);
void print_sam_pg(const aconfig *cf);

/* align_args.c: the command line into *cf (defaults first).  -1 to go on,
 * else the exit status (0 after --help or --list, 2 after a message).
 * from_client: the arguments a client of `hay db serve` sent (TARGET may be
 * left out; --server is refused). */
int align_parse_args(int argc, char **argv, aconfig *cf, int from_client);
/* An integer option's value in [lo, hi]; -1 after a message naming what
 * (with prog's prefix). */
int parse_int_opt(const char *prog, const char *s, const char *what,
                  int32_t lo, int32_t hi, int32_t *out);
void aconfig_free(aconfig *cf);
/* The scoring options of hay align and hay db serve: their getopt_long
 * entries (codes SC_*, below any other option code of theirs) and the
 * parsing of one into cf (0, or -1 after a message with prog's prefix). */
enum { SC_MATRIX = 256, SC_OPEN, SC_EXTEND, SC_MATCH, SC_MISMATCH, SC_DNA,
       SC_PROTEIN };
#define SCORING_LONG_OPTIONS \
    { "matrix", required_argument, NULL, SC_MATRIX }, \
    { "gap-open", required_argument, NULL, SC_OPEN }, \
    { "gap-extend", required_argument, NULL, SC_EXTEND }, \
    { "match", required_argument, NULL, SC_MATCH }, \
    { "mismatch", required_argument, NULL, SC_MISMATCH }, \
    { "dna", no_argument, NULL, SC_DNA }, \
    { "protein", no_argument, NULL, SC_PROTEIN }
int scoring_option(const char *prog, int c, const char *arg, aconfig *cf);

/* align_db.c: whether the command is a database search (TARGET is a
 * database file, or --top / --min-score was given), and running it. */
int align_db_wanted(const aconfig *cf);
/* --params checked against the CPU's keys; 1 (after a message) if bad. */
int align_check_params(const aconfig *cf, const hay_align_scoring *s);
int align_db_main(aconfig *cf);
/* A database of kind dna against --dna or --protein: 0 when they agree,
 * else -1 after printing why ("PROG: PATH: a DNA database, ..."). */
int check_db_kind(const aconfig *cf, const char *prog, const char *path, int dna);

/* Whether the file at path begins as a `hay db build` database ("-" and
 * unreadable files: no). */
int file_is_db(const char *path);

/* A request of `hay db serve` (align_serve.c) for align_db_run: what the
 * server holds, the client's queries and the client's clock. */
typedef struct served {
    hay_align_db *db;
    hay_align_scoring *s;
    const seq_file *tf;             /* the served FASTA, or NULL (a file of
                                       hay db build) */
    hay_align_db_warm *warm;        /* the server's device start, or NULL */
    char *queries;                  /* the query file's text, queries_len
                                       bytes and a spare one (parsed in
                                       place) */
    size_t queries_len;
    double t0, real0, proc_start;   /* the client's start (timeline) */
    const hay_align_phase *phases;  /* the client's and the server's phases
                                       before the search */
    size_t nphases;
} served;
/* The database search with the server's database, scoring and device
 * (sv), or, sv NULL, reading and opening everything in this process
 * (align_db_main). */
int align_db_run(aconfig *cf, const served *sv);

/* align_client.c: `hay align --server PATH`; align_serve.c: `hay db
 * serve`. */
int align_client_main(aconfig *cf);
int db_serve_main(int argc, char **argv);

/* align_timeline.c: --stats's timeline of a database search, on the
 * monotonic clock (cli_now); t0 the command's start. */
typedef struct timeline {
    hay_align_phase *p;
    size_t n, cap;
    double t0, real0;           /* the start: cli_now(), CLOCK_REALTIME */
    double proc_start;          /* the process's start; 0: this one's */
} timeline;
void timeline_init(timeline *t);
void timeline_add(timeline *t, const char *name, double start, double end);
void timeline_add_phase(timeline *t, const hay_align_phase *p);
void timeline_add_results(timeline *t, const hay_align_db_results *r);
/* Prints the phases in the order they began (sorting them). */
void timeline_print(timeline *t);
void timeline_free(timeline *t);
/* When this process began, on the monotonic clock (0 when unknown). */
double timeline_process_start(void);
/* A database of f's records encoded with s; NULL after printing why
 * ("PROG: PATH: reason"). */
hay_align_db *db_from_seq_file(const hay_align_scoring *s, const seq_file *f,
                               const char *path, const char *prog);

#endif
