/*
 * printer.h - everything `hay find` writes to standard output: selected
 * lines (whole, or their matched parts with -o; with the file name, line
 * number and byte offset prefixes, in grep's colours), the per-file
 * summaries (-l, -c, --count-matches, "Binary file ... matches") and the
 * --json records.  A printer is set up per file; it reads only the config's
 * output options and the file's bytes.
 */
#ifndef HAY_FIND_PRINTER_H
#define HAY_FIND_PRINTER_H

#include <stdbool.h>
#include <stdint.h>

#include "lines.h"
#include "options.h"

typedef struct find_printer {
    const find_config *cf;
    const char *name;      /* the file's name as printed */
    bool print_name;       /* prefix lines and counts with it */
    const uint8_t *buf;    /* the file's bytes (line offsets point here) */
    int width;             /* -T: the width of line numbers and offsets */
} find_printer;

/* -T's number width for a file, as grep 3.8 makes it: the digits of the
 * largest value a regular file of `size` bytes can need (size, plus one
 * with line numbers), 19 for a pipe. */
int find_print_width(bool regular, uint64_t size, bool numbers);

/* Prints a selected line (sep ':') or a context line (sep '-'), or with -o
 * each of a selected line's matches on a line of its own.  A find_line_fn:
 * pass the printer as ctx. */
void find_print_line(void *printer, const find_line *line);

/* Selected lines without prefixes, written as they lie in the file:
 * buf[from, to), ending in a line terminator. */
void find_print_lines_raw(void *printer, uint64_t from, uint64_t to);

/* The separator between groups of context lines ("--"). */
void find_print_group_sep(void *printer);

/* One --json record: an occurrence of pattern `id` at `offset`, on line
 * `line`. */
void find_print_json(const find_printer *p, uint32_t id, uint64_t offset,
                     uint64_t line);

/* What a file's search comes to, printed after it. */
typedef struct find_file_result {
    bool matched;          /* a line was selected (or, counting occurrences,
                              one was found) */
    bool binary;
    bool skipped;          /* a binary file passed over (-I) */
    uint64_t lines;        /* lines selected (-c) */
    uint64_t occurrences;  /* --count-matches */
} find_file_result;

/* The per-file line of -l, -L, -c and --count-matches, or grep's note that
 * a binary file matches; nothing with -q or when lines were printed. */
void find_print_summary(const find_printer *p, const find_file_result *r);

#endif
