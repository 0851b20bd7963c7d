/*
 * search.h - searching one file: its bytes (input.h) go through the
 * compiled set (matcher.h), the matches become lines (lines.h), and the
 * lines and the file's summary go to the printer (printer.h).  Which of
 * them run depends on the output options only.
 */
#ifndef HAY_FIND_SEARCH_H
#define HAY_FIND_SEARCH_H

#include <stdbool.h>

#include "matcher.h"
#include "options.h"
#include "stats.h"

typedef struct find_searcher {
    const find_config *cf;
    find_matcher *matcher;
    find_totals t;           /* summed over the files searched */
    bool print_names;        /* always print file names */
    bool names_in_walk;      /* print them for files found inside directories */
    bool used;               /* a line was printed (a group separator may
                                follow) */
} find_searcher;

/* Searches the open file `fd` and prints what the options ask for.  A
 * find_visit_fn (walk.h): pass the searcher as ctx. */
void find_search_file(void *searcher, int fd, const char *name, bool walked);

#endif
