/*
 * realdata.c - real text against the oracle.
 *
 *   test_realdata <data dir>     (CMake passes ${CMAKE_SOURCE_DIR}/../shared/data)
 *
 * For every file in <data>/text: every engine, serial and parallel, for a
 * frequent word, a rare word, a caseless word and the file's most common
 * byte (all taken from the file itself); then the multi-pattern engines
 * for ~200 words of patterns/english-words-15plus.txt plus words of the
 * file, exact and caseless, on a slice of the file.  Then the Snort
 * content strings (patterns/snort-community.txt, \xHH escapes decoded) on
 * a 200 KB slice with some of them planted (caseless: 50 KB of it): every
 * multi-pattern engine against the library's naive engine.  Exits 77 when the folder is absent.
 */
#include "testutil.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENGINES 32
#define WORD_SAMPLE ((size_t)256 << 10)
#define WORD_TABLE 65536
#define MAX_WORD 24
#define DICT_WORDS 200
#define FILE_WORDS 24
#define SLICE ((size_t)512 << 10)
#define SNORT_SLICE ((size_t)200 << 10)
#define SNORT_PLANTED 400

static tu_engine engines[MAX_ENGINES];
static size_t nengines;

/* ---- words of a file ------------------------------------------------------------ */

typedef struct word {
    const uint8_t *p;
    size_t len;
    size_t count;
} word;

static bool word_byte(uint8_t c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? true : c >= 0x80;
}

static uint64_t hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Words (runs of letters or non-ASCII bytes, 3..MAX_WORD long) of the
 * first WORD_SAMPLE bytes, counted in an open-addressing table. */
static word *count_words(const uint8_t *d, size_t len)
{
    word *t = calloc(WORD_TABLE, sizeof *t);
    size_t n = len < WORD_SAMPLE ? len : WORD_SAMPLE, used = 0;
    for (size_t i = 0; i < n;) {
        if (!word_byte(d[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && word_byte(d[j]))
            j++;
        size_t m = j - i;
        if (m >= 3 && m <= MAX_WORD && used < WORD_TABLE / 2) {
            size_t h = (size_t)hash(d + i, m) & (WORD_TABLE - 1);
            while (t[h].p && (t[h].len != m || memcmp(t[h].p, d + i, m) != 0))
                h = (h + 1) & (WORD_TABLE - 1);
            if (!t[h].p) {
                t[h].p = d + i;
                t[h].len = m;
                used++;
            }
            t[h].count++;
        }
        i = j;
    }
    return t;
}

typedef struct picks {
    hay_pattern frequent, rare, caseless;
    uint8_t byte;
    uint8_t flipped[MAX_WORD];   /* the caseless word with its case flipped */
} picks;

static void pick_words(const uint8_t *d, size_t len, picks *pk)
{
    word *t = count_words(d, len);
    const word *freq = NULL, *rare = NULL, *ascii = NULL;
    for (size_t h = 0; h < WORD_TABLE; h++) {
        const word *w = &t[h];
        if (!w->p)
            continue;
        if (!freq || w->count > freq->count)
            freq = w;
        if (w->count == 1 && w->len >= 7 && (!rare || w->p > rare->p))
            rare = w;
        if (w->p[0] < 0x80 && w->len >= 4 && (!ascii || w->count > ascii->count))
            ascii = w;
    }
    /* Without words (e.g. one long run of a letter): bytes of the middle,
     * and the end of the file, where such inputs keep their odd byte. */
    size_t tail = len > 13 ? 12 : len ? len - 1 : 0;
    hay_pattern mid = { d + len / 2, len >= 8 ? 4 : 1 };
    pk->frequent = freq ? (hay_pattern){ freq->p, freq->len } : mid;
    pk->rare = rare ? (hay_pattern){ rare->p, rare->len }
                    : (hay_pattern){ d + len - 1 - tail, tail ? tail : 1 };
    hay_pattern cw = ascii ? (hay_pattern){ ascii->p, ascii->len } : mid;
    memcpy(pk->flipped, cw.data, cw.len);
    for (size_t i = 0; i < cw.len; i++)
        if ((pk->flipped[i] | 0x20) >= 'a' && (pk->flipped[i] | 0x20) <= 'z')
            pk->flipped[i] ^= 0x20;
    pk->caseless = (hay_pattern){ pk->flipped, cw.len };
    size_t hist[256] = { 0 };
    for (size_t i = 0; i < len; i++)
        hist[d[i]]++;
    pk->byte = 0;
    for (int c = 1; c < 256; c++)
        if (hist[c] > hist[pk->byte])
            pk->byte = (uint8_t)c;
    free(t);
}

/* ---- runs ----------------------------------------------------------------------- */

static void run_engine(const tu_engine *e, const hay_pattern *p, size_t n,
                       bool caseless, const uint8_t *d, size_t len,
                       const tu_mlist *exp, const char *what)
{
    hay_patterns *set = NULL;
    hay_status s = tu_compile(e, p, n, caseless, &set);
    if (n > 1 && !e->multi)
        return;
    if (s == HAY_ERR_TOO_LARGE && n > 64 && e->algo && strcmp(e->algo, "teddy") == 0)
        return;   /* teddy's limit (src/cpu/teddy.h) */
    if (!CHECK(s == HAY_OK, "%s: compile %s: %s", what, e->label, hay_strerror(s)))
        return;
    hay_scratch *scr = NULL;
    hay_scratch_create(set, &scr);
    for (int par = 0; par < 2; par++) {
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = par ? 2 : 1;
        o.chunk_size = par ? (size_t)256 << 10 : 0;
        tu_checker ck;
        tu_checker_init(&ck, exp, 0, p, n);
        s = hay_scan(set, scr, d, len, &o, tu_check_cb, &ck);
        bool ok = tu_checker_done(&ck, false);
        CHECK(s == HAY_OK && ok, "%s: %s threads %u: %s; %s", what, e->label,
              o.threads, hay_strerror(s), ok ? "ok" : ck.err);
        tu_checker_free(&ck);
        uint64_t c = 0;
        s = hay_scan_count(set, scr, d, len, &o, &c);
        CHECK(s == HAY_OK && c == exp->n, "%s: count %s threads %u: %s, %" PRIu64
              " want %zu", what, e->label, o.threads, hay_strerror(s), c, exp->n);
    }
    hay_scratch_free(scr);
    hay_patterns_free(set);
}

static void check_single(const char *file, const uint8_t *d, size_t len,
                         const hay_pattern *p, bool caseless, const char *kind)
{
    tu_mlist exp = { 0 };
    tu_oracle(d, len, p, 1, caseless, &exp);
    char shown[4 * MAX_WORD + 1], what[256];
    size_t k = 0;
    for (size_t i = 0; i < p->len && i < MAX_WORD; i++) {
        uint8_t c = ((const uint8_t *)p->data)[i];
        k += (size_t)snprintf(shown + k, sizeof shown - k,
                              c >= 0x20 && c < 0x7f && c != '\\' ? "%c" : "\\x%02x", c);
    }
    snprintf(what, sizeof what, "%s, %s word '%s'%s (%zu matches)", file, kind,
             shown, caseless ? " caseless" : "", exp.n);
    for (size_t i = 0; i < nengines; i++)
        run_engine(&engines[i], p, 1, caseless, d, len, &exp, what);
    printf("  %-10s %-26s %8zu matches\n", kind, shown, exp.n);
    tu_mlist_free(&exp);
}

/* ~200 dictionary words and FILE_WORDS words of the file, on a slice. */
static void check_dictionary(const char *file, const uint8_t *d, size_t len,
                             const hay_pattern *dict, size_t ndict)
{
    hay_pattern p[DICT_WORDS + FILE_WORDS];
    size_t n = 0;
    for (size_t i = 0; i < DICT_WORDS && ndict; i++)
        p[n++] = dict[(i * 7919) % ndict];
    tu_rng r = { len };
    for (size_t k = 0; k < FILE_WORDS * 20 && n < DICT_WORDS + FILE_WORDS && len > 64; k++) {
        size_t at = (size_t)tu_below(&r, len - 32);
        while (at < len - 32 && word_byte(d[at]))
            at++;
        size_t m = 0;
        while (at + 1 + m < len && m < 12 && word_byte(d[at + 1 + m]))
            m++;
        if (m >= 5) {
            p[n].data = d + at + 1;
            p[n].len = m;
            n++;
        }
    }
    size_t slen = tu_scaled(SLICE, 4096);
    if (slen > len)
        slen = len;
    const uint8_t *s = d + (len - slen) / 2;
    for (int caseless = 0; caseless < 2; caseless++) {
        tu_mlist exp = { 0 };
        tu_oracle(s, slen, p, n, caseless, &exp);
        char what[200];
        snprintf(what, sizeof what, "%s, %zu dictionary and file words%s, %zu KB "
                 "slice (%zu matches)", file, n, caseless ? " caseless" : "",
                 slen >> 10, exp.n);
        for (size_t i = 0; i < nengines; i++) {
            const tu_engine *e = &engines[i];
            if (e->multi && !(e->algo && strcmp(e->algo, "naive") == 0))
                run_engine(e, p, n, caseless, s, slen, &exp, what);
        }
        printf("  %zu words%s: %zu matches in %zu KB\n", n,
               caseless ? " caseless" : "", exp.n, slen >> 10);
        tu_mlist_free(&exp);
    }
}

static int cmp_match(const void *a, const void *b)
{
    const tu_match *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int record_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_mlist_push(ctx, id, start, end);
    return 0;
}

/* Snort content strings: every multi-pattern engine against naive. */
static void check_snort(const char *data_dir, const uint8_t *text, size_t tlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/patterns/snort-community.txt", data_dir);
    size_t n;
    uint8_t *store;
    hay_pattern *p = tu_read_patterns(path, &n, &store);
    if (!p) {
        printf("SKIP: %s not readable\n", path);
        return;
    }
    size_t len = tu_scaled(SNORT_SLICE, 8192);
    uint8_t *d = malloc(len);
    for (size_t i = 0; i < len; i++)
        d[i] = text[i % tlen];
    tu_rng r = { 4550 };
    for (int k = 0; k < SNORT_PLANTED; k++) {
        const hay_pattern *q = &p[tu_below(&r, n)];
        if (q->len < len)
            memcpy(d + tu_below(&r, len - q->len), q->data, q->len);
    }
    for (int caseless = 0; caseless < 2; caseless++) {
        if (caseless)
            len = len / 4;   /* the naive reference is slow: a quarter */
        hay_compile_opts o;
        hay_compile_opts_init(&o);
        o.algo = "naive";
        o.flags = caseless ? HAY_CASELESS : 0;
        hay_patterns *set = NULL;
        hay_status s = hay_patterns_compile(p, n, &o, &set);
        if (!CHECK(s == HAY_OK, "compile snort naive: %s", hay_strerror(s)))
            break;
        hay_scratch *scr = NULL;
        hay_scratch_create(set, &scr);
        hay_scan_opts so;
        hay_scan_opts_init(&so);
        so.threads = 2;
        so.chunk_size = len / 8 + 1;
        tu_mlist exp = { 0 };
        s = hay_scan(set, scr, d, len, &so, record_cb, &exp);
        CHECK(s == HAY_OK, "snort naive scan: %s", hay_strerror(s));
        qsort(exp.m, exp.n, sizeof *exp.m, cmp_match);
        hay_scratch_free(scr);
        hay_patterns_free(set);
        char what[160];
        snprintf(what, sizeof what, "snort-community.txt (%zu patterns%s) on %zu KB "
                 "(%zu matches by naive)", n, caseless ? ", caseless" : "",
                 len >> 10, exp.n);
        for (size_t i = 0; i < nengines; i++) {
            const tu_engine *e = &engines[i];
            if (e->multi && !(e->algo && strcmp(e->algo, "naive") == 0))
                run_engine(e, p, n, caseless, d, len, &exp, what);
        }
        printf("%s\n", what);
        tu_mlist_free(&exp);
    }
    free(d);
    free(p);
    free(store);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "../shared/data";
    char path[4096];
    snprintf(path, sizeof path, "%s/text", data);
    DIR *dir = opendir(path);
    if (!dir) {
        printf("SKIP: ../shared/data not found (%s)\n", path);
        tu_finish();
        return TU_SKIP;
    }
    char *names[256];
    size_t nn = 0;
    for (struct dirent *de; (de = readdir(dir)) && nn < 256;)
        if (de->d_name[0] != '.')
            names[nn++] = strdup(de->d_name);
    closedir(dir);
    qsort(names, nn, sizeof *names, cmp_str);

    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    snprintf(path, sizeof path, "%s/patterns/english-words-15plus.txt", data);
    size_t ndict = 0;
    uint8_t *dict_store = NULL;
    hay_pattern *dict = tu_read_patterns(path, &ndict, &dict_store);
    if (!dict)
        printf("SKIP: %s not readable; file words only\n", path);

    uint8_t *first = NULL;
    size_t first_len = 0;
    for (size_t i = 0; i < nn; i++) {
        snprintf(path, sizeof path, "%s/text/%s", data, names[i]);
        size_t len;
        uint8_t *d = tu_read_file(path, &len);
        if (!CHECK(d != NULL, "cannot read %s", path))
            continue;
        double t0 = tu_now();
        printf("%s (%zu bytes)\n", names[i], len);
        picks pk;
        pick_words(d, len, &pk);
        check_single(names[i], d, len, &pk.frequent, false, "frequent");
        check_single(names[i], d, len, &pk.rare, false, "rare");
        check_single(names[i], d, len, &pk.caseless, true, "caseless");
        hay_pattern one = { &pk.byte, 1 };
        check_single(names[i], d, len, &one, false, "1-byte");
        check_dictionary(names[i], d, len, dict, dict ? ndict : 0);
        printf("  %.2f s\n", tu_now() - t0);
        fflush(stdout);
        if (!first && len >= 4096) {
            first = d;
            first_len = len;
        } else {
            free(d);
        }
    }
    if (first) {
        double t0 = tu_now();
        check_snort(data, first, first_len);
        printf("  %.2f s\n", tu_now() - t0);
    }
    free(first);
    free(dict);
    free(dict_store);
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    return tu_finish();
}
