/*
 * printer.h - everything `hay find` writes about a file's matches: selected
 * lines (whole, or their matched parts with -o; with the file name, line
 * number and byte offset prefixes, in grep's colours), the per-file
 * summaries (-l, -c, --count-matches[=each]), the --json records (through
 * json.c) and, on standard error as grep 3.8, "NAME: binary file matches".
 * A printer is set up per file (its buffer per piece); it reads only the
 * config's output options and the file's bytes.
 */
#ifndef HAY_FIND_PRINTER_H
#define HAY_FIND_PRINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lines.h"
#include "options.h"

typedef struct find_printer {
    const find_config *cf;
    const char *name;      /* the file's name as printed */
    bool print_name;       /* prefix lines and counts with it */
    const uint8_t *buf;    /* the file's bytes (line offsets point here) */
    uint64_t len;          /* bytes in buf */
    FILE *out;             /* where the lines go (stdout, or the file's
                              output held back for ordered output) */
    uint64_t base;         /* the offset in the file of buf[0] (-b) */
    int width;             /* -T: the width of line numbers and offsets */
    /* --json (json.c): the file's begin record was printed; the matches
     * printed so far */
    bool json_begun;
    uint64_t json_matches;
    uint64_t line_pos;     /* a line printed in parts: where the last stopped */
} find_printer;

/* -T's number width for a file, as grep 3.8 makes it: the digits of the
 * largest value a regular file of `size` bytes can need (size, plus one
 * with line numbers), 19 for a pipe. */
int find_print_width(bool regular, uint64_t size, bool numbers);

/* Prints a selected line (sep ':') or a context line (sep '-'), or with -o
 * each of a selected line's matches on a line of its own, or with --json
 * its match (or context) record.  A find_line_fn: pass the printer as ctx. */
void find_print_line(void *printer, const find_line *line);

/* Selected lines without prefixes, written as they lie in the buffer:
 * buf[from, to), ending in a line terminator. */
void find_print_lines_raw(void *printer, uint64_t from, uint64_t to);

/* The separator between groups of context lines ("--"; none with --json). */
void find_print_group_sep(void *printer);

/* What a file's search comes to, printed after it. */
typedef struct find_file_result {
    bool matched;          /* a line was selected (or, counting occurrences,
                              one was found) */
    bool binary;
    uint64_t nul_at;       /* binary: the offset of the first NUL seen */
    uint64_t bytes;        /* searched */
    bool skipped;          /* a binary file passed over (-I) */
    uint64_t lines;        /* lines selected (-c) */
    uint64_t occurrences;  /* --count-matches */
    const uint64_t *each;  /* --count-matches=each: occurrences of every
                              pattern of the config (NULL when none ran) */
} find_file_result;

/* The per-file line of -l, -L, -c and --count-matches (the file's --json
 * end record), or grep's note on standard error that a binary file
 * matches; nothing with -q or when lines were printed. */
void find_print_summary(find_printer *p, const find_file_result *r);

#endif
