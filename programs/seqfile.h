/* seqfile.h - FASTA and FASTQ files, gzipped or not, read whole. */
#ifndef HAY_SEQFILE_H
#define HAY_SEQFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct seq_rec {
    char *id;            /* first word of the header line (after '>' or
                            '@' and any blanks) */
    char *seq;           /* residues as read, whitespace removed */
    size_t len;
    char *qual;          /* FASTQ qualities (len of them), or NULL */
} seq_rec;

typedef struct seq_file {
    seq_rec *recs;
    size_t n;
    int fastq;
    size_t skipped;      /* empty records left out */
} seq_file;

/*
 * Reads path ("-" = standard input), FASTA or FASTQ (by the first
 * non-blank character), gzip-compressed or not.  Returns 0, or -1 with a
 * message (naming the file and line) in err.  A record of no residues is
 * left out, with a warning "PROG: PATH: line N: sequence 'ID' is empty;
 * skipped" on standard error for the first few (none when prog is NULL),
 * or is an error when strict.  A missing '+' line, qualities of the wrong
 * length, text before the first record, a file with no (non-empty) record
 * and a gzip file cut short are errors.
 */
int seq_file_read(const char *path, int strict, const char *prog,
                  seq_file *f, char *err, size_t errcap);
/* The same for len bytes of (uncompressed) text at data, which it
 * overwrites, data[len] included (len + 1 bytes in all: lines are ended in
 * place); path names it in messages.  data stays the caller's. */
int seq_file_parse(char *data, size_t len, const char *path, int strict,
                   const char *prog, seq_file *f, char *err, size_t errcap);
void seq_file_free(seq_file *f);
/* The text of path ("-" = standard input), gunzipped when compressed, as
 * seq_file_read takes it: *data malloc'd, *len bytes and a NUL after.
 * -1 with a message in err. */
int seq_file_slurp(const char *path, char **data, size_t *len, char *err,
                   size_t errcap);

#endif
