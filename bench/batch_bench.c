/*
 * batch_bench.c - the cost of getting every match out of the library: one
 * callback per match (hay_scan) against arrays of matches (hay_scan_batch),
 * beside the count alone (hay_scan_count, the floor), through the public
 * API (part batch of bench/run.py, issue 17 item 2), and the whole list in
 * arrays of the caller's (hay_scan_list, then the same work over them):
 *
 *   batch_bench [--backend cpu|cuda|opencl|auto] [--threads N] [--runs 5]
 *               [--only count|per-match|batch|list] -f PATTERNS_FILE FILE
 *
 * PATTERNS_FILE holds one pattern per line with \xHH escapes (the format of
 * shared/data/patterns).  Both consumers do the same work per match: count
 * it for its pattern and add its end to a checksum; every run must give the
 * same number of matches, per-pattern counts and checksum (exit 1
 * otherwise).  Output: readable lines, then one
 * "mode<TAB>metric<TAB>value<TAB>unit" line per figure after "# tsv".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "haystack.h"
#include "bench_util.h"
#include "patfile.h"

#define MAX_RUNS 101

typedef struct consumer {
    uint64_t *each;   /* per pattern id */
    uint64_t sum;     /* of the ends */
    uint64_t n;
} consumer;

static int per_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    consumer *c = ctx;
    c->each[id]++;
    c->sum += end;
    c->n++;
    return 0;
}

/* The same work; what a batch allows is keeping the running state in
 * locals (registers) for a whole array instead of memory between calls. */
static int per_batch(const hay_match *m, size_t n, void *ctx)
{
    consumer *c = ctx;
    uint64_t *each = c->each, sum = c->sum;
    for (size_t i = 0; i < n; i++) {
        each[m[i].id]++;
        sum += m[i].end;
    }
    c->sum = sum;
    c->n += n;
    return 0;
}

/* The whole list into arrays made once (cap: every match), then the same
 * work over them. */
typedef struct arrays {
    hay_match_list l;
    size_t cap;
    double call;   /* seconds of the last hay_scan_list call alone */
} arrays;

static hay_status per_list(const hay_patterns *set, hay_scratch *sc, const uint8_t *hay,
                           size_t len, const hay_scan_opts *o, arrays *a, consumer *c)
{
    a->l = (hay_match_list){ a->l.ids, NULL, a->l.ends, a->cap, 0, 0 };
    double t0 = bench_now();
    hay_status s = hay_scan_list(set, sc, hay, len, 0, o, &a->l);
    a->call = bench_now() - t0;
    if (s == HAY_OK && a->l.done != len)
        s = HAY_ERR_STATE;   /* the cap holds every match */
    uint64_t *each = c->each, sum = c->sum;
    for (size_t i = 0; s == HAY_OK && i < a->l.n; i++) {
        each[a->l.ids[i]]++;
        sum += a->l.ends[i];
    }
    c->sum = sum;
    c->n += a->l.n;
    return s;
}

static int usage(void)
{
    fprintf(stderr, "usage: batch_bench [--backend NAME] [--threads N] [--runs N] "
                    "[--only MODE] -f PATTERNS_FILE FILE\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *backend = "cpu", *patpath = NULL, *path = NULL, *only = NULL;
    unsigned threads = 0;
    int runs = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "-f") && i + 1 < argc)
            patpath = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            return usage();
    }
    if (!patpath || !path || runs < 1 || runs > MAX_RUNS)
        return usage();
    size_t plen = 0, len = 0;
    uint8_t *ptext = read_all(patpath, &plen), *hay = read_all(path, &len);
    if (!ptext || !hay) {
        fprintf(stderr, "batch_bench: cannot read %s\n", !ptext ? patpath : path);
        return 2;
    }
    pat_list pl = { 0 };
    char err[256];
    if (pat_list_add_text(&pl, ptext, plen, true, true, patpath, err, sizeof err) < 0) {
        fprintf(stderr, "batch_bench: %s\n", err);
        return 2;
    }
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    hay_patterns *set = NULL;
    hay_scratch *sc = NULL;
    hay_status s = hay_backend_parse(backend, &co.backend);
    if (s == HAY_OK)
        s = hay_patterns_compile(pl.items, pl.n, &co, &set);
    if (s == HAY_OK)
        s = hay_scratch_create(set, &sc);
    if (s != HAY_OK) {
        fprintf(stderr, "batch_bench: backend %s: %s\n", backend, hay_strerror(s));
        return s == HAY_ERR_NO_DEVICE || s == HAY_ERR_NO_BACKEND ? 77 : 2;
    }
    hay_patterns_info info;
    hay_patterns_info_get(set, &info);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;

    static const char *const modes[] = { "count", "per-match", "batch", "list" };
    double med[4] = { 0, 0, 0, 0 };
    arrays arr = { { NULL, NULL, NULL, 0, 0, 0 }, 0, 0 };
    double calls[MAX_RUNS], call_med = 0;   /* list: the call alone */
    uint64_t matches = 0, sum0 = 0;
    uint64_t *each0 = calloc(pl.n, sizeof *each0);
    consumer c = { calloc(pl.n, sizeof *c.each), 0, 0 };
    bool ok = each0 && c.each;
    /* --only: that mode alone (for a profiler); the count comes first. */
    for (int m = 0; m < 4 && ok; m++) {
        if (only && m > 0 && strcmp(only, modes[m]))
            continue;
        if (m == 3) {   /* arrays for every match, faulted in before the runs */
            arr.cap = matches ? matches : 1;
            arr.l.ids = malloc(arr.cap * sizeof *arr.l.ids);
            arr.l.ends = malloc(arr.cap * sizeof *arr.l.ends);
            ok = arr.l.ids && arr.l.ends;
            if (ok) {
                memset(arr.l.ids, 0, arr.cap * sizeof *arr.l.ids);
                memset(arr.l.ends, 0, arr.cap * sizeof *arr.l.ends);
            }
        }
        double t[MAX_RUNS];
        for (int r = 0; r <= runs && ok; r++) {   /* run 0 warms up */
            memset(c.each, 0, pl.n * sizeof *c.each);
            c.sum = c.n = 0;
            double t0 = bench_now();
            if (m == 0)
                s = hay_scan_count(set, sc, hay, len, &o, &c.n);
            else if (m == 1)
                s = hay_scan(set, sc, hay, len, &o, per_match, &c);
            else if (m == 2)
                s = hay_scan_batch(set, sc, hay, len, &o, per_batch, &c);
            else
                s = per_list(set, sc, hay, len, &o, &arr, &c);
            double dt = bench_now() - t0;
            if (r > 0) {
                t[r - 1] = dt;
                calls[r - 1] = arr.call;
            }
            ok = s == HAY_OK;
            if (m == 0) {
                matches = c.n;
            } else if (sum0 == 0 && r == 0) {   /* the first list run */
                memcpy(each0, c.each, pl.n * sizeof *each0);
                sum0 = c.sum;
            } else {
                ok = ok && c.sum == sum0 && !memcmp(each0, c.each, pl.n * sizeof *each0);
            }
            ok = ok && c.n == matches;
        }
        if (ok)
            med[m] = bench_median(t, runs);
        if (ok && m == 3)
            call_med = bench_median(calls, runs);
    }
    if (!ok) {
        fprintf(stderr, "batch_bench: %s: status %s, %llu matches (count %llu), checks "
                        "differ\n", backend, hay_strerror(s), (unsigned long long)c.n,
                (unsigned long long)matches);
        return 1;
    }
    printf("%s/%s, %zu patterns, %zu bytes, %llu matches, threads %u, median of %d\n",
           hay_backend_name(info.backend), info.algo, pl.n, len,
           (unsigned long long)matches, threads, runs);
    for (int m = 0; m < 4; m++)
        if (med[m] > 0)
            printf("  %-10s %9.2f ms  %8.1f M matches/s  %6.2f GB/s\n", modes[m],
                   med[m] * 1e3, (double)matches / med[m] / 1e6, (double)len / med[m] / 1e9);
    if (call_med > 0)
        printf("  %-10s %9.2f ms  (the hay_scan_list call alone, without the pass over the "
               "arrays)\n", "list call", call_med * 1e3);
    printf("# tsv\n");
    printf("info\tmatches\t%llu\tmatches\n", (unsigned long long)matches);
    printf("info\talgo\t%s/%s\t-\n", hay_backend_name(info.backend), info.algo);
    for (int m = 0; m < 4; m++) {
        if (med[m] <= 0)
            continue;
        printf("%s\tms\t%.3f\tms\n", modes[m], med[m] * 1e3);
        printf("%s\tMmatches_per_s\t%.2f\tM/s\n", modes[m], (double)matches / med[m] / 1e6);
    }
    if (med[1] > 0 && med[2] > 0)
        printf("batch\tspeedup_vs_per_match\t%.3f\tx\n", med[1] / med[2]);
    if (med[2] > 0 && med[3] > 0)
        printf("list\tspeedup_vs_batch\t%.3f\tx\n", med[2] / med[3]);
    if (call_med > 0)
        printf("list\tcall_ms\t%.3f\tms\n", call_med * 1e3);
    free(arr.l.ids);
    free(arr.l.ends);
    free(each0);
    free(c.each);
    hay_scratch_free(sc);
    hay_patterns_free(set);
    pat_list_free(&pl);
    free(ptext);
    free(hay);
    return 0;
}
