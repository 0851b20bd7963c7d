/*
 * lines.h - from matches to lines, as grep selects them.  The library
 * reports matches in order of end; a line's bounds are found with memrchr
 * and memchr from the previous line's end, so the cost stays linear in the
 * input.  A finished line, with the matches on it, goes to a callback (a
 * printer).  Nothing here prints.
 */
#ifndef HAY_FIND_LINES_H
#define HAY_FIND_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct find_span {
    uint64_t s, e;   /* [s, e), offsets in the input */
    uint32_t id;     /* the pattern (an index in the config's patterns) */
    bool weak;       /* -w: only the byte after it is not a word byte; it
                        counts right after another match (grep -o) */
} find_span;

/* One line: [start, end) without its newline. */
typedef struct find_line {
    uint64_t start, end;
    char sep;                  /* ':' a selected line, '-' a context line */
    uint64_t number;           /* 1-based; 0 unless numbers were asked for */
    const find_span *spans;    /* its matches by start, longest first at
                                  equal starts; may overlap (HAY_MATCH_ALL) */
    size_t nspans;
    /* A line handed on in parts (spans_max): `more` when more of its
     * matches follow in a later part, `cont` when an earlier part came. */
    bool more, cont;
} find_line;

typedef void (*find_line_fn)(void *ctx, const find_line *line);

typedef struct find_lines {
    /* Set by find_lines_init; the caller may change the options after. */
    const uint8_t *buf;
    uint64_t len;
    bool numbers;        /* number the lines handed on */
    bool sort_spans;     /* matches may overlap and come in end order */
    bool word, whole;    /* -w, -x: find_lines_passes() tests matches */
    bool pick;           /* keep grep's non-overlapping matches, longest
                            first, of those handed in (-w, -x) */
    uint8_t eol;         /* the line terminator: '\n', or '\0' (-z) */
    find_line_fn emit;   /* NULL: lines are only counted */
    void *emit_ctx;
    /* Memory stays bounded on a line with millions of matches: */
    bool no_spans;       /* the emit callback does not read the spans
                            (whole lines without colour): none are kept */
    size_t spans_max;    /* 0, or (spans printed as they come: -o,
                            colour) hand the line on in parts of about
                            this many spans (find_line's more, cont) */
    uint64_t reach;      /* sort_spans: the longest pattern, so that once
                            a match ends at e every later one starts at
                            e - reach or after: the spans starting before
                            are decided (sorted, picked) and handed on in
                            parts; 0: a line's spans are all kept */

    uint64_t selected;   /* lines selected so far */

    /* private */
    bool have_line, line_strong, parted;
    bool picked;          /* pick: a span of the line was kept, */
    uint64_t picked_end;  /* the end of the last one */
    size_t flush_at;      /* sort_spans in parts: decide at this many */
    uint64_t line_start, line_end, next_line_from;
    uint64_t lineno, lineno_pos;   /* lineno is the line of lineno_pos */
    find_span *spans;
    size_t nspans, cap;
} find_lines;

void find_lines_init(find_lines *l, const uint8_t *buf, uint64_t len);

/* The number of the line at buf[0] when buf is a later piece of a file
 * (1 otherwise); call right after find_lines_init. */
void find_lines_first_number(find_lines *l, uint64_t number);
void find_lines_free(find_lines *l);

/* grep is line based: an occurrence holding a newline selects no line. */
bool find_lines_selects(const find_lines *l, uint64_t start, uint64_t end);

/* -w: no letter, digit or '_' right before or after the occurrence; -x:
 * the occurrence is its whole line.  True when neither is asked for. */
bool find_lines_passes(const find_lines *l, uint64_t start, uint64_t end);

/* -w: no word byte right after the occurrence (the test grep -o makes of
 * a match that starts where the previous one ended). */
bool find_lines_passes_after(const find_lines *l, uint64_t end);

/* Takes the next match of pattern `id` (in order of end).  A strong one
 * selects its line; a weak one (see find_span) is only kept for -o and
 * colours.  A match on a new line hands the previous line on if it was
 * selected.  Returns -1 when out of memory. */
int find_lines_add(find_lines *l, uint64_t start, uint64_t end, uint32_t id, bool strong);

/* Hands on the line in progress, if any (at the end of the input). */
void find_lines_finish(find_lines *l);

/* The 1-based number of the line holding `offset`; cheap when offsets come
 * near each other, in either direction. */
uint64_t find_lines_number_at(find_lines *l, uint64_t offset);

/* The number of lines of buf[0, len) ending in eol (a last line without
 * one counts). */
uint64_t find_lines_count(const uint8_t *buf, uint64_t len, uint8_t eol);

/* Hands on every line of buf[0, len), numbered, without matches (an empty
 * pattern selects them all). */
void find_lines_each(const uint8_t *buf, uint64_t len, uint8_t eol, find_line_fn emit,
                     void *ctx);

#endif
