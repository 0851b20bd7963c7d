/*
 * pool_timeline.h - where the workers of a walk spent their time (pool.h),
 * for a developer asking why a tree takes as long as it does: with the
 * environment variable HAY_WALK_TIMELINE set, each worker's files,
 * directories listed, busy and idle time, and its big files (when each
 * started and ended, on how many threads) go to standard error at the
 * walk's end, in milliseconds from the pool's start.  Unset, nothing is
 * recorded (the pool holds NULL).
 */
#ifndef HAY_FIND_POOL_TIMELINE_H
#define HAY_FIND_POOL_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct find_timeline find_timeline;

/* A timeline for `workers` workers if HAY_WALK_TIMELINE is set, else (or
 * when out of memory) NULL. */
find_timeline *find_timeline_start(unsigned workers);

/* Worker `i` waited for work from `from` to `to` (cli_now's clock, as
 * every time below). */
void find_timeline_idle(find_timeline *t, unsigned i, double from, double to);

/* Worker `i` searched a file (or listed a directory, `dir`: `name` may be
 * NULL) of `size` bytes named `name` from `from` to `to`, on at most
 * `threads` threads. */
void find_timeline_entry(find_timeline *t, unsigned i, const char *name, bool dir,
                         uint64_t size, unsigned threads, double from, double to);

/* Prints the timeline to standard error and frees it (NULL: nothing). */
void find_timeline_finish(find_timeline *t);

#endif
