/*
 * fuzz_matrix.c - libFuzzer target for the substitution-matrix parser
 * (hay_align_scoring_parse, which reads --matrix FILE), then a differential
 * alignment with the matrix it parsed.
 *
 * Input: two bytes of gap penalties (open 1 to 975,376, so large ones
 * against the matrix's values too; extend a fraction of it), the matrix
 * text up to the first NUL byte, then the sequences: one byte splits the
 * rest into query and target, taken modulo the alphabet.  A refused text
 * must name a line within it (or 0).  A parsed matrix must have distinct
 * one-character letters, encode each letter (and its lower case) to its
 * index, and print back in the NCBI layout to a text that parses to the
 * same letters and values.  Then every variant must agree with the scalar
 * reference (align_diff.h).  Any disagreement aborts.
 */
#include "align_diff.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c) do { if (!(c)) { \
    fprintf(stderr, "fuzz_matrix: check failed at line %d: %s\n", __LINE__, #c); \
    abort(); } } while (0)

#define MAX_SEQ 600

/* The score of codes a against b, read back through the public API. */
static int32_t value(const hay_align_scoring *s, uint8_t a, uint8_t b)
{
    int32_t v = 0;
    CHECK(hay_align_rescore(s, &a, 1, &b, 1, 0, 0, "1M", &v) == HAY_OK);
    return v;
}

/* s in the NCBI layout: a header of letters, one row per letter. */
static char *print_back(const hay_align_scoring *s, size_t *len)
{
    int alpha = hay_align_scoring_alpha(s);
    const char *letters = hay_align_scoring_letters(s);
    size_t cap = (size_t)(alpha + 1) * (size_t)(alpha + 1) * 10 + 16;
    char *text = malloc(cap);
    CHECK(text);
    size_t w = 0;
    for (int a = 0; a < alpha; a++)
        w += (size_t)snprintf(text + w, cap - w, " %c", letters[a]);
    w += (size_t)snprintf(text + w, cap - w, "\n");
    for (int a = 0; a < alpha; a++) {
        w += (size_t)snprintf(text + w, cap - w, "%c", letters[a]);
        for (int b = 0; b < alpha; b++)
            w += (size_t)snprintf(text + w, cap - w, " %d",
                                  (int)value(s, (uint8_t)a, (uint8_t)b));
        w += (size_t)snprintf(text + w, cap - w, "\n");
    }
    CHECK(w < cap);
    *len = w;
    return text;
}

static void check_parsed(const hay_align_scoring *s)
{
    int alpha = hay_align_scoring_alpha(s);
    const char *letters = hay_align_scoring_letters(s);
    CHECK(alpha >= 1 && alpha <= HAY_ALIGN_MAX_ALPHA);
    CHECK(strlen(letters) == (size_t)alpha);
    for (int a = 0; a < alpha; a++) {
        unsigned char ch = (unsigned char)letters[a];
        CHECK(!isdigit(ch) && ch != '-' && ch != ' ' && ch != '\t');
        CHECK(strchr(letters + a + 1, (char)ch) == NULL);
        uint8_t code = 0xff;
        CHECK(hay_align_encode(s, letters + a, 1, &code, NULL) == HAY_OK);
        CHECK(code == a);
        char low = (char)tolower(ch);
        if (!strchr(letters, low)) {
            CHECK(hay_align_encode(s, &low, 1, &code, NULL) == HAY_OK);
            CHECK(code == a);
        }
    }
    size_t len;
    char *text = print_back(s, &len);
    hay_align_scoring *again = NULL;
    size_t line = 99;
    CHECK(hay_align_scoring_parse(text, len, "again", 11, 1, &again, &line) ==
          HAY_OK);
    CHECK(hay_align_scoring_alpha(again) == alpha);
    CHECK(strcmp(hay_align_scoring_letters(again), letters) == 0);
    for (int a = 0; a < alpha; a++)
        for (int b = 0; b < alpha; b++)
            CHECK(value(again, (uint8_t)a, (uint8_t)b) ==
                  value(s, (uint8_t)a, (uint8_t)b));
    hay_align_scoring_free(again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int32_t open = 1 + (int32_t)data[0] * data[0] * 15;
    int32_t ext = (int32_t)((int64_t)open * data[1] / 255);
    const uint8_t *text = data + 2, *end = data + size;
    const uint8_t *nul = memchr(text, 0, (size_t)(end - text));
    size_t tlen = (size_t)((nul ? nul : end) - text);
    /* An exactly-sized copy so that reads past the end are caught. */
    char *copy = malloc(tlen ? tlen : 1);
    CHECK(copy);
    memcpy(copy, text, tlen);
    size_t lines = 1;
    for (size_t i = 0; i < tlen; i++)
        lines += copy[i] == '\n';

    hay_align_scoring *s = NULL;
    size_t line = 99;
    hay_status st = hay_align_scoring_parse(copy, tlen, "fuzz", open, ext, &s,
                                            &line);
    free(copy);
    if (st != HAY_OK) {
        CHECK(st == HAY_ERR_INVALID && s == NULL && line <= lines);
        return 0;
    }
    CHECK(s != NULL && line == 0);
    check_parsed(s);

    const uint8_t *seq = nul ? nul + 1 : end;
    size_t rest = (size_t)(end - seq);
    if (rest >= 3) {
        size_t m = 1 + seq[0] % (rest - 2), n = rest - 1 - m;
        align_diff_bytes(s, seq + 1, m < MAX_SEQ ? m : MAX_SEQ, seq + 1 + m,
                         n < MAX_SEQ ? n : MAX_SEQ);
    }
    hay_align_scoring_free(s);
    return 0;
}
