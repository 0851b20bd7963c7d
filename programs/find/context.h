/*
 * context.h - which lines are selected and which are printed around them,
 * as grep does it: -v (the lines without a match are selected), -m NUM
 * (stop after NUM selected lines; the trailing context after the last one
 * is still printed, whatever those lines hold), -A/-B/-C (context lines,
 * printed with '-' separators, and a group separator between groups that
 * do not touch, also between files).
 *
 * lines.c hands on the lines that match, in order; everything between two
 * of them is a run of lines that do not.  Nothing here scans for
 * patterns; printing goes through the callbacks (a printer).
 */
#ifndef HAY_FIND_CONTEXT_H
#define HAY_FIND_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "lines.h"

typedef struct find_select {
    /* Set by the caller after find_select_init. */
    bool invert;            /* -v */
    bool has_max;           /* stop after max selected lines (-m; 1 for
                               -l, -L, -q and binary files) */
    uint64_t max;
    bool context;           /* -A/-B/-C given: group separators */
    uint64_t before, after;
    const char *group_sep;  /* NULL: none (--no-group-separator) */
    bool only;              /* -o: context lines are not printed */
    bool keep_matches;      /* -v with colours: context lines (lines that
                               match) are printed with their matches */
    bool raw;               /* -v with no prefixes, no context, no -m:
                               runs of selected lines go out whole */
    find_line_fn out;       /* prints a line; NULL: count only */
    void (*out_raw)(void *ctx, uint64_t from, uint64_t to);
    void (*out_sep)(void *ctx);
    void *out_ctx;
    bool *used;             /* something was printed, in any file (grep
                               prints no separator before the first line) */

    uint64_t selected;      /* lines selected so far */

    /* private */
    find_lines *lines;
    uint64_t pos;           /* the lines before pos are dealt with */
    uint64_t last_out;      /* just past the last line printed */
    bool have_out;
    uint64_t after_left;    /* trailing context lines still to print */
    bool done;              /* max reached: nothing more is selected */
    bool part_out;          /* the line in parts (lines.h) was printed */
    struct saved_line *saved;   /* keep_matches: the last `before` matching
                                   lines, for the context before a line */
    size_t nsaved;
} find_select;

/* `lines` gives the buffer, its line terminator and line numbers; set its
 * emit to find_select_matching with this as ctx. */
void find_select_init(find_select *s, find_lines *lines);

/* Before the next piece of the file (lines.h: `lines` now holds it): the
 * count, -m's end and the trailing context owed run on; what was printed
 * last is at the new piece's start or before it.  The context before a line
 * is looked for in the piece only. */
void find_select_piece(find_select *s);

/* Takes the next line that matches.  A find_line_fn. */
void find_select_matching(void *select, const find_line *line);

/* The lines after the last matching one; call once at the end. */
void find_select_finish(find_select *s);

/* True once nothing more can be selected: the scan may stop (the trailing
 * context is printed by find_select_finish; with keep_matches it needs the
 * matching lines up to its end). */
bool find_select_done(const find_select *s);

void find_select_free(find_select *s);

#endif
