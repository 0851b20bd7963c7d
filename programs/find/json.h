/*
 * json.h - `hay find --json`: JSON Lines in ripgrep's schema (begin, match,
 * end records per file, a summary last), documented in docs/JSON.md.  Text
 * that is not valid UTF-8 (file names, lines, matches, patterns) is written
 * as {"bytes": base64} instead of {"text": ...}, as ripgrep does.  Called by
 * the printer (printer.c) and, for the summary, by main.c.
 */
#ifndef HAY_FIND_JSON_H
#define HAY_FIND_JSON_H

#include "printer.h"
#include "stats.h"

/* A selected line and its matches (preceded by the file's begin record if
 * it was not printed yet). */
void find_json_line(find_printer *p, const find_line *l);

/* The file's end record with its counts, and its begin record first if it
 * was not printed yet; nothing for a file that printed nothing in the plain
 * output (no match, and neither -c nor --count-matches). */
void find_json_end(find_printer *p, const find_file_result *r);

/* The summary record: the totals over the files (the counts the files'
 * end records gave, summed), and the run's time. */
void find_json_summary(const find_config *cf, const find_totals *t, double elapsed_s);

#endif
