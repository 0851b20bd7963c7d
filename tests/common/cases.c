/* cases.c - the conformance table; see cases.h. */
#include "cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIXED_PATS 8
#define B(s) { s, sizeof(s) - 1 }

typedef struct fixed_case {
    const char *name;
    hay_pattern hay;
    hay_pattern pats[MAX_FIXED_PATS];   /* ends at the first empty one */
    bool caseless;
} fixed_case;

static const fixed_case fixed[] = {
    { "empty haystack", B(""), { B("a") }, false },
    { "empty haystack, several patterns", B(""), { B("a"), B("bc") }, false },
    { "haystack shorter than the pattern", B("abc"), { B("abcd") }, false },
    { "haystack one byte short", B("needl"), { B("needle") }, false },
    { "shorter than some patterns", B("abc"), { B("abcd"), B("bc"), B("xabc") }, false },
    { "pattern == haystack", B("needle"), { B("needle") }, false },
    { "pattern == haystack, caseless", B("NeEdLe"), { B("nEeDlE") }, true },
    { "one byte haystack", B("a"), { B("a") }, false },
    { "one byte haystack, no match", B("b"), { B("a") }, false },
    { "match at start", B("abcxyzxyz"), { B("abc") }, false },
    { "match at end", B("xyzxyzabc"), { B("abc") }, false },
    { "match at start and end", B("abcxyzabc"), { B("abc") }, false },
    { "no match", B("the quick brown fox"), { B("dog") }, false },
    { "overlapping", B("aaaaaaaa"), { B("aaaa") }, false },
    { "overlapping, one byte", B("aaaaaaaa"), { B("a") }, false },
    { "overlapping, caseless", B("aAaAaAaA"), { B("AAAA") }, true },
    { "self-overlapping abab", B("abababababxababab"), { B("abab") }, false },
    { "self-overlapping aabaab", B("aabaabaabaabaab"), { B("aabaab") }, false },
    { "near misses", B("abcabdabcxabcabcabcab"), { B("abcabc") }, false },
    { "long run then mismatch",
      B("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabaaaaaaaaaaaaaaaaab"),
      { B("aaaaaaaaaaaaaaaaab") }, false },
    { "repeated rare byte", B("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzqzzzzzzzzzzzzzzzzzzzzz"),
      { B("zzzzzzzzzzzzzzzzzzzz") }, false },
    { "rare pair without match", B("qjxxqjqjqj qjyqj qjxqj qjxq"), { B("qjxqj") }, false },
    { "NUL bytes", B("a\0b\0\0c\0\0\0"), { B("\0") }, false },
    { "NUL pair", B("a\0b\0\0c\0\0\0"), { B("\0\0") }, false },
    { "NUL inside pattern", B("xx\0\0yy\0\0\0yy\0"), { B("\0yy\0") }, false },
    { "NUL patterns", B("a\0b\0\0c\0\0\0"),
      { B("\0"), B("\0\0"), B("b\0\0c"), B("c\0") }, false },
    { "NUL caseless", B("A\0b\0\0C\0"), { B("a\0B") }, true },
    { "high bytes", B("\xff\xfe\xff\xff\x80\x7f\xff"), { B("\xff") }, false },
    { "high byte pair", B("\xff\xfe\xff\xff\xff\x80\x7f\xff"), { B("\xff\xff") }, false },
    { "high bytes, several", B("\xff\xfe\xff\xff\x80\x7f\xff"),
      { B("\xff"), B("\xff\xff"), B("\x80\x7f"), B("\x7f\xff") }, false },
    { "high bytes caseless", B("\xc0\xe0\xc1\xe1\xc0\xff\xdf"), { B("\xc0") }, true },
    { "high bytes caseless, several", B("\xc0\xe0\xc1\xe1\xc0\xff\xdf\xfe"),
      { B("\xe0"), B("\xc1\xe1"), B("\xdf"), B("\xfe") }, true },
    { "caseless letters", B("xAbCxabcxABCxaBcxab"), { B("abc") }, true },
    { "caseless, upper-case pattern", B("xAbCxabcxABCxaBcxab"), { B("ABC") }, true },
    { "case-sensitive letters", B("xAbCxabcxABCxaBcxab"), { B("abc") }, false },
    { "case-sensitive, several", B("xAbCxabcxABCxaBcxab"),
      { B("abc"), B("ABC"), B("aBc") }, false },
    { "caseless @ is not `", B("@`@``@a"), { B("@") }, true },
    { "caseless ` is not @", B("@`@``@a"), { B("`") }, true },
    { "caseless [ is not {", B("[{[{{[a"), { B("[") }, true },
    { "caseless { is not [", B("[{[{{[a"), { B("{") }, true },
    { "caseless ] } ^ ~ _ DEL", B("]}^~_\x7f]}"), { B("]"), B("^"), B("_"), B("}") }, true },
    { "caseless punctuation", B("@[\\]^_`{|}~ zZ`@"),
      { B("@"), B("["), B("\\"), B("]"), B("^"), B("_"), B("`"), B("Z") }, true },
    { "caseless mixed letters and punctuation", B("A@z[a`Z{A@Z[a@Z{"),
      { B("a@z["), B("A`Z{") }, true },
    { "caseless a@z[", B("A@z[a`Z{A@Z[a@Z{"), { B("a@z[") }, true },
    { "caseless boundary letters", B("AZaz@[`{"), { B("a"), B("z"), B("Z") }, true },
    { "duplicate patterns", B("abcabcab"), { B("abc"), B("abc"), B("abc") }, false },
    { "duplicates differing in case", B("ABCabcAbC"),
      { B("abc"), B("ABC"), B("aBc") }, true },
    { "duplicates, case-sensitive", B("ABCabcAbC"),
      { B("abc"), B("ABC"), B("abc") }, false },
    { "prefixes and suffixes", B("abcdabcdxabcd"),
      { B("a"), B("ab"), B("abc"), B("abcd"), B("bcd"), B("cd"), B("d") }, false },
    { "prefixes and suffixes, reversed ids", B("abcdabcdxabcd"),
      { B("d"), B("cd"), B("bcd"), B("abcd"), B("abc"), B("ab"), B("a") }, false },
    { "prefixes and suffixes, caseless", B("ABCDabcdAbCd"),
      { B("abcd"), B("ABC"), B("Bcd"), B("d") }, true },
    { "aho-corasick classic", B("ushers she sells seashells his hers"),
      { B("he"), B("she"), B("his"), B("hers"), B("shells"), B("s"), B("sea") }, false },
    { "failure links", B("abababcabcbabcab"),
      { B("ababc"), B("babc"), B("abc"), B("bc"), B("cab"), B("b") }, false },
    { "bm paper pattern", B("GCATCGCAGAGAGTATACAGTACGGCAGAGAGCAGAGAG"),
      { B("GCAGAGAG") }, false },
    { "bm good suffix", B("AGAGCAGAGAGAGAGCAGAGAGAGGAGAG"), { B("GAGAG") }, false },
    { "bm good suffix, caseless", B("agagCAGagaGAgagCAGAGAGAGgagag"), { B("GaGaG") }, true },
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "cases: out of memory\n");
        abort();
    }
    return p;
}

static void *xdup(const void *src, size_t n)
{
    void *p = xmalloc(n);
    if (n)
        memcpy(p, src, n);
    return p;
}

/* A growable table. */
typedef struct table {
    tu_case *c;
    size_t n, cap;
} table;

static tu_case *table_add(table *t, const char *name)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->c = realloc(t->c, t->cap * sizeof *t->c);
        if (!t->c)
            abort();
    }
    tu_case *c = &t->c[t->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

/* A padding byte occurs in no pattern (in either case when caseless), so
 * padding can create no match; prefer bytes that are not letters. */
static bool choose_pad(tu_case *c)
{
    bool used[256] = { false };
    for (size_t i = 0; i < c->npats; i++) {
        const uint8_t *p = c->pats[i].data;
        for (size_t k = 0; k < c->pats[i].len; k++) {
            used[p[k]] = true;
            if (c->caseless) {
                used[tu_fold(p[k])] = true;
                if (p[k] >= 'a' && p[k] <= 'z')
                    used[p[k] - ('a' - 'A')] = true;
            }
        }
    }
    static const uint8_t prefer[] = { 0x01, '#', 0xaa, '.', 0x00, 0xfe, 'Q' };
    for (size_t i = 0; i < sizeof prefer; i++)
        if (!used[prefer[i]]) {
            c->pad = prefer[i];
            return true;
        }
    for (int b = 0; b < 256; b++)
        if (!used[b]) {
            c->pad = (uint8_t)b;
            return true;
        }
    return false;
}

static void add_fixed(table *t, const fixed_case *f)
{
    tu_case *c = table_add(t, f->name);
    c->hay = xdup(f->hay.data, f->hay.len);
    c->len = f->hay.len;
    size_t n = 0;
    while (n < MAX_FIXED_PATS && f->pats[n].len)
        n++;
    c->pats = xmalloc(n * sizeof *c->pats);
    for (size_t i = 0; i < n; i++) {
        c->pats[i].data = xdup(f->pats[i].data, f->pats[i].len);
        c->pats[i].len = f->pats[i].len;
    }
    c->npats = n;
    c->caseless = f->caseless;
}

/* Random letters of a small alphabet: near misses are frequent. */
static void fill_letters(tu_rng *r, uint8_t *p, size_t n, const char *alpha)
{
    size_t k = strlen(alpha);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)alpha[tu_below(r, k)];
}

static void flip_case(tu_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tu_below(r, 2) && ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'z'))
            p[i] ^= 0x20;
}

/* Puts pattern p at `at` in hay (as far as it fits), case-flipped when
 * caseless. */
static void plant(tu_rng *r, uint8_t *hay, size_t len, size_t at,
                  const hay_pattern *p, bool caseless)
{
    if (at >= len)
        return;
    size_t n = p->len < len - at ? p->len : len - at;
    memcpy(hay + at, p->data, n);
    if (caseless)
        flip_case(r, hay + at, n);
}

/*
 * One pattern of length m: occurrences at the start, the end, the middle,
 * two overlapping ones, and near misses (the first, middle or last byte
 * changed).
 */
static void add_length_case(table *t, size_t m, bool caseless, uint64_t seed)
{
    char name[80];
    snprintf(name, sizeof name, "pattern length %zu%s", m,
             caseless ? ", caseless" : "");
    tu_case *c = table_add(t, name);
    tu_rng r = { seed };
    const char *alpha = caseless ? "abcdEFGHxyz" : "abcdefgh";
    uint8_t *pat = xmalloc(m);
    fill_letters(&r, pat, m, alpha);
    c->pats = xmalloc(sizeof *c->pats);
    c->pats[0].data = pat;
    c->pats[0].len = m;
    c->npats = 1;
    c->caseless = caseless;

    size_t len = 6 * m + 64;
    c->len = len;
    c->hay = xmalloc(len);
    fill_letters(&r, c->hay, len, alpha);
    const hay_pattern *p = &c->pats[0];
    plant(&r, c->hay, len, 0, p, caseless);
    plant(&r, c->hay, len, len - m, p, caseless);
    size_t mid = m + 10;
    plant(&r, c->hay, len, mid, p, caseless);
    plant(&r, c->hay, len, mid + m / 2 + 1, p, caseless);
    /* near misses */
    size_t at = 3 * m + 20;
    for (int k = 0; k < 3 && at + m <= len - m; k++, at += m + 3) {
        plant(&r, c->hay, len, at, p, caseless);
        size_t which = k == 0 ? 0 : k == 1 ? m / 2 : m - 1;
        c->hay[at + which] = (uint8_t)(c->hay[at + which] == 'q' ? 'r' : 'q');
    }
}

/* All the lengths at once, as one multi-pattern set. */
static void add_all_lengths_case(table *t, const size_t *lens, size_t nl,
                                 bool caseless, uint64_t seed)
{
    tu_case *c = table_add(t, caseless ? "all pattern lengths, caseless"
                                       : "all pattern lengths");
    tu_rng r = { seed };
    const char *alpha = "abcdefgh";
    c->pats = xmalloc(nl * sizeof *c->pats);
    size_t total = 0;
    for (size_t i = 0; i < nl; i++) {
        uint8_t *p = xmalloc(lens[i]);
        fill_letters(&r, p, lens[i], alpha);
        c->pats[i].data = p;
        c->pats[i].len = lens[i];
        total += lens[i];
    }
    c->npats = nl;
    c->caseless = caseless;
    c->len = total + 2 * nl + 16;
    c->hay = xmalloc(c->len);
    fill_letters(&r, c->hay, c->len, alpha);
    size_t at = 0;
    for (size_t i = nl; i-- > 0;) {
        plant(&r, c->hay, c->len, at, &c->pats[i], caseless);
        at += c->pats[i].len / 2 + 1;   /* the next one overlaps */
    }
    plant(&r, c->hay, c->len, c->len - c->pats[nl - 1].len, &c->pats[nl - 1],
          caseless);
}

/* Many short patterns over a tiny alphabet (duplicates among them), and
 * some long ones planted in the haystack. */
static void add_many_case(table *t, size_t n, bool caseless, uint64_t seed)
{
    char name[80];
    snprintf(name, sizeof name, "%zu patterns%s", n, caseless ? ", caseless" : "");
    tu_case *c = table_add(t, name);
    tu_rng r = { seed };
    const char *alpha = caseless ? "abcDEF" : "abcd";
    c->pats = xmalloc(n * sizeof *c->pats);
    c->len = 300;
    c->hay = xmalloc(c->len);
    fill_letters(&r, c->hay, c->len, alpha);
    for (size_t i = 0; i < n; i++) {
        size_t m = i % 10 == 9 ? tu_range(&r, 20, 70) : tu_range(&r, 1, 9);
        uint8_t *p = xmalloc(m);
        fill_letters(&r, p, m, alpha);
        c->pats[i].data = p;
        c->pats[i].len = m;
    }
    c->npats = n;
    c->caseless = caseless;
    for (size_t i = 9; i < n; i += 40)
        plant(&r, c->hay, c->len, tu_below(&r, c->len), &c->pats[i], caseless);
    plant(&r, c->hay, c->len, 0, &c->pats[19], caseless);
    plant(&r, c->hay, c->len, c->len - c->pats[29].len, &c->pats[29], caseless);
}

/* Random bytes over 0..255 but for one byte kept free for padding. */
static void add_binary_case(table *t, size_t n, uint64_t seed)
{
    tu_case *c = table_add(t, n == 1 ? "binary pattern" : "binary patterns");
    tu_rng r = { seed };
    c->pats = xmalloc(n * sizeof *c->pats);
    c->len = 900;
    c->hay = xmalloc(c->len);
    for (size_t i = 0; i < c->len; i++)
        c->hay[i] = (uint8_t)tu_below(&r, 256);
    for (size_t i = 0; i < n; i++) {
        size_t m = tu_range(&r, 1, 24);
        uint8_t *p = xmalloc(m);
        /* From the haystack, so most of them occur. */
        size_t at = tu_below(&r, c->len - m);
        memcpy(p, c->hay + at, m);
        for (size_t k = 0; k < m; k++)
            if (p[k] == 0x01)
                p[k] = 0x02;
        c->pats[i].data = p;
        c->pats[i].len = m;
    }
    c->npats = n;
}

size_t tu_cases_build(tu_case **out)
{
    table t = { 0 };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        add_fixed(&t, &fixed[i]);
    static const size_t lens[] = { 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200 };
    size_t nl = sizeof lens / sizeof lens[0];
    for (size_t i = 0; i < nl; i++) {
        add_length_case(&t, lens[i], false, 100 + i);
        add_length_case(&t, lens[i], true, 200 + i);
    }
    add_all_lengths_case(&t, lens, nl, false, 300);
    add_all_lengths_case(&t, lens, nl, true, 301);
    add_many_case(&t, 300, false, 400);
    add_many_case(&t, 300, true, 401);
    add_binary_case(&t, 1, 500);
    add_binary_case(&t, 40, 501);

    for (size_t i = 0; i < t.n; i++) {
        tu_case *c = &t.c[i];
        if (!choose_pad(c)) {
            fprintf(stderr, "cases: no free padding byte in case '%s'\n", c->name);
            abort();
        }
        tu_oracle(c->hay, c->len, c->pats, c->npats, c->caseless, &c->exp);
    }
    *out = t.c;
    return t.n;
}

void tu_cases_free(tu_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < cases[i].npats; k++)
            free((void *)cases[i].pats[k].data);
        free(cases[i].pats);
        free(cases[i].hay);
        tu_mlist_free(&cases[i].exp);
    }
    free(cases);
}

uint8_t *tu_case_padded(const tu_case *c, size_t pb, size_t pa)
{
    uint8_t *b = xmalloc(pb + c->len + pa);
    memset(b, c->pad, pb);
    if (c->len)
        memcpy(b + pb, c->hay, c->len);
    memset(b + pb + c->len, c->pad, pa);
    return b;
}
