/*
 * engines.c - unit tests of engine internals through the test hooks of
 * internal.h: the Boyer-Moore tables of "GCAGAGAG" (the worked example of
 * parallel-boyer-moore-manycore.txt), and the tables of random patterns
 * against their definitions computed by brute force.
 */
#include "testutil.h"
#include "core/internal.h"

#include <stdio.h>
#include <string.h>

#define RANDOM_PATTERNS 3000
#define MAX_M 24

static hay_patterns *compile_bm(const void *p, size_t m, bool caseless)
{
    hay_pattern pat = { p, m };
    tu_engine e = { .backend = HAY_BACKEND_CPU, .algo = "bm", .label = "cpu/bm" };
    hay_patterns *set = NULL;
    hay_status s = tu_compile(&e, &pat, 1, caseless, &set);
    CHECK(s == HAY_OK, "compile bm: %s", hay_strerror(s));
    return set;
}

static void check_paper_example(void)
{
    hay_patterns *set = compile_bm("GCAGAGAG", 8, false);
    const hay_bm_tables *t = hay_bm_tables_of(set);
    if (!CHECK(t != NULL, "hay_bm_tables_of(bm set) is NULL")) {
        hay_patterns_free(set);
        return;
    }
    for (int c = 0; c < 256; c++) {
        size_t want = c == 'A' ? 1 : c == 'C' ? 6 : c == 'G' ? 2 : 8;
        CHECK(t->bad_char[c] == want, "GCAGAGAG bad_char[0x%02x] = %zu, want %zu",
              c, t->bad_char[c], want);
    }
    static const size_t suff[8] = { 1, 0, 0, 2, 0, 4, 0, 8 };
    static const size_t gs[8] = { 7, 7, 7, 2, 7, 4, 7, 1 };
    for (int i = 0; i < 8; i++) {
        CHECK(t->suffix[i] == suff[i], "GCAGAGAG suffix[%d] = %zu, want %zu", i,
              t->suffix[i], suff[i]);
        CHECK(t->good_suffix[i] == gs[i], "GCAGAGAG good_suffix[%d] = %zu, want %zu",
              i, t->good_suffix[i], gs[i]);
    }
    hay_patterns_free(set);
}

/* The definitions, by brute force, over the (folded) pattern x. */
static size_t def_bad_char(const uint8_t *x, size_t m, uint8_t c)
{
    for (size_t i = m - 1; i-- > 0;)
        if (x[i] == c)
            return m - 1 - i;
    return m;
}

/* Longest common suffix of x[0..i] and x. */
static size_t def_suffix(const uint8_t *x, size_t m, size_t i)
{
    size_t l = 0;
    while (l <= i && x[i - l] == x[m - 1 - l])
        l++;
    return l;
}

/* Mismatch at i with x[i+1..m) matched: the smallest shift that agrees
 * with every matched byte and does not put x[i]'s byte under position i. */
static size_t def_good_suffix(const uint8_t *x, size_t m, size_t i)
{
    for (size_t s = 1; s < m; s++) {
        bool ok = true;
        for (size_t k = i + 1; k < m && ok; k++)
            if (k >= s && x[k - s] != x[k])
                ok = false;
        if (ok && s <= i && x[i - s] == x[i])
            ok = false;
        if (ok)
            return s;
    }
    return m;
}

static void check_against_definitions(const uint8_t *p, size_t m, bool caseless)
{
    hay_patterns *set = compile_bm(p, m, caseless);
    const hay_bm_tables *t = hay_bm_tables_of(set);
    if (!CHECK(t != NULL, "no tables")) {
        hay_patterns_free(set);
        return;
    }
    uint8_t x[MAX_M];
    for (size_t i = 0; i < m; i++)
        x[i] = caseless ? tu_fold(p[i]) : p[i];
    char shown[MAX_M + 1];
    for (size_t i = 0; i < m; i++)
        shown[i] = (char)p[i];
    shown[m] = 0;
    bool bad = false;
    for (int c = 0; c < 256 && !bad; c++) {
        uint8_t fc = caseless ? tu_fold((uint8_t)c) : (uint8_t)c;
        size_t want = def_bad_char(x, m, fc);
        bad = !CHECK(t->bad_char[c] == want, "'%s'%s bad_char['%c'] = %zu, want %zu",
                     shown, caseless ? " caseless" : "", c, t->bad_char[c], want);
    }
    for (size_t i = 0; i < m && !bad; i++) {
        size_t ws = def_suffix(x, m, i), wg = def_good_suffix(x, m, i);
        bad = !CHECK(t->suffix[i] == ws, "'%s' suffix[%zu] = %zu, want %zu",
                     shown, i, t->suffix[i], ws);
        bad = bad || !CHECK(t->good_suffix[i] == wg,
                            "'%s' good_suffix[%zu] = %zu, want %zu", shown, i,
                            t->good_suffix[i], wg);
    }
    hay_patterns_free(set);
}

static void check_random_patterns(void)
{
    tu_rng r = { 2024 };
    static const char *const alphas[] = { "ab", "abc", "GCAT", "aAbB", "xyzXYZ@`" };
    for (int n = 0; n < RANDOM_PATTERNS; n++) {
        const char *al = alphas[n % 5];
        size_t k = strlen(al), m = (size_t)tu_range(&r, 1, MAX_M);
        uint8_t p[MAX_M];
        for (size_t i = 0; i < m; i++)
            p[i] = (uint8_t)al[tu_below(&r, k)];
        check_against_definitions(p, m, n % 2 == 1);
    }
}

static void check_hook_only_for_bm(void)
{
    CHECK(hay_bm_tables_of(NULL) == NULL, "hay_bm_tables_of(NULL) is not NULL");
    const char *name;
    for (size_t i = 0; hay_algo_name(HAY_BACKEND_CPU, i, &name) == HAY_OK; i++) {
        if (strcmp(name, "bm") == 0)
            continue;
        tu_engine e = { .backend = HAY_BACKEND_CPU, .algo = name };
        hay_pattern p = { "abc", 3 };
        hay_patterns *set = NULL;
        if (tu_compile(&e, &p, 1, false, &set) != HAY_OK)
            continue;
        CHECK(hay_bm_tables_of(set) == NULL, "hay_bm_tables_of(%s set) is not NULL",
              name);
        hay_patterns_free(set);
    }
}

/* One-byte and caseless tables. */
static void check_small_cases(void)
{
    hay_patterns *set = compile_bm("x", 1, false);
    const hay_bm_tables *t = hay_bm_tables_of(set);
    if (CHECK(t != NULL, "no tables for 'x'")) {
        CHECK(t->bad_char['x'] == 1 && t->bad_char['y'] == 1,
              "'x' bad_char: %zu %zu, want 1 1", t->bad_char['x'], t->bad_char['y']);
        CHECK(t->suffix[0] == 1 && t->good_suffix[0] == 1,
              "'x' suffix %zu good_suffix %zu, want 1 1", t->suffix[0],
              t->good_suffix[0]);
    }
    hay_patterns_free(set);
    set = compile_bm("GcAgAgAg", 8, true);
    t = hay_bm_tables_of(set);
    if (CHECK(t != NULL, "no tables for caseless GcAgAgAg")) {
        CHECK(t->bad_char['a'] == 1 && t->bad_char['A'] == 1 &&
              t->bad_char['c'] == 6 && t->bad_char['C'] == 6 &&
              t->bad_char['g'] == 2 && t->bad_char['G'] == 2 &&
              t->bad_char['t'] == 8 && t->bad_char['@'] == 8 &&
              t->bad_char['`'] == 8,
              "caseless GcAgAgAg bad_char a %zu A %zu c %zu C %zu g %zu G %zu",
              t->bad_char['a'], t->bad_char['A'], t->bad_char['c'],
              t->bad_char['C'], t->bad_char['g'], t->bad_char['G']);
        static const size_t gs[8] = { 7, 7, 7, 2, 7, 4, 7, 1 };
        for (int i = 0; i < 8; i++)
            CHECK(t->good_suffix[i] == gs[i],
                  "caseless good_suffix[%d] = %zu, want %zu", i,
                  t->good_suffix[i], gs[i]);
    }
    hay_patterns_free(set);
}

int main(void)
{
    check_paper_example();
    check_small_cases();
    check_random_patterns();
    check_hook_only_for_bm();
    return tu_finish();
}
