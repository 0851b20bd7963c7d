/*
 * pool.h - many files searched at once: the walk (walk.h) hands files to a
 * queue, a pool of worker threads searches them (search.h), one file per
 * thread; a big file still gets the library's threads for its pieces.
 *
 * Output stays whole per file.  Ordered (the default, --sort path): files
 * print in the order the walk found them, as a one-thread search would; a
 * file's output is held back in memory until the files before it have
 * printed, and the file being printed next writes straight to standard
 * output from its next piece on (so a slow pipe or a big file is not held
 * back whole).  Unordered (--sort none): each file prints when it is done.
 */
#ifndef HAY_FIND_POOL_H
#define HAY_FIND_POOL_H

#include <stdbool.h>

#include "search.h"

typedef struct find_pool find_pool;

/* Starts `workers` threads searching with r.  Returns NULL after printing
 * why it could not. */
find_pool *find_pool_start(find_searcher *r, unsigned workers, bool ordered);

/* A find_visit_fn (walk.h): queues the file; pass the pool as ctx.
 * Returns false once the search should end (-q found a line). */
bool find_pool_visit(void *pool, int fd, char *name, bool walked);

/* Waits for the queued files, prints what is left, adds the workers'
 * totals to *into and frees the pool. */
void find_pool_finish(find_pool *p, find_totals *into);

#endif
