/*
 * search.h - searching one file: its bytes come in pieces of whole lines
 * (input.h), each piece goes through the compiled set (matcher.h), the
 * matches become lines (lines.h), and the lines and the file's summary go
 * to the printer (printer.h).  Which of them run depends on the output
 * options only.  A searcher is shared by every thread; a worker is one
 * thread's state.
 */
#ifndef HAY_FIND_SEARCH_H
#define HAY_FIND_SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input.h"
#include "matcher.h"
#include "options.h"
#include "stats.h"

typedef struct find_searcher {
    const find_config *cf;
    find_matcher *matcher;
    bool print_names;        /* always print file names */
    bool names_in_walk;      /* print them for files found inside directories */
    bool flush_lines;        /* flush after every line (--line-buffered, or
                                standard output is a terminal) */
    bool read_whole;         /* a read input comes in one piece: a pattern
                                holds a newline, -z, or -B/-C (search.c) */
    bool skip_lines;         /* no pattern holds the line terminator */
    bool marks_lines;        /* lines on the GPU from the bitmap of match ends
                                (linecount.h find_select_by_marks): --backend
                                cuda or opencl, and no pattern holds the
                                terminator */
    unsigned threads;        /* the library threads of a big piece, resolved
                                once (--threads, else the CPU count) */
    bool used;               /* a line was printed (a group separator may
                                follow; context turns the pool off, so one
                                thread writes it) */
} find_searcher;

typedef struct find_worker find_worker;

/* Called between the pieces of a file, and every FIND_HOOK_LINES lines
 * printed: ordered output may move the file's output from its holding
 * buffer to standard output there (w->out changes). */
#define FIND_HOOK_LINES 4096
typedef void (*find_piece_fn)(find_worker *w);
/* Called with the bytes of a regular file left to search: before its
 * first piece and between its pieces.  The pool sets w->threads there, and
 * lets other workers take the entries queued behind a big file (pool.h). */
typedef void (*find_sized_fn)(find_worker *w, uint64_t left);

struct find_worker {
    find_searcher *r;
    hay_scratch *scratch;    /* this thread's */
    find_readbuf rb;         /* this thread's read buffer */
    find_totals t;           /* summed over the files this worker searched */
    FILE *out;               /* where the file's lines go */
    find_piece_fn between;   /* NULL, or called between pieces and lines */
    find_sized_fn sized;     /* NULL, or told the bytes of a file left */
    unsigned threads;        /* the library threads of a big piece; 0: r->threads
                                (the pool lends its idle workers' cores, pool.h) */
    void *ctx;               /* the caller's */
};

/* Sets up the searcher from the config and the matcher (the CPU count and
 * the patterns are looked at here, once per process). */
void find_searcher_init(find_searcher *r, const find_config *cf, find_matcher *m);

/* Searches the open file `fd` and prints what the options ask for to
 * w->out. */
void find_search_file(find_worker *w, int fd, const char *name, bool walked);

/* Adds a worker's totals into *into. */
void find_totals_merge(find_totals *into, const find_totals *from);

#endif
