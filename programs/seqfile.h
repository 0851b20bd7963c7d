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
} seq_file;

/*
 * Reads path ("-" = standard input), FASTA or FASTQ (by the first
 * non-blank character), gzip-compressed or not.  Returns 0, or -1 with a
 * message (naming the file and line) in err.  Empty sequences, a missing
 * '+' line, qualities of the wrong length, text before the first record
 * a file with no record and a gzip file cut short are errors.
 */
int seq_file_read(const char *path, seq_file *f, char *err, size_t errcap);
void seq_file_free(seq_file *f);

#endif
