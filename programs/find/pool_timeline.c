/* pool_timeline.c - HAY_WALK_TIMELINE's record (see pool_timeline.h). */
#include "pool_timeline.h"

#include "cli.h"
#include "input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIGS 32   /* big files kept a worker */

typedef struct big_file {
    char name[64];      /* the path's last 63 bytes */
    uint64_t size;
    unsigned threads;
    double from, to;
} big_file;

typedef struct worker_line {
    unsigned files, dirs, nbig;
    uint64_t bytes;
    double busy, idle, first, last;
    big_file big[BIGS];
} worker_line;

struct find_timeline {
    double t0;
    unsigned n;
    worker_line *w;
};

find_timeline *find_timeline_start(unsigned workers)
{
    if (!getenv("HAY_WALK_TIMELINE"))
        return NULL;
    find_timeline *t = calloc(1, sizeof *t);
    if (!t || !(t->w = calloc(workers, sizeof *t->w))) {
        free(t);
        return NULL;
    }
    t->n = workers;
    t->t0 = cli_now();
    for (unsigned i = 0; i < workers; i++)
        t->w[i].first = -1;
    return t;
}

void find_timeline_idle(find_timeline *t, unsigned i, double from, double to)
{
    t->w[i].idle += to - from;
}

void find_timeline_entry(find_timeline *t, unsigned i, const char *name, bool dir,
                         uint64_t size, unsigned threads, double from, double to)
{
    worker_line *w = &t->w[i];
    w->files += !dir;
    w->dirs += dir;
    w->bytes += size;
    w->busy += to - from;
    if (w->first < 0)
        w->first = from - t->t0;
    w->last = to - t->t0;
    if (dir || size < FIND_READ_CAP || w->nbig == BIGS)
        return;
    big_file *b = &w->big[w->nbig++];
    size_t len = strlen(name);
    snprintf(b->name, sizeof b->name, "%s", len < sizeof b->name ? name
                                              : name + len - (sizeof b->name - 1));
    b->size = size;
    b->threads = threads;
    b->from = from - t->t0;
    b->to = to - t->t0;
}

void find_timeline_finish(find_timeline *t)
{
    if (!t)
        return;
    double end = cli_now() - t->t0;
    fprintf(stderr, "hay: walk timeline (ms from the pool's start; ends at %.2f):\n", end * 1e3);
    for (unsigned i = 0; i < t->n; i++) {
        worker_line *w = &t->w[i];
        fprintf(stderr, "hay:   worker %2u: %u files (%.1f MB), %u dirs, busy %.2f, idle %.2f, "
                        "first %.2f, last %.2f\n",
                i, w->files, (double)w->bytes / 1e6, w->dirs, w->busy * 1e3, w->idle * 1e3,
                w->first * 1e3, w->last * 1e3);
        for (unsigned k = 0; k < w->nbig; k++)
            fprintf(stderr, "hay:     big %s (%.1f MB, %u threads) %.2f-%.2f\n",
                    w->big[k].name, (double)w->big[k].size / 1e6, w->big[k].threads,
                    w->big[k].from * 1e3, w->big[k].to * 1e3);
    }
    free(t->w);
    free(t);
}
