/* seqfile.c - FASTA and FASTQ reading (zlib reads plain files as well). */
#include "seqfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

int seq_file_slurp(const char *path, char **data, size_t *len, char *err,
                   size_t cap)
{
    gzFile gz;
    if (!strcmp(path, "-")) {
        int fd = dup(0);
        gz = fd < 0 ? NULL : gzdopen(fd, "rb");
    } else {
        gz = gzopen(path, "rb");
    }
    if (!gz)
        return fail(err, cap, "cannot open '%s': %s", path,
                    errno ? strerror(errno) : "out of memory");
    size_t n = 0, c = 1 << 16;
    char *buf = malloc(c + 1);
    for (;;) {
        if (!buf) {
            gzclose(gz);
            return fail(err, cap, "%s: out of memory", path);
        }
        if (c - n < (1 << 16)) {
            c *= 2;
            char *nb = realloc(buf, c + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = nb;
        }
        unsigned want = (unsigned)((c - n) > (1u << 30) ? (1u << 30) : (c - n));
        int r = gzread(gz, buf + n, want);
        if (r < 0) {
            int e;
            const char *msg = gzerror(gz, &e);
            fail(err, cap, "%s: read error: %s", path,
                 e == Z_ERRNO ? strerror(errno) : msg);
            free(buf);
            gzclose(gz);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    /* zlib ends a gzip stream cut short as if it were whole, and says so
     * only here: the residues read so far are not the file. */
    int e;
    gzerror(gz, &e);
    if (gzclose(gz) == Z_BUF_ERROR || e == Z_BUF_ERROR) {
        free(buf);
        return fail(err, cap, "%s: truncated gzip file (unexpected end of "
                    "file)", path);
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

typedef struct reader {
    char *p, *end;
    size_t line;
} reader;

/* The next line (without \n or \r\n), NUL-terminated in place; NULL at EOF. */
static char *next_line(reader *r, size_t *len)
{
    if (r->p >= r->end)
        return NULL;
    char *s = r->p;
    char *nl = memchr(s, '\n', (size_t)(r->end - s));
    char *e = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    if (e > s && e[-1] == '\r')
        e--;
    *e = 0;
    *len = (size_t)(e - s);
    r->line++;
    return s;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return 0;
    return 1;
}

/* Appends the non-blank characters of s to the record's sequence. */
static int append(seq_rec *rec, size_t *cap, const char *s, size_t n)
{
    if (rec->len + n + 1 > *cap) {
        size_t c = (*cap ? *cap : 256);
        while (c < rec->len + n + 1)
            c *= 2;
        char *ns = realloc(rec->seq, c);
        if (!ns)
            return -1;
        rec->seq = ns;
        *cap = c;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            rec->seq[rec->len++] = s[i];
    rec->seq[rec->len] = 0;
    return 0;
}

/* The first word after '>' or '@': "> NAME" is named NAME, as Biopython
 * and EMBOSS read it. */
static char *header_id(const char *h)
{
    while (*h == ' ' || *h == '\t')
        h++;
    size_t k = 0;
    while (h[k] && h[k] != ' ' && h[k] != '\t')
        k++;
    char *id = malloc(k + 1);
    if (id) {
        memcpy(id, h, k);
        id[k] = 0;
    }
    return id;
}

static int add_rec(seq_file *f, size_t *cap)
{
    if (f->n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        seq_rec *nr = realloc(f->recs, c * sizeof *nr);
        if (!nr)
            return -1;
        f->recs = nr;
        *cap = c;
    }
    memset(&f->recs[f->n++], 0, sizeof(seq_rec));
    return 0;
}

/* Warns of the first few empty records by name, then counts the rest. */
enum { EMPTY_NAMED = 5 };

static void empty_skipped(const char *prog, const char *path, size_t line,
                          const char *id, size_t nth)
{
    if (!prog || nth > EMPTY_NAMED)
        return;
    fprintf(stderr, "%s: %s: line %zu: sequence '%s' is empty; skipped "
            "(--strict-input makes it an error)\n", prog, path, line, id);
}

int seq_file_read(const char *path, int strict, const char *prog,
                  seq_file *f, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    char *data = NULL;
    size_t len = 0;
    if (seq_file_slurp(path, &data, &len, err, errcap))
        return -1;
    int rc = seq_file_parse(data, len, path, strict, prog, f, err, errcap);
    free(data);
    return rc;
}

int seq_file_parse(char *data, size_t len, const char *path, int strict,
                   const char *prog, seq_file *f, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    reader r = { data, data + len, 0 };
    size_t rcap = 0, scap = 0, hl;
    char *h;
    int rc = -1;
    while ((h = next_line(&r, &hl)) && blank(h))
        ;
    if (!h) {
        fail(err, errcap, "%s: no sequences", path);
        goto out;
    }
    if (h[0] != '>' && h[0] != '@') {
        fail(err, errcap, "%s: line %zu: not FASTA or FASTQ (expected '>' or "
             "'@')", path, r.line);
        goto out;
    }
    f->fastq = h[0] == '@';
    while (h) {
        size_t hline = r.line;
        if (h[0] != (f->fastq ? '@' : '>')) {
            fail(err, errcap, "%s: line %zu: expected '%c' to start a record",
                 path, r.line, f->fastq ? '@' : '>');
            goto out;
        }
        if (add_rec(f, &rcap))
            goto nomem;
        seq_rec *rec = &f->recs[f->n - 1];
        scap = 0;
        rec->id = header_id(h + 1);
        if (!rec->id)
            goto nomem;
        if (!rec->id[0]) {
            fail(err, errcap, "%s: line %zu: a record without a name", path,
                 hline);
            goto out;
        }
        size_t ll;
        char *l;
        if (!f->fastq) {
            while ((l = next_line(&r, &ll)) && l[0] != '>')
                if (append(rec, &scap, l, ll))
                    goto nomem;
            h = l;
            while (h && blank(h))
                h = next_line(&r, &hl);
        } else {
            while ((l = next_line(&r, &ll)) && l[0] != '+')
                if (append(rec, &scap, l, ll))
                    goto nomem;
            if (!l) {
                fail(err, errcap, "%s: line %zu: FASTQ record '%s' has no '+' "
                     "line", path, hline, rec->id);
                goto out;
            }
            rec->qual = malloc(rec->len + 1);
            if (!rec->qual)
                goto nomem;
            size_t qn = 0;
            int over = 0;
            while (qn < rec->len && (l = next_line(&r, &ll))) {
                if (qn + ll > rec->len) {
                    over = 1;
                    break;
                }
                memcpy(rec->qual + qn, l, ll);
                qn += ll;
            }
            if (over || qn != rec->len) {
                fail(err, errcap, "%s: line %zu: FASTQ record '%s': %zu "
                     "residues but %s qualities", path, r.line, rec->id,
                     rec->len, over ? "more" : "fewer");
                goto out;
            }
            rec->qual[qn] = 0;
            while ((h = next_line(&r, &hl)) && blank(h))
                ;
        }
        if (rec->len == 0) {
            if (strict) {
                fail(err, errcap, "%s: line %zu: sequence '%s' is empty",
                     path, hline, rec->id);
                goto out;
            }
            empty_skipped(prog, path, hline, rec->id, ++f->skipped);
            free(rec->id);
            free(rec->seq);
            free(rec->qual);
            f->n--;
        }
    }
    if (prog && f->skipped > EMPTY_NAMED)
        fprintf(stderr, "%s: %s: %zu more empty sequences skipped\n", prog,
                path, f->skipped - EMPTY_NAMED);
    if (f->n == 0) {
        fail(err, errcap, "%s: no sequences (%zu empty ones skipped)", path,
             f->skipped);
        goto out;
    }
    rc = 0;
    goto out;
nomem:
    fail(err, errcap, "%s: out of memory", path);
out:
    if (rc)
        seq_file_free(f);
    return rc;
}

void seq_file_free(seq_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->recs[i].id);
        free(f->recs[i].seq);
        free(f->recs[i].qual);
    }
    free(f->recs);
    memset(f, 0, sizeof *f);
}
