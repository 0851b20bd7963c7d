/*
 * casefold_test.c - hay find -i's case folding (programs/find/casefold.c):
 * the two halves of the verified fallback must agree (every variant that
 * find_casefold_expand writes is matched by find_casefold_match, for every
 * orbit of the table), variant counts are the products of the orbit sizes,
 * bytes that are not UTF-8 stay as they are, and the UTF-8 decoder refuses
 * overlong forms, surrogates, code points past U+10FFFF and cut sequences.
 */
#include "find/casefold.h"

#include "find/casefold_table.h"

#include <stdio.h>
#include <string.h>

#define MAXV FIND_CASEFOLD_MAX_VARIANTS

static int failures;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            failures++;                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            putchar('\n');                                 \
        }                                                  \
    } while (0)

static size_t enc(uint32_t c, uint8_t *o)
{
    if (c < 0x80)
        return o[0] = (uint8_t)c, 1;
    if (c < 0x800)
        return o[0] = (uint8_t)(0xC0 | c >> 6), o[1] = (uint8_t)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000)
        return o[0] = (uint8_t)(0xE0 | c >> 12), o[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F)),
               o[2] = (uint8_t)(0x80 | (c & 0x3F)), 3;
    return o[0] = (uint8_t)(0xF0 | c >> 18), o[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F)),
           o[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F)), o[3] = (uint8_t)(0x80 | (c & 0x3F)), 4;
}

static bool ascii_upper(uint32_t c)
{
    return c >= 'A' && c <= 'Z';
}

/* Every pair of members of every orbit matches both ways; a single code
 * point expands to its orbit (ASCII capitals left to HAY_CASELESS). */
static void check_orbits(void)
{
    for (int k = 0; k < CF_NORBITS; k++) {
        for (int i = cf_orbit_start[k]; i < cf_orbit_start[k + 1]; i++) {
            uint8_t a[4], b[4];
            size_t na = enc(cf_members[i], a);
            for (int j = cf_orbit_start[k]; j < cf_orbit_start[k + 1]; j++) {
                size_t nb = enc(cf_members[j], b);
                CHECK(find_casefold_match(a, na, b, nb) == nb, "U+%04X ~ U+%04X",
                      (unsigned)cf_members[i], (unsigned)cf_members[j]);
            }
            uint32_t next = cf_members[i] + 1;   /* usually another orbit */
            size_t nn = enc(next, b);
            bool same = false;
            for (int j = cf_orbit_start[k]; j < cf_orbit_start[k + 1]; j++)
                same |= cf_members[j] == next;
            if (!same && !(next < 0x80 && cf_members[i] < 0x80))
                CHECK(find_casefold_match(a, na, b, nn) == SIZE_MAX, "U+%04X !~ U+%04X",
                      (unsigned)cf_members[i], (unsigned)next);
            if (cf_members[i] < 0x80 && cf_orbit_start[k + 1] - cf_orbit_start[k] == 2)
                continue;   /* a plain ASCII letter: never expanded */
            find_variants v;
            memset(&v, 0, sizeof v);
            size_t covered;
            CHECK(find_casefold_expand(&v, a, na, 7, MAXV, &covered) == 0 && covered == na,
                  "expand U+%04X", (unsigned)cf_members[i]);
            size_t want = 0;
            uint32_t self_lower = ascii_upper(cf_members[i]) ? cf_members[i] + 32
                                                             : cf_members[i];
            for (int j = cf_orbit_start[k]; j < cf_orbit_start[k + 1]; j++)
                want += cf_members[j] == cf_members[i] ||
                        (cf_members[j] != self_lower && !ascii_upper(cf_members[j]));
            CHECK(v.n == want, "U+%04X: %zu variants, %zu expected",
                  (unsigned)cf_members[i], v.n, want);
            CHECK(v.n && v.items[0].len == na && !memcmp(v.items[0].data, a, na),
                  "U+%04X: itself first", (unsigned)cf_members[i]);
            for (size_t x = 0; x < v.n; x++)
                CHECK(v.owner[x] == 7, "owner");
            find_variants_free(&v);
        }
    }
}

/* Words: count, distinct, each variant matched by the pattern; a word with
 * too many variants is expanded up to a prefix. */
static void check_word(const char *w, size_t limit, size_t want, bool whole)
{
    const uint8_t *p = (const uint8_t *)w;
    size_t len = strlen(w), covered;
    find_variants v;
    memset(&v, 0, sizeof v);
    CHECK(find_casefold_expand(&v, p, len, 0, limit, &covered) == 0, "expand %s", w);
    CHECK(v.n == want, "%s: %zu variants, %zu expected", w, v.n, want);
    CHECK((covered == len) == whole && covered > 0, "%s: covered %zu of %zu", w, covered,
          len);
    uint32_t first;
    CHECK(v.n <= limit || find_utf8_decode(p, len, &first) == covered,
          "%s: over the limit with more than one code point", w);
    for (size_t i = 0; i < v.n; i++) {
        const hay_pattern *x = &v.items[i];
        CHECK(find_casefold_match(p, covered, x->data, x->len) == x->len,
              "%s: variant %zu not matched", w, i);
        for (size_t j = 0; j < i; j++)
            CHECK(x->len != v.items[j].len || memcmp(x->data, v.items[j].data, x->len),
                  "%s: variants %zu and %zu are equal", w, j, i);
    }
    find_variants_free(&v);
}

static void check_decoder(void)
{
    static const struct { const char *b; size_t len; size_t want; } cases[] = {
        { "\xC3\xA9", 2, 2 },            /* é */
        { "\xE2\x84\xAA", 3, 3 },        /* Kelvin sign */
        { "\xF0\x9F\x98\x80", 4, 4 },    /* U+1F600 */
        { "\xC0\x80", 2, 0 },            /* overlong NUL */
        { "\xE0\x80\xAF", 3, 0 },        /* overlong '/' */
        { "\xED\xA0\x80", 3, 0 },        /* surrogate */
        { "\xF4\x90\x80\x80", 4, 0 },    /* past U+10FFFF */
        { "\xE2\x84", 2, 0 },            /* cut */
        { "\xFF", 1, 0 },
        { "\x80", 1, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t c;
        size_t n = find_utf8_decode((const uint8_t *)cases[i].b, cases[i].len, &c);
        CHECK(n == cases[i].want, "decode case %zu: %zu, %zu expected", i, n, cases[i].want);
    }
}

int main(void)
{
    check_orbits();
    check_word("école", MAXV, 2, true);
    check_word("Straße", MAXV, 2 * 2, true);              /* s ſ, ß ẞ */
    check_word("ΣΟΦΊΑ", MAXV, 3 * 2 * 3 * 2 * 2, true);   /* Σσς Οο Φφϕ Ίί Αα */
    /* Cyrillic's old letter forms (U+1C80..U+1C88): в д о с have three
     * case variants, т four.  здравствуйте has 82,944; "здравств" (2,592)
     * is expanded, the rest verified. */
    check_word("что", MAXV, 2 * 4 * 3, true);
    check_word("здравствуйте", MAXV, 2 * 3 * 2 * 2 * 3 * 3 * 4 * 3, false);
    check_word("abc\xFF\xC3", MAXV, 1, true);   /* not UTF-8 */
    /* A small limit still expands the first code point. */
    check_word("ΣΟΦΊΑ", 2, 3, false);
    check_word("ΣΟΦΊΑ", 16, 3 * 2, false);
    check_decoder();
    /* Bytes that are not UTF-8 match exactly. */
    CHECK(find_casefold_match((const uint8_t *)"\xFFx", 2, (const uint8_t *)"\xFFX", 2) == 2,
          "raw byte then ASCII");
    CHECK(find_casefold_match((const uint8_t *)"\xFF", 1, (const uint8_t *)"\xFE", 1) ==
          SIZE_MAX, "raw bytes differ");
    CHECK(find_casefold_match((const uint8_t *)"\xC3\xA9", 2, (const uint8_t *)"\xC3", 1) ==
          SIZE_MAX, "text cut");
    printf("%s\n", failures ? "FAILED" : "casefold: all passed");
    return failures != 0;
}
