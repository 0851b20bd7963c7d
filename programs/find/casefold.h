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

/* The most variants one pattern may expand to; beyond it the pattern is
 * refused with a message (a verified fallback is not implemented). */
#define FIND_CASEFOLD_MAX_VARIANTS 4096

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

/* Appends pattern `id`'s variants (itself first; ASCII letters are left to
 * HAY_CASELESS).  Returns 0; -1 when out of memory; -2 when it would have
 * more than FIND_CASEFOLD_MAX_VARIANTS (then *count is how many). */
int find_casefold_expand(find_variants *v, const uint8_t *p, size_t len, uint32_t id,
                         double *count);

void find_variants_free(find_variants *v);

/* Decodes the UTF-8 sequence at p[0, len) into *cp (shortest form, no
 * surrogates, at most U+10FFFF).  Returns its length, or 0 when p does not
 * start with a valid sequence. */
size_t find_utf8_decode(const uint8_t *p, size_t len, uint32_t *cp);

#endif
