/*
 * patfile.h - pattern lists for the CLI: -e arguments and -f files, taken
 * literally as grep -F does (one pattern per line), with optional decoding
 * of \xHH escapes (the format of shared/data/patterns).
 */
#ifndef HAY_PATFILE_H
#define HAY_PATFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "haystack.h"

typedef struct pat_list {
    hay_pattern *items;   /* non-empty patterns; data owned by the list */
    size_t n, cap;
    size_t empty;         /* how many empty patterns were given */
} pat_list;

/*
 * Adds the patterns in text[0, len): one per line ('\n' separates; a final
 * newline does not start another pattern, as grep -f).  With `escapes`,
 * "\xHH" (two hex digits, either case) is decoded and any other backslash is
 * an error.  On error returns -1 and writes a message naming `origin` and the
 * line number into err; returns 0 on success.
 */
int pat_list_add_text(pat_list *l, const uint8_t *text, size_t len,
                      bool escapes, bool final_newline_ends, const char *origin,
                      char *err, size_t errcap);

/* Decodes \xHH escapes in place; returns the new length or -1 if invalid
 * (then *bad is the offset of the offending backslash). */
long pat_decode_escapes(uint8_t *s, size_t len, size_t *bad);

void pat_list_free(pat_list *l);

#endif
