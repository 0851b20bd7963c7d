/*
 * casefold.h - Unicode-aware -i for `hay find`.  The library folds ASCII
 * only (HAY_CASELESS); a pattern holding UTF-8 beyond ASCII is expanded here
 * into its case variants, every code point replaced by each member of its
 * simple case folding orbit (Unicode CaseFolding.txt, statuses C and S, as
 * ripgrep folds: see casefold_table.h), and the variants are compiled as
 * extra literals that report the original pattern.  ASCII letters stay the
 * library's business, so pure-ASCII patterns take the fast path unchanged.
 */
#ifndef HAY_FIND_CASEFOLD_H
#define HAY_FIND_CASEFOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "haystack.h"

/* The most variants one pattern may expand to, and all patterns together
 * (a long list gets a smaller limit a pattern).  Beyond it only the
 * pattern's longest prefix within the limit is expanded, and the rest is
 * checked after the scan (find_casefold_match), a verified fallback. */
#define FIND_CASEFOLD_MAX_VARIANTS 4096
#define FIND_CASEFOLD_MAX_TOTAL (1u << 18)

/* True when the C library's LC_CTYPE, taken from the environment (LC_ALL,
 * LC_CTYPE, LANG), is UTF-8.  Leaves LC_CTYPE as it found it. */
bool find_casefold_locale_is_utf8(void);

/* True when pattern p[0, len) holds a code point beyond ASCII that has case
 * variants (only such patterns need expanding). */
bool find_casefold_needed(const uint8_t *p, size_t len);

/* The variant list of some patterns: items[i] (data owned by the list)
 * stands for the caller's pattern owner[i]. */
typedef struct find_variants {
    hay_pattern *items;
    uint32_t *owner;
    size_t n, cap;
} find_variants;

/* Appends a copy of p[0, len) standing for pattern `id`.  Returns 0, or -1
 * when out of memory. */
int find_variants_add(find_variants *v, const uint8_t *p, size_t len, uint32_t id);

/* Appends the variants of pattern `id`, p[0, len) (itself first; ASCII
 * letters are left to HAY_CASELESS): of all of it when they are at most
 * `limit`, else of its longest prefix (whole code points, at least one)
 * within the limit.  *covered is the length of what was expanded (len, or
 * the prefix's).  Returns 0, or -1 when out of memory. */
int find_casefold_expand(find_variants *v, const uint8_t *p, size_t len, uint32_t id,
                         size_t limit, size_t *covered);

/* Whether text[0, tlen) starts with pattern bytes pat[0, plen) under -i's
 * folding (each code point by its orbit, ASCII letters in either case,
 * bytes that are not UTF-8 exactly).  Returns the length of text matched,
 * or SIZE_MAX when it does not match. */
size_t find_casefold_match(const uint8_t *pat, size_t plen, const uint8_t *text, size_t tlen);

void find_variants_free(find_variants *v);

/* Decodes the UTF-8 sequence at p[0, len) into *cp (shortest form, no
 * surrogates, at most U+10FFFF).  Returns its length, or 0 when p does not
 * start with a valid sequence. */
size_t find_utf8_decode(const uint8_t *p, size_t len, uint32_t *cp);

#endif
