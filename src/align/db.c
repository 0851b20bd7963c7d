/*
 * db.c - the sequence database of the database search: building its image
 * (from sequences or FASTA text), writing it, opening a file by mapping it,
 * and the checks every image passes before use (haystack_align.h has the
 * format).
 *
 * A built database and an opened one are the same thing: an image in the
 * file's layout plus pointers into it.  Building lays the image out in
 * memory and then runs the same checks as opening, so the writer and the
 * reader cannot drift apart unnoticed.
 */
#include "db_internal.h"
#include "align_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR 256
#define NSEC 6
#define OFF_SECTIONS 96
#define OFF_CHECKSUM 192
#define ALIGN 64
#define MAX_SEQS ((uint64_t)UINT32_MAX)
/* The first length partition holds lengths 1..64, each next one doubles. */
#define PART_FIRST 64

static const char magic[8] = { 'H', 'A', 'Y', 'S', 'W', 'D', 'B', 0x1a };

enum { S_PART, S_OFFSETS, S_ORDER, S_NAMES_AT, S_NAMES, S_RESIDUES };
static const char *const sec_name[NSEC] = {
    "partitions", "offsets", "order", "names_at", "names", "residues"
};

static void say(char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *msg, size_t cap, const char *fmt, ...)
{
    if (!msg || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
}

#define FAIL(st_, ...)                      \
    do {                                    \
        say(msg, msgcap, __VA_ARGS__);      \
        return (st_);                       \
    } while (0)

static int little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* FNV-1a 64 over 8-byte words (the last one zero-padded): the format's
 * checksum, continued from h. */
static uint64_t fnv_words(uint64_t h, const uint8_t *p, uint64_t len)
{
    const uint64_t prime = 0x100000001b3ULL;
    uint64_t i = 0;
    for (; i + 8 <= len; i += 8) {
        h ^= rd64(p + i);
        h *= prime;
    }
    if (i < len) {
        uint8_t last[8] = { 0 };
        memcpy(last, p + i, (size_t)(len - i));
        h ^= rd64(last);
        h *= prime;
    }
    return h;
}

static uint64_t checksum(const uint8_t *img)
{
    uint8_t hdr[HDR];
    memcpy(hdr, img, HDR);
    wr64(hdr + OFF_CHECKSUM, 0);
    uint64_t h = fnv_words(0xcbf29ce484222325ULL, hdr, HDR);
    for (int k = 0; k < S_RESIDUES; k++) {
        uint64_t off = rd64(img + OFF_SECTIONS + 16 * k);
        uint64_t size = rd64(img + OFF_SECTIONS + 16 * k + 8);
        h = fnv_words(h, img + off, size);
    }
    return h;
}

/* ------------------------------------------------------------------------
 * The checks: every image, built or read, passes them before use.
 * ---------------------------------------------------------------------- */
static hay_status attach(hay_align_db *db, char *msg, size_t msgcap)
{
    const uint8_t *img = db->image;
    uint64_t size = db->image_len;
    if (!little_endian())
        FAIL(HAY_ERR_UNSUPPORTED, "database files are little-endian; this "
             "machine is not");
    if (size < 8 || memcmp(img, magic, 8))
        FAIL(HAY_ERR_INVALID, "not a hay sequence database (bad magic)");
    if (size < HDR)
        FAIL(HAY_ERR_INVALID, "truncated: %llu bytes, shorter than the "
             "%d-byte header", (unsigned long long)size, HDR);
    db->version = rd32(img + 8);
    if (db->version != HAY_ALIGN_DB_VERSION)
        FAIL(HAY_ERR_INVALID, "database format version %u; this hay reads "
             "version %d (rebuild it with hay db build)", db->version,
             HAY_ALIGN_DB_VERSION);
    if (rd32(img + 12) != HDR)
        FAIL(HAY_ERR_INVALID, "bad header size %u", rd32(img + 12));
    for (int i = OFF_CHECKSUM + 8; i < HDR; i++)
        if (img[i])
            FAIL(HAY_ERR_INVALID, "reserved header byte %d is not zero", i);
    uint64_t fsize = rd64(img + 88);
    if (fsize != size)
        FAIL(HAY_ERR_INVALID, "%s: %llu bytes, the header says %llu",
             size < fsize ? "truncated" : "trailing bytes",
             (unsigned long long)size, (unsigned long long)fsize);
    uint32_t alpha = rd32(img + 16), flags = rd32(img + 20);
    if (alpha < 1 || alpha > HAY_ALIGN_MAX_ALPHA)
        FAIL(HAY_ERR_INVALID, "bad alphabet size %u", alpha);
    if (flags & ~1u)
        FAIL(HAY_ERR_INVALID, "unknown flags 0x%x", flags);
    db->alpha = (int)alpha;
    db->dna = (int)(flags & 1u);
    memset(db->letters, 0, sizeof db->letters);
    memcpy(db->letters, img + 24, HAY_ALIGN_MAX_ALPHA);
    for (uint32_t a = 0; a < HAY_ALIGN_MAX_ALPHA; a++) {
        char c = db->letters[a];
        if ((a < alpha) != (c > ' ' && c < 127) ||
            (a < alpha && memchr(db->letters, c, a)))
            FAIL(HAY_ERR_INVALID, "bad alphabet letters");
    }
    db->nseq = rd64(img + 56);
    db->nres = rd64(img + 64);
    db->longest = rd64(img + 72);
    db->npart = rd64(img + 80);
    if (db->nseq == 0)
        FAIL(HAY_ERR_INVALID, "empty database (no sequence)");
    if (db->nseq > MAX_SEQS)
        FAIL(HAY_ERR_INVALID, "%llu sequences, more than %llu",
             (unsigned long long)db->nseq, (unsigned long long)MAX_SEQS);
    if (db->npart == 0 || db->npart > db->nseq || db->npart > 64)
        FAIL(HAY_ERR_INVALID, "bad partition count %llu",
             (unsigned long long)db->npart);
    const uint64_t want[NSEC] = {
        db->npart * 32, (db->nseq + 1) * 8, db->nseq * 4, (db->nseq + 1) * 8,
        UINT64_MAX, db->nres
    };
    const void *at[NSEC];
    for (int k = 0; k < NSEC; k++) {
        uint64_t off = rd64(img + OFF_SECTIONS + 16 * k);
        uint64_t len = rd64(img + OFF_SECTIONS + 16 * k + 8);
        if (off % 8 || off < HDR || off > size || len > size - off)
            FAIL(HAY_ERR_INVALID, "section %s (offset %llu, %llu bytes) is "
                 "not inside the %llu-byte file", sec_name[k],
                 (unsigned long long)off, (unsigned long long)len,
                 (unsigned long long)size);
        if (want[k] != UINT64_MAX && len != want[k])
            FAIL(HAY_ERR_INVALID, "section %s has %llu bytes, expected %llu",
                 sec_name[k], (unsigned long long)len,
                 (unsigned long long)want[k]);
        at[k] = img + off;
    }
    uint64_t names_len = rd64(img + OFF_SECTIONS + 16 * S_NAMES + 8);
    if (checksum(img) != rd64(img + OFF_CHECKSUM))
        FAIL(HAY_ERR_INVALID, "checksum mismatch: the header or index is "
             "corrupt");
    db->part = at[S_PART];
    db->offsets = at[S_OFFSETS];
    db->order = at[S_ORDER];
    db->names_at = at[S_NAMES_AT];
    db->names = at[S_NAMES];
    db->codes = at[S_RESIDUES];

    /* Offsets: from 0 to nres, every sequence at least one residue,
     * lengths not decreasing (the sorted order). */
    const uint64_t *o = db->offsets;
    if (o[0] != 0 || o[db->nseq] != db->nres)
        FAIL(HAY_ERR_INVALID, "offsets do not span the residues");
    uint64_t prev = 1;
    for (uint64_t i = 0; i < db->nseq; i++) {
        if (o[i + 1] <= o[i] || o[i + 1] > db->nres)
            FAIL(HAY_ERR_INVALID, "bad offset of sequence %llu",
                 (unsigned long long)i);
        uint64_t len = o[i + 1] - o[i];
        if (len < prev)
            FAIL(HAY_ERR_INVALID, "sequences not sorted by length at %llu",
                 (unsigned long long)i);
        prev = len;
    }
    if (prev != db->longest)
        FAIL(HAY_ERR_INVALID, "longest sequence %llu, the header says %llu",
             (unsigned long long)prev, (unsigned long long)db->longest);
    /* Partitions tile the sorted order. */
    uint64_t next = 0;
    for (uint64_t p = 0; p < db->npart; p++) {
        const uint64_t *q = db->part + 4 * p;
        if (q[0] != next || q[1] == 0 || q[1] > db->nseq - next ||
            q[2] > q[3] || o[q[0] + 1] - o[q[0]] < q[2] ||
            o[q[0] + q[1]] - o[q[0] + q[1] - 1] > q[3])
            FAIL(HAY_ERR_INVALID, "bad length partition %llu",
                 (unsigned long long)p);
        next += q[1];
    }
    if (next != db->nseq)
        FAIL(HAY_ERR_INVALID, "partitions do not cover the sequences");
    /* order is a permutation; rank is its inverse. */
    db->rank = malloc(db->nseq * sizeof *db->rank);
    if (!db->rank)
        FAIL(HAY_ERR_NOMEM, "out of memory");
    memset(db->rank, 0xff, db->nseq * sizeof *db->rank);
    for (uint64_t i = 0; i < db->nseq; i++) {
        uint32_t t = db->order[i];
        if (t >= db->nseq || db->rank[t] != UINT32_MAX)
            FAIL(HAY_ERR_INVALID, "the order section is not a permutation");
        db->rank[t] = (uint32_t)i;
    }
    /* Names: one NUL-terminated name each, no NUL inside. */
    const uint64_t *na = db->names_at;
    if (na[0] != 0 || na[db->nseq] != names_len)
        FAIL(HAY_ERR_INVALID, "name offsets do not span the names");
    for (uint64_t i = 0; i < db->nseq; i++) {
        if (na[i + 1] <= na[i] || na[i + 1] > names_len ||
            memchr(db->names + na[i], 0, (size_t)(na[i + 1] - na[i])) !=
                db->names + na[i + 1] - 1)
            FAIL(HAY_ERR_INVALID, "bad name of sequence %llu",
                 (unsigned long long)i);
    }
    /* Residues: every code inside the alphabet (the engines index their
     * profiles with them). */
    uint8_t top = 0;
    for (uint64_t i = 0; i < db->nres; i++)
        top = db->codes[i] > top ? db->codes[i] : top;
    if (top >= alpha)
        FAIL(HAY_ERR_INVALID, "residue code %u outside the %u-letter "
             "alphabet", top, alpha);
    return HAY_OK;
}

/* ------------------------------------------------------------------------
 * Building
 * ---------------------------------------------------------------------- */
typedef struct lenidx {
    uint64_t len;
    uint32_t idx;
} lenidx;

static int by_len(const void *a, const void *b)
{
    const lenidx *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int part_of(uint64_t len)
{
    int p = 0;
    for (uint64_t b = PART_FIRST; len > b; b *= 2)
        p++;
    return p;
}

static uint64_t up(uint64_t x)
{
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

hay_status hay_align_db_create(const hay_align_scoring *s,
                               const hay_align_db_input *seqs, size_t n,
                               hay_align_db **out, char *msg, size_t msgcap)
{
    if (!out)
        return HAY_ERR_INVALID;
    *out = NULL;
    if (!s || (n && !seqs))
        FAIL(HAY_ERR_INVALID, "invalid argument");
    if (n == 0)
        FAIL(HAY_ERR_INVALID, "empty database (no sequence)");
    if ((uint64_t)n > MAX_SEQS)
        FAIL(HAY_ERR_INVALID, "%zu sequences, more than %llu", n,
             (unsigned long long)MAX_SEQS);
    uint64_t nres = 0, names_len = 0;
    for (size_t i = 0; i < n; i++) {
        if (!seqs[i].residues || seqs[i].len == 0)
            FAIL(HAY_ERR_INVALID, "sequence %zu ('%.*s') is empty", i + 1,
                 (int)(seqs[i].name_len < 200 ? seqs[i].name_len : 200),
                 seqs[i].name ? seqs[i].name : "");
        if (seqs[i].name_len && (!seqs[i].name ||
                                 memchr(seqs[i].name, 0, seqs[i].name_len)))
            FAIL(HAY_ERR_INVALID, "sequence %zu: bad name", i + 1);
        nres += seqs[i].len;
        names_len += seqs[i].name_len + 1;
    }
    hay_status st = HAY_ERR_NOMEM;
    hay_align_db *db = calloc(1, sizeof *db);
    lenidx *li = malloc(n * sizeof *li);
    if (db)
        hay_db_gpu_init(db);
    if (!db || !li)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        li[i].len = seqs[i].len;
        li[i].idx = (uint32_t)i;
    }
    qsort(li, n, sizeof *li, by_len);
    uint64_t npart = 1;
    for (size_t i = 1; i < n; i++)
        npart += part_of(li[i].len) != part_of(li[i - 1].len);

    uint64_t sz[NSEC] = { npart * 32, ((uint64_t)n + 1) * 8, (uint64_t)n * 4,
                          ((uint64_t)n + 1) * 8, names_len, nres };
    uint64_t off[NSEC], pos = HDR;
    for (int k = 0; k < NSEC; k++) {
        off[k] = pos;
        pos = up(pos + sz[k]);
    }
    uint64_t total = off[S_RESIDUES] + nres;
    if (total > SIZE_MAX) {
        st = HAY_ERR_TOO_LARGE;
        goto fail;
    }
    uint8_t *img = calloc(1, (size_t)total);
    if (!img)
        goto fail;
    db->image = img;
    db->image_len = (size_t)total;

    memcpy(img, magic, 8);
    wr32(img + 8, HAY_ALIGN_DB_VERSION);
    wr32(img + 12, HDR);
    wr32(img + 16, (uint32_t)s->alpha);
    wr32(img + 20, s->dna ? 1u : 0u);
    memcpy(img + 24, s->letters, (size_t)s->alpha);
    wr64(img + 56, n);
    wr64(img + 64, nres);
    wr64(img + 72, li[n - 1].len);
    wr64(img + 80, npart);
    wr64(img + 88, total);
    for (int k = 0; k < NSEC; k++) {
        wr64(img + OFF_SECTIONS + 16 * k, off[k]);
        wr64(img + OFF_SECTIONS + 16 * k + 8, sz[k]);
    }
    uint8_t *part = img + off[S_PART], *offs = img + off[S_OFFSETS];
    uint8_t *order = img + off[S_ORDER], *nat = img + off[S_NAMES_AT];
    char *names = (char *)img + off[S_NAMES];
    uint8_t *codes = img + off[S_RESIDUES];
    uint64_t r = 0, p = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        const hay_align_db_input *in = &seqs[li[i].idx];
        size_t bad;
        wr64(offs + 8 * i, r);
        wr32(order + 4 * i, li[i].idx);
        if (hay_align_encode(s, in->residues, in->len, codes + r, &bad) !=
            HAY_OK) {
            unsigned char c = ((const unsigned char *)in->residues)[bad];
            say(msg, msgcap, "sequence '%.*s': invalid residue '%c' (0x%02x) "
                "at position %zu for %s scoring (letters %s)",
                (int)(in->name_len < 200 ? in->name_len : 200),
                in->name ? in->name : "", c > ' ' && c < 127 ? c : '?', c,
                bad + 1, s->name, s->letters);
            st = HAY_ERR_INVALID;
            goto fail;
        }
        r += in->len;
        if (i + 1 == n || part_of(li[i + 1].len) != part_of(li[i].len)) {
            wr64(part + 32 * p, first);
            wr64(part + 32 * p + 8, i + 1 - first);
            wr64(part + 32 * p + 16, li[first].len);
            wr64(part + 32 * p + 24, li[i].len);
            p++;
            first = i + 1;
        }
    }
    wr64(offs + 8 * n, r);
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) {
        wr64(nat + 8 * i, w);
        if (seqs[i].name_len)
            memcpy(names + w, seqs[i].name, seqs[i].name_len);
        w += seqs[i].name_len + 1;
    }
    wr64(nat + 8 * n, w);
    wr64(img + OFF_CHECKSUM, checksum(img));
    free(li);
    li = NULL;
    st = attach(db, msg, msgcap);
    if (st != HAY_OK)
        goto fail;
    *out = db;
    return HAY_OK;
fail:
    if (st == HAY_ERR_NOMEM)
        say(msg, msgcap, "out of memory");
    else if (st == HAY_ERR_TOO_LARGE)
        say(msg, msgcap, "database too large for this machine's memory");
    free(li);
    hay_align_db_free(db);
    return st;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
}

hay_status hay_align_db_from_fasta(const hay_align_scoring *s,
                                   const void *text, size_t len,
                                   hay_align_db **out, char *msg,
                                   size_t msgcap)
{
    if (!out)
        return HAY_ERR_INVALID;
    *out = NULL;
    if (!s || (len && !text))
        FAIL(HAY_ERR_INVALID, "invalid argument");
    const char *t = text;
    /* Two passes: count records, then gather names and residues (the
     * residues with whitespace removed, into one buffer). */
    size_t nrec = 0, line = 1;
    for (size_t i = 0; i < len; i++)
        if (t[i] == '>' && (i == 0 || t[i - 1] == '\n'))
            nrec++;
    hay_align_db_input *in = calloc(nrec ? nrec : 1, sizeof *in);
    char *res = malloc(len ? len : 1);
    size_t *at = calloc(nrec ? nrec : 1, sizeof *at);
    hay_status st = HAY_ERR_NOMEM;
    if (!in || !res || !at)
        goto out;
    st = HAY_ERR_INVALID;
    size_t k = 0, w = 0, rec_line = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && t[e] != '\n')
            e++;
        if (t[i] == '>') {
            if (k && in[k - 1].len == 0) {
                say(msg, msgcap, "line %zu: empty sequence", rec_line);
                goto out;
            }
            size_t a = i + 1;
            while (a < e && is_space((unsigned char)t[a]))
                a++;
            size_t b = a;
            while (b < e && !is_space((unsigned char)t[b]) && t[b])
                b++;
            in[k].name = t + a;
            in[k].name_len = b - a;
            at[k] = w;
            rec_line = line;
            k++;
        } else {
            for (size_t j = i; j < e; j++) {
                if (is_space((unsigned char)t[j]))
                    continue;
                if (k == 0) {
                    say(msg, msgcap, "line %zu: text before the first '>' "
                        "header: not FASTA", line);
                    goto out;
                }
                res[w++] = t[j];
                in[k - 1].len++;
            }
        }
        i = e + 1;
        line++;
    }
    if (k == 0) {
        say(msg, msgcap, "no sequence: empty database");
        goto out;
    }
    if (in[k - 1].len == 0) {
        say(msg, msgcap, "line %zu: empty sequence", rec_line);
        goto out;
    }
    for (size_t i = 0; i < k; i++)
        in[i].residues = res + at[i];
    st = hay_align_db_create(s, in, k, out, msg, msgcap);
out:
    if (st == HAY_ERR_NOMEM)
        say(msg, msgcap, "out of memory");
    free(in);
    free(res);
    free(at);
    return st;
}

/* ------------------------------------------------------------------------
 * Files
 * ---------------------------------------------------------------------- */
hay_status hay_align_db_write(const hay_align_db *db, const char *path,
                              char *msg, size_t msgcap)
{
    if (!db || !path)
        FAIL(HAY_ERR_INVALID, "invalid argument");
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        FAIL(HAY_ERR_NOMEM, "out of memory");
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        say(msg, msgcap, "cannot create a file there: %s", strerror(errno));
        free(tmp);
        return HAY_ERR_INVALID;
    }
    const uint8_t *p = db->image;
    size_t left = db->image_len;
    int err = 0;
    while (left) {
        ssize_t k = write(fd, p, left > ((size_t)1 << 30) ? (size_t)1 << 30
                                                          : left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            err = k < 0 ? errno : EIO;
            break;
        }
        p += k;
        left -= (size_t)k;
    }
    if (!err && fchmod(fd, 0644) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        say(msg, msgcap, "cannot write: %s", strerror(err));
    }
    free(tmp);
    return err ? HAY_ERR_INVALID : HAY_OK;
}

int hay_align_db_is_db(const void *head, size_t len)
{
    return head && len >= 8 && !memcmp(head, magic, 8);
}

hay_status hay_align_db_open(const char *path, hay_align_db **out, char *msg,
                             size_t msgcap)
{
    if (!out)
        return HAY_ERR_INVALID;
    *out = NULL;
    if (!path)
        FAIL(HAY_ERR_INVALID, "invalid argument");
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        FAIL(HAY_ERR_INVALID, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        FAIL(HAY_ERR_INVALID, "not a regular file");
    }
    if (sb.st_size < 8 || (uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        FAIL(HAY_ERR_INVALID, sb.st_size < 8 ? "not a hay sequence database "
             "(%lld bytes)" : "too large to map (%lld bytes)",
             (long long)sb.st_size);
    }
    hay_align_db *db = calloc(1, sizeof *db);
    if (!db) {
        close(fd);
        FAIL(HAY_ERR_NOMEM, "out of memory");
    }
    hay_db_gpu_init(db);
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int merr = errno;
    close(fd);
    if (m == MAP_FAILED) {
        hay_align_db_free(db);
        FAIL(HAY_ERR_INVALID, "cannot map: %s", strerror(merr));
    }
    db->image = m;
    db->image_len = (size_t)sb.st_size;
    db->mapped = 1;
    hay_status st = attach(db, msg, msgcap);
    if (st != HAY_OK) {
        hay_align_db_free(db);
        return st;
    }
    *out = db;
    return HAY_OK;
}

void hay_align_db_free(hay_align_db *db)
{
    if (!db)
        return;
    hay_db_gpu_release(db);
    if (db->mapped)
        munmap(db->image, db->image_len);
    else
        free(db->image);
    free(db->rank);
    free(db);
}

hay_status hay_align_db_info_get(const hay_align_db *db,
                                 hay_align_db_info *info)
{
    if (!db || !info)
        return HAY_ERR_INVALID;
    memset(info, 0, sizeof *info);
    info->version = db->version;
    info->alpha = db->alpha;
    info->dna = db->dna;
    info->letters = db->letters;
    info->sequences = db->nseq;
    info->residues = db->nres;
    info->longest = db->longest;
    info->partitions = db->npart;
    info->mapped = db->mapped;
    return HAY_OK;
}

hay_status hay_align_db_seq(const hay_align_db *db, uint32_t i,
                            const char **name, const uint8_t **codes,
                            size_t *len)
{
    if (!db || i >= db->nseq)
        return HAY_ERR_INVALID;
    uint32_t r = db->rank[i];
    if (name)
        *name = db->names + db->names_at[i];
    if (codes)
        *codes = db->codes + db->offsets[r];
    if (len)
        *len = (size_t)(db->offsets[r + 1] - db->offsets[r]);
    return HAY_OK;
}

hay_status hay_align_db_check_scoring(const hay_align_db *db,
                                      const hay_align_scoring *s)
{
    if (!db || !s)
        return HAY_ERR_INVALID;
    if (s->alpha != db->alpha || memcmp(s->letters, db->letters,
                                        (size_t)db->alpha))
        return HAY_ERR_INVALID;
    return HAY_OK;
}
