/*
 * fuzz_seqfile.c - libFuzzer target for the CLI's FASTA/FASTQ reader
 * (programs/seqfile.c), compiled in.
 *
 * The first byte picks the way in: the rest parsed from memory (strict or
 * not), read back from a plain file, or written gzip-compressed (whole, or
 * cut short at a point the second byte picks) and read back.  Checked:
 * every record has a name of one word, residues without blanks and, in
 * FASTQ, as many qualities; a FASTA text gives, per header line, the
 * residues an oracle written here counts (its lines less blanks and a final
 * '\r'), the empty records skipped and counted, or an error in strict mode;
 * a file read gives what the memory parse gives; a gzip file cut short is
 * an error.  Any disagreement aborts.
 */
#define _POSIX_C_SOURCE 200809L   /* mkstemp, truncate */

#include "seqfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CHECK(c) do { if (!(c)) { \
    fprintf(stderr, "fuzz_seqfile: check failed at line %d: %s\n", __LINE__, #c); \
    abort(); } } while (0)

/* One line of text [s, e) as next_line gives it: a final '\r' dropped. */
typedef struct line {
    const uint8_t *s;
    size_t len;
} line;

/* Blank as the reader sees a line: spaces and tabs up to the first NUL. */
static int blank(line l)
{
    for (size_t i = 0; i < l.len && l.s[i]; i++)
        if (l.s[i] != ' ' && l.s[i] != '\t')
            return 0;
    return 1;
}

static size_t split(const uint8_t *d, size_t len, line *out)
{
    size_t n = 0, p = 0;
    while (p < len) {
        const uint8_t *nl = memchr(d + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - d) : len;
        line l = { d + p, e - p };
        if (l.len && l.s[l.len - 1] == '\r')
            l.len--;
        out[n++] = l;
        p = nl ? e + 1 : len;
    }
    return n;
}

/* The name in a header line: its first word after the marker and blanks,
 * up to a blank or a NUL. */
static void header_name(line l, const uint8_t **name, size_t *len)
{
    size_t i = 1;
    while (i < l.len && (l.s[i] == ' ' || l.s[i] == '\t'))
        i++;
    size_t k = i;
    while (k < l.len && l.s[k] && l.s[k] != ' ' && l.s[k] != '\t')
        k++;
    *name = l.s + i;
    *len = k - i;
}

static void check_records(const seq_file *f)
{
    CHECK(f->n >= 1);
    for (size_t i = 0; i < f->n; i++) {
        const seq_rec *r = &f->recs[i];
        CHECK(r->id && r->id[0] && !strpbrk(r->id, " \t"));
        CHECK(r->seq && r->len >= 1 && r->seq[r->len] == 0);
        CHECK(!memchr(r->seq, ' ', r->len) && !memchr(r->seq, '\t', r->len));
        CHECK(!f->fastq == !r->qual);
        if (r->qual)
            CHECK(r->qual[r->len] == 0);
    }
}

static int same(const seq_file *a, const seq_file *b)
{
    if (a->n != b->n || a->fastq != b->fastq || a->skipped != b->skipped)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const seq_rec *x = &a->recs[i], *y = &b->recs[i];
        if (strcmp(x->id, y->id) || x->len != y->len ||
            memcmp(x->seq, y->seq, x->len) ||
            (x->qual && memcmp(x->qual, y->qual, x->len)))
            return 0;
    }
    return 1;
}

/* The FASTA oracle: records and residues per header line. */
static void check_fasta(const uint8_t *d, size_t len, const seq_file *f)
{
    line *ls = malloc((len + 1) * sizeof *ls);
    CHECK(ls);
    size_t nl = split(d, len, ls), i = 0, k = 0, skipped = 0;
    while (i < nl && blank(ls[i]))
        i++;
    CHECK(i < nl && ls[i].s[0] == '>');
    while (i < nl) {
        const uint8_t *name;
        size_t namelen, residues = 0;
        header_name(ls[i], &name, &namelen);
        CHECK(namelen > 0);
        for (i++; i < nl && !(ls[i].len && ls[i].s[0] == '>'); i++)
            for (size_t j = 0; j < ls[i].len; j++)
                residues += ls[i].s[j] != ' ' && ls[i].s[j] != '\t';
        if (residues == 0) {
            skipped++;
            continue;
        }
        CHECK(k < f->n);
        CHECK(strlen(f->recs[k].id) == namelen &&
              memcmp(f->recs[k].id, name, namelen) == 0);
        CHECK(f->recs[k].len == residues);
        k++;
    }
    CHECK(k == f->n && skipped == f->skipped);
    free(ls);
}

static char path[64];

static void write_file(const uint8_t *d, size_t len, int gz, size_t cut)
{
    if (!gz) {
        FILE *fp = fopen(path, "wb");
        CHECK(fp && fwrite(d, 1, len, fp) == len && fclose(fp) == 0);
        return;
    }
    gzFile g = gzopen(path, "wb");
    CHECK(g);
    CHECK(len == 0 || gzwrite(g, d, (unsigned)len) == (int)len);
    CHECK(gzclose(g) == Z_OK);
    if (cut)
        CHECK(truncate(path, (off_t)cut) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > (1 << 20))
        return 0;
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fuzz_seqfile.XXXXXX");
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        close(fd);
    }
    int way = data[0] % 4;
    const uint8_t *d = data + 2;
    size_t len = size - 2;
    char err[256];

    /* From memory, both ways; a copy each of exactly the size the parser
     * may touch (it overwrites the text and the byte after it). */
    seq_file f[2];
    int rc[2];
    for (int strict = 0; strict < 2; strict++) {
        char *copy = malloc(len + 1);
        CHECK(copy);
        memcpy(copy, d, len);
        copy[len] = (char)0xa5;
        memset(err, 0, sizeof err);
        rc[strict] = seq_file_parse(copy, len, "FUZZ", strict, NULL,
                                    &f[strict], err, sizeof err);
        free(copy);
        CHECK(rc[strict] == 0 || rc[strict] == -1);
        if (rc[strict])
            CHECK(strncmp(err, "FUZZ: ", 6) == 0 && f[strict].n == 0);
        else
            check_records(&f[strict]);
    }
    if (rc[1] == 0)
        CHECK(rc[0] == 0 && f[0].skipped == 0 && same(&f[0], &f[1]));
    if (rc[0] == 0 && f[0].skipped == 0)
        CHECK(rc[1] == 0);
    if (rc[0] == 0 && !f[0].fastq)
        check_fasta(d, len, &f[0]);

    if (way >= 2) {
        /* Through a file, plain or gzip (cut short when data[1] says). */
        size_t cut = 0;
        if (way == 3 && data[1] % 2) {
            write_file(d, len, 1, 0);
            FILE *fp = fopen(path, "rb");
            CHECK(fp && fseek(fp, 0, SEEK_END) == 0);
            long whole = ftell(fp);
            fclose(fp);
            cut = (size_t)(data[1] / 2) % (size_t)whole;
            cut = cut ? cut : 1;
        }
        write_file(d, len, way == 3, cut);
        seq_file g;
        memset(err, 0, sizeof err);
        int r = seq_file_read(path, 0, NULL, &g, err, sizeof err);
        if (cut) {
            CHECK(r == -1);
        } else {
            CHECK(r == rc[0]);
            if (r == 0)
                CHECK(same(&g, &f[0]));
        }
        seq_file_free(&g);
    }
    seq_file_free(&f[0]);
    seq_file_free(&f[1]);
    return 0;
}
