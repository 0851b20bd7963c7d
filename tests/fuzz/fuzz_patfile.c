/*
 * fuzz_patfile.c - libFuzzer target for the CLI's pattern-list parser
 * (programs/patfile.c).
 *
 * The input is taken as the text of a -f file and parsed four ways (escapes
 * on/off x final newline ends the list or not).  Each result is checked
 * against an oracle written here from the contract in patfile.h: the lines,
 * the empty-pattern count, the decoded bytes, and on an escape error the
 * line and column named in the message.  pat_decode_escapes() is checked on
 * the whole input too.  Any disagreement aborts.
 */
#include "patfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) { \
    fprintf(stderr, "fuzz_patfile: check failed at line %d: %s\n", __LINE__, #c); \
    abort(); } } while (0)

static int hexdigit(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Oracle decoder: out gets the decoded bytes; returns the new length or -1
 * with *bad at the first backslash that does not start \xHH. */
static long oracle_decode(const uint8_t *s, size_t len, uint8_t *out, size_t *bad)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            out[o++] = s[i];
            continue;
        }
        if (len - i >= 4 && s[i + 1] == 'x' && hexdigit(s[i + 2]) >= 0 &&
            hexdigit(s[i + 3]) >= 0) {
            out[o++] = (uint8_t)(hexdigit(s[i + 2]) * 16 + hexdigit(s[i + 3]));
            i += 3;
            continue;
        }
        *bad = i;
        return -1;
    }
    return (long)o;
}

static void check_decode(const uint8_t *data, size_t size)
{
    uint8_t *a = malloc(size ? size : 1), *b = malloc(size ? size : 1);
    CHECK(a && b);
    memcpy(a, data, size);
    size_t bad_a = (size_t)-1, bad_b = (size_t)-1;
    long na = pat_decode_escapes(a, size, &bad_a);
    long nb = oracle_decode(data, size, b, &bad_b);
    CHECK(na == nb);
    if (na >= 0) {
        CHECK((size_t)na <= size);
        CHECK(memcmp(a, b, (size_t)na) == 0);
    } else {
        CHECK(bad_a == bad_b);
    }
    memcpy(a, data, size);
    CHECK(pat_decode_escapes(a, size, NULL) == nb);   /* bad may be NULL */
    free(a);
    free(b);
}

/* Parses data one way and compares with the oracle. */
static void check_list(const uint8_t *data, size_t size, bool escapes,
                       bool final_ends)
{
    pat_list l;
    memset(&l, 0, sizeof l);
    char err[256];
    memset(err, 0, sizeof err);
    int rc = pat_list_add_text(&l, data, size, escapes, final_ends, "ORIGIN",
                               err, sizeof err);

    /* Oracle: split on '\n'; a final newline (or an empty text) ends the
     * list when final_ends is set. */
    uint8_t *dec = malloc(size ? size : 1);
    CHECK(dec);
    size_t k = 0, empty = 0, line = 1, pos = 0;
    bool failed = false;
    size_t fail_line = 0, fail_col = 0;
    for (;;) {
        if (final_ends && pos == size && (size == 0 || data[size - 1] == '\n'))
            break;
        const uint8_t *nl = pos < size ? memchr(data + pos, '\n', size - pos) : NULL;
        size_t end = nl ? (size_t)(nl - data) : size;
        const uint8_t *p = data + pos;
        size_t n = end - pos;
        if (escapes) {
            size_t bad = 0;
            long m = oracle_decode(p, n, dec, &bad);
            if (m < 0) {
                failed = true;
                fail_line = line;
                fail_col = bad + 1;
                break;
            }
            p = dec;
            n = (size_t)m;
        }
        if (n == 0) {
            empty++;
        } else {
            CHECK(k < l.n);
            CHECK(l.items[k].len == n);
            CHECK(memcmp(l.items[k].data, p, n) == 0);
            k++;
        }
        if (!nl)
            break;
        pos = end + 1;
        line++;
    }
    if (failed) {
        CHECK(rc == -1);
        char want[64];
        snprintf(want, sizeof want, "ORIGIN:%zu: invalid escape at column %zu ",
                 fail_line, fail_col);
        CHECK(memchr(err, '\0', sizeof err) != NULL);
        CHECK(strncmp(err, want, strlen(want)) == 0);
    } else {
        CHECK(rc == 0);
        CHECK(k == l.n);
        CHECK(empty == l.empty);
        CHECK(l.n <= l.cap);
        for (size_t i = 0; i < l.n; i++)
            CHECK(l.items[i].len > 0 && l.items[i].len <= size);
    }
    free(dec);

    /* Appending to a list that already holds patterns keeps them. */
    if (rc == 0 && !escapes && final_ends) {
        size_t n0 = l.n, e0 = l.empty;
        CHECK(pat_list_add_text(&l, data, size, false, true, "again", err,
                                sizeof err) == 0);
        CHECK(l.n == 2 * n0 && l.empty == 2 * e0);
        for (size_t i = 0; i < n0; i++) {
            CHECK(l.items[n0 + i].len == l.items[i].len);
            CHECK(memcmp(l.items[n0 + i].data, l.items[i].data, l.items[i].len) == 0);
        }
    }
    pat_list_free(&l);
    CHECK(l.n == 0 && l.items == NULL && l.empty == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exactly-sized copy so that reads past the end are caught. */
    uint8_t *copy = malloc(size ? size : 1);
    CHECK(copy);
    memcpy(copy, data, size);
    check_decode(copy, size);
    for (int esc = 0; esc < 2; esc++)
        for (int fin = 0; fin < 2; fin++)
            check_list(copy, size, esc, fin);
    free(copy);
    return 0;
}
