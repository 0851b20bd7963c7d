/*
 * align_timeline.c - `hay align --stats`'s timeline of a database search:
 * the command's own phases (reading, encoding, printing) and the library's
 * (hay_align_db_results.phases: the search's, the GPU's and the device
 * start's), all on the monotonic clock, printed in the order they began,
 * as offsets from the start of the search command.
 */
#include "align.h"
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void timeline_init(timeline *t)
{
    memset(t, 0, sizeof *t);
    t->t0 = cli_now();
    t->real0 = realtime();
}

void timeline_add(timeline *t, const char *name, double start, double end)
{
    hay_align_phase p = { name, start, end, end - start, 1 };
    timeline_add_phase(t, &p);
}

/* Timing is best effort: a phase that finds no memory is left out. */
void timeline_add_phase(timeline *t, const hay_align_phase *p)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        hay_align_phase *q = realloc(t->p, cap * sizeof *q);
        if (!q)
            return;
        t->p = q;
        t->cap = cap;
    }
    t->p[t->n++] = *p;
}

void timeline_add_results(timeline *t, const hay_align_db_results *r)
{
    for (size_t i = 0; r && i < r->nphases; i++)
        timeline_add_phase(t, &r->phases[i]);
}

void timeline_free(timeline *t)
{
    free(t->p);
    memset(t, 0, sizeof *t);
}

/* When the process began, on the monotonic clock: its start in clock ticks
 * after boot (/proc/self/stat, 10 ms steps on most kernels) against the
 * boot clock now.  0 when unknown. */
double timeline_process_start(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return 0;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* Field 22; the name (field 2) may hold spaces, so count after ')'. */
    char *p = strrchr(buf, ')');
    unsigned long long ticks = 0;
    for (int field = 2; p && *p && field < 22; p++)
        if (*p == ' ')
            field++;
    long hz = sysconf(_SC_CLK_TCK);
    if (!p || sscanf(p, "%llu", &ticks) != 1 || hz <= 0)
        return 0;
    struct timespec boot;
    if (clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return 0;
    double since = (double)boot.tv_sec + 1e-9 * (double)boot.tv_nsec -
                   (double)ticks / (double)hz;
    return cli_now() - since;
}

static int by_start(const void *a, const void *b)
{
    const hay_align_phase *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

void timeline_print(timeline *t)
{
    double now = cli_now(), real = realtime();
    double ps = t->proc_start ? t->proc_start : timeline_process_start();
    qsort(t->p, t->n, sizeof *t->p, by_start);
    if (ps > 0)
        fprintf(stderr, "stats: timeline process_start=%+.3f (from /proc, 10 ms steps)\n",
                ps - t->t0);
    for (size_t i = 0; i < t->n; i++) {
        const hay_align_phase *p = &t->p[i];
        fprintf(stderr, "stats: timeline at=%+.6f end=%+.6f seconds=%.6f count=%" PRIu64
                " phase=%s\n", p->start - t->t0, p->end - t->t0, p->seconds, p->count,
                p->name);
    }
    /* The wall clock at the start and here, for a caller that times the
     * process from outside (start-up before, exit after). */
    fprintf(stderr, "stats: timeline end=%+.6f realtime_start=%.6f realtime_end=%.6f\n",
            now - t->t0, t->real0, real);
}
