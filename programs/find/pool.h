/*
 * pool.h - many files searched at once, and the -r walk done by the same
 * threads: operands come from the walk's caller (walk.h) one by one; a
 * directory is a piece of work like a file, listed by whichever worker
 * takes it, its entries becoming work in turn.  Work is taken earliest
 * first in the walk's order (depth first, entries in name order), a few
 * consecutive entries of a directory at once; deep directories (past
 * FIND_WALK_FDS levels) and those met when too many directories are held
 * open are walked whole by one worker, as a single piece of work (holding
 * a few descriptors down its tree, then going back up through "..").
 *
 * A big file (FIND_READ_CAP or more) gives the entries queued behind it
 * in its worker's range back to the queue, for other workers to take now:
 * a directory's big files, listed together, are searched side by side,
 * not one after another on one core.  A big file met while other work
 * waits is searched on its worker's core alone, read in pieces (input.h);
 * the cores of workers with nothing to take (the walk's end, or the
 * printing held back by this very file) are lent to it as the library's
 * threads: from its start, or from the piece after they fell idle, its
 * rest then mapped.  A core is lent to one file at a time (several big
 * files at the walk's end share the idle cores), and given back between
 * the file's pieces and at its end.  Threads started for a file while
 * every core has work would only take cores from the other files, and
 * leave the file waiting on its threads that are not running.
 *
 * Output stays whole per file.  Ordered (the default, --sort path): files
 * print in the order a one-thread walk finds them: every entry keeps its
 * place in its directory's sorted list, a file's output is held in memory
 * until everything before it has printed, and whoever finishes the entry
 * the printing waits on prints what follows it that is done.  The file
 * printing next writes straight to standard output from its next piece on
 * (a slow pipe or a big file is not held back whole).  Memory is bounded:
 * past WINDOW entries a worker done but not printed (or WINDOW_BYTES of
 * their output), workers take only the entry the printing waits on.
 * Unordered (--sort none): each file prints when done.
 */
#ifndef HAY_FIND_POOL_H
#define HAY_FIND_POOL_H

#include <stdbool.h>

#include "search.h"
#include "walk.h"

typedef struct find_pool find_pool;

/* Starts `workers` threads searching with r and walking as `walk` says
 * (its filters and options are copied; visit and ctx are not used).
 * Returns NULL after printing why it could not. */
find_pool *find_pool_start(find_searcher *r, const find_walk *walk, unsigned workers,
                           bool ordered);

/* A find_visit_fn (walk.h): queues the operand file; pass the pool as ctx.
 * Returns false once the search should end (-q found a line). */
bool find_pool_visit(void *pool, int fd, char *name, bool walked);

/* find_walk's visit_dir: queues the operand directory to be walked. */
bool find_pool_visit_dir(void *pool, int fd, char *path);

/* Waits for the queued work, prints what is left, adds the workers'
 * totals (and walk errors) to *into and frees the pool. */
void find_pool_finish(find_pool *p, find_totals *into);

#endif
