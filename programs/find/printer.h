/*
 * printer.h - everything `hay find` writes to standard output: selected
 * lines (whole, or their matched parts with -o; with the file name, line
 * number and byte offset prefixes, in grep's colours), the per-file
 * summaries (-l, -c, --count-matches; the binary-file note goes to
 * standard error, as grep 3.8 writes it) and the
 * --json records.  A printer is set up per file; it reads only the config's
 * output options and the file's bytes.
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
    FILE *out;             /* where the lines go (stdout, or the file's
                              output held back for ordered output) */
    uint64_t base;         /* the offset in the file of buf[0] (-b) */
} find_printer;

/* Prints a selected line, or with -o each of its matches on a line of its
 * own.  A find_line_fn: pass the printer as ctx. */
void find_print_line(void *printer, const find_line *line);

/* One --json record: an occurrence of pattern `id` at `offset`, on line
 * `line`. */
void find_print_json(const find_printer *p, uint32_t id, uint64_t offset,
                     uint64_t line);

/* What a file's search comes to, printed after it. */
typedef struct find_file_result {
    bool matched;          /* a line was selected (or, counting occurrences,
                              one was found) */
    bool binary;
    uint64_t lines;        /* lines selected (-c) */
    uint64_t occurrences;  /* --count-matches */
} find_file_result;

/* The per-file line of -l, -c and --count-matches, or grep's note that a
 * binary file matches; nothing with -q or when lines were printed. */
void find_print_summary(const find_printer *p, const find_file_result *r);

#endif
