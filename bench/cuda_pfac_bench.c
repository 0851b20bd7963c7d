/*
 * cuda_pfac_bench.c - the CUDA PFAC engine against the paper's tables
 * (../shared/papers/pfac-opencl-mobile-energy.txt, Figures 7-10) and, at
 * 1 GiB, against the CPU engines and Hyperscan.
 *
 *   cuda_pfac_bench fig7   PATFILE TEXTDIR [--reps N]
 *       1,000 patterns of at most 128 bytes (the first of PATFILE that
 *       fit) over 10 MB of TEXTDIR's files: one row per knob setting
 *       (transfer, root row, block, bytes per thread, table, staging) with
 *       copy-in, kernel, copy-out and total (count only, and full sorted
 *       match list), then the speed-up over serial CPU Aho-Corasick.
 *   cuda_pfac_bench threads PATFILE TEXTDIR [--reps N]
 *       the same setup: CPU PFAC-equivalent DFA on 1..16 threads against
 *       the GPU (Figures 9/10).
 *   cuda_pfac_bench big PATFILE TEXTDIR [--reps N] [--hs HS_BENCH] [--file PATH]
 *       1 GiB (TEXTDIR's files cycled): CPU hay (16 threads), CUDA
 *       end-to-end count, CUDA resident kernel-only, CUDA full ordered
 *       lists (below), and Hyperscan-16T (hs_bench, run on the same bytes
 *       written to PATH), with the counts checked equal.
 *   cuda_pfac_bench lits PATFILE TEXTDIR [--reps N] [--count-only] [--rows N]
 *       1 GiB as for big: the two CUDA literal engines side by side, PFAC
 *       and fdr-gpu (defaults, then fdr-gpu's knobs): resident kernel-only
 *       count, end-to-end count from host memory, end-to-end full ordered
 *       list per match and in batches (defaults only), all counts checked
 *       against PFAC's (--count-only: no list rows; --rows N: the first N);
 *       for the defaults also hay_scan_marks and hay_scan_first, resident
 *       (kernel-only and wall) and end to end, checked against the bitmap
 *       and first match of PFAC's per-match list (a "#   marks:" line);
 *       under each list row, the whole list into the caller's arrays
 *       (hay_scan_list, end to end and resident: list_arrays.c).
 *   cuda_pfac_bench list PATFILE TEXTDIR [--reps N] [--algo NAME] [--only ROWS]
 *                        [--params KEY=VALUE,...]
 *       1 GiB as for big, PFAC (or --algo's engine; --params: the set's
 *       compile params, e.g. result_cap=N): the end-to-end
 *       count, the resident kernel and the list rows below (no knobs, no
 *       CPU, no Hyperscan),
 *       then list-batch with lists of 1M and 64K slots (result_cap: the
 *       pieces overflow and are searched again in parts that fit), and
 *       the "list arrays" rows: hay_scan_list and hay_scan_buffer_list into
 *       the caller's arrays, the whole list in one call (all threads, one
 *       thread) and in calls of a 16M cap (list_arrays.c).  --only: some
 *       list-arrays rows, with each list sort (list_filtered below).
 *
 * The full ordered list, three ways: "full list" (hay_scan, a callback per
 * match that folds it into a checksum), "list-batch" (hay_scan_batch: the
 * same checksum over each array, and a check that ends never decrease
 * within and across batches), "resident list-batch" (hay_scan_buffer_batch
 * over the device copy: no copy-in).  The checksums must agree with the
 * per-match list's; a row prints DIFF when the count, the checksum or the
 * order is wrong.  Each list row prints its phases (stats: copy_in, kernel,
 * copy_out = the sort and the copy back; they overlap across pieces).
 * "list-batch 1 thread" asks for one thread (hay_scan_opts.threads = 1):
 * the calling thread alone turns the sorted keys into hay_match arrays
 * (by default a helper thread does, src/cuda/list.c).  The "count-only"
 * rows hand the batches to a callback that only adds n: the library's own
 * delivery, without the caller's work per match.
 *
 * Times are medians of --reps runs (default 5) after one warm-up.  Patterns
 * are read one per line with \xHH escapes (shared/data/patterns format).
 */
#include "haystack.h"
#include "patfile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"
#include "list_arrays.h"
#include "list_fold.h"

static int reps = 5;
static int count_only;   /* lits --count-only: no list rows */
static int max_rows;     /* lits --rows N: the first N rows only (0: all) */
static const char *list_algo = "pfac";   /* list --algo NAME */
static const char *list_rows_only;        /* list --only ROWS (list_filtered) */
static const char *list_params;           /* list --params KEY=VALUE,... (the set's) */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* TEXTDIR's files in name order, cycled until `size` bytes. */
static uint8_t *make_text(const char *dir, uint64_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *names[256];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(d)) && nn < 256)
        if (de->d_name[0] != '.')
            names[nn++] = strdup(de->d_name);
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, by_name);
    uint8_t *out = malloc(size);
    uint64_t pos = 0;
    while (out && pos < size && nn) {
        for (int i = 0; i < nn && pos < size; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            size_t len;
            uint8_t *b = read_all(path, &len);
            if (!b)
                continue;
            uint64_t take = size - pos < len ? size - pos : len;
            memcpy(out + pos, b, take);
            pos += take;
            free(b);
        }
    }
    for (int i = 0; i < nn; i++)
        free(names[i]);
    return out;
}

static int load_patterns(const char *path, pat_list *l, size_t max_n,
                         size_t max_len)
{
    size_t len;
    uint8_t *t = read_all(path, &len);
    if (!t)
        return -1;
    char err[256];
    pat_list all;
    memset(&all, 0, sizeof all);
    memset(l, 0, sizeof *l);
    if (pat_list_add_text(&all, t, len, true, true, path, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        free(t);
        return -1;
    }
    free(t);
    /* Keep the first max_n of at most max_len bytes; free the others. */
    size_t k = 0;
    for (size_t i = 0; i < all.n; i++) {
        if (k < max_n && all.items[i].len <= max_len) {
            hay_pattern sw = all.items[i];
            all.items[i] = all.items[k];
            all.items[k++] = sw;
        }
    }
    for (size_t i = k; i < all.n; i++)
        free((void *)all.items[i].data);
    *l = all;
    l->n = k;
    return 0;
}

static hay_patterns *compile(const pat_list *p, hay_backend b, const char *algo,
                             const char *params)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = b;
    o.algo = algo;
    o.params = params;
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(p->items, p->n, &o, &set);
    if (s != HAY_OK)
        fprintf(stderr, "compile %s %s %s: %s\n", hay_backend_name(b),
                algo ? algo : "auto", params ? params : "", hay_strerror(s));
    return set;
}

typedef struct timing {
    double copy_in, kernel, copy_out, total, wall;
    uint64_t count, sum;
    int order_bad;
} timing;


static int list_cb(uint32_t id, uint64_t s, uint64_t e, void *ctx)
{
    fold *f = ctx;
    f->n++;
    fold_one(f, id, s, e);
    return 0;
}

static int batch_cb(const hay_match *m, size_t n, void *ctx)
{
    fold *f = ctx, l = *f;   /* in registers: m may alias *f for the compiler */
    l.n += n;
    for (size_t i = 0; i < n; i++)
        fold_one(&l, m[i].id, m[i].start, m[i].end);
    *f = l;
    return 0;
}

/* A batch callback that only counts: what the library's delivery costs
 * without the caller's work per match. */
static int batch_count_cb(const hay_match *m, size_t n, void *ctx)
{
    (void)m;
    ((fold *)ctx)->n += n;
    return 0;
}

enum { COUNT = 0, LIST = 1, BATCH = 2, BATCH_COUNT = 3, MARKS = 4, FIRST = 5 };
/* MARKS and FIRST runs: where hay_scan_marks and hay_scan_first put theirs. */
static uint64_t *run_marks;
static hay_match run_first;

/* The library's diagnostic line about the last list (hay_scan_opts.log:
 * the CUDA list's timeline), printed under the list rows. */
static char last_log[1024];

static void keep_log(const char *line, void *ctx)
{
    (void)ctx;
    size_t n = strlen(last_log);
    if (strstr(line, "list arrays:"))   /* after the call's "cuda list:" line */
        snprintf(last_log + n, sizeof last_log - n, "%s%s", n ? " | " : "", line);
    else if (strstr(line, "list"))
        snprintf(last_log, sizeof last_log, "%s", line);
}

/* Median timings of a count, a full-list scan (LIST: a callback per match)
 * or a batched one (BATCH) of a host input, or of a resident buffer. */
static timing run(const hay_patterns *set, const uint8_t *d, uint64_t len,
                  const hay_buffer *buf, int list, unsigned threads)
{
    timing t;
    memset(&t, 0, sizeof t);
    hay_scratch *s = NULL;
    hay_scratch_create(set, &s);
    double ci[64], k[64], co[64], tot[64], w[64];
    int n = reps < 64 ? reps : 63;
    for (int r = -1; r < n; r++) {
        hay_scan_stats st;
        memset(&st, 0, sizeof st);
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = threads;
        o.stats = &st;
        o.log = keep_log;
        uint64_t c = 0;
        fold f;
        memset(&f, 0, sizeof f);
        double t0 = bench_now();
        hay_status rc;
        if (list == MARKS)
            rc = buf ? hay_scan_marks_buffer(set, s, buf, &o, run_marks)
                     : hay_scan_marks(set, s, d, len, &o, run_marks);
        else if (list == FIRST)
            rc = buf ? hay_scan_first_buffer(set, s, buf, &o, &run_first)
                     : hay_scan_first(set, s, d, len, &o, &run_first);
        else if (buf && list >= BATCH)
            rc = hay_scan_buffer_batch(set, s, buf, &o,
                                       list == BATCH ? batch_cb : batch_count_cb, &f);
        else if (buf && list == LIST)
            rc = hay_scan_buffer(set, s, buf, &o, list_cb, &f);
        else if (buf)
            rc = hay_scan_count_buffer(set, s, buf, &o, &c);
        else if (list >= BATCH)
            rc = hay_scan_batch(set, s, d, len, &o, list == BATCH ? batch_cb : batch_count_cb,
                                &f);
        else if (list == LIST)
            rc = hay_scan(set, s, d, len, &o, list_cb, &f);
        else
            rc = hay_scan_count(set, s, d, len, &o, &c);
        double wall = bench_now() - t0;
        if (rc != HAY_OK)
            fprintf(stderr, "scan: %s\n", hay_strerror(rc));
        if (list == LIST || list == BATCH || list == BATCH_COUNT)
            c = f.n;
        if (list == FIRST)
            c = run_first.end;
        if (r < 0)
            continue;   /* warm-up */
        t.count = c;
        t.sum = f.sum;
        t.order_bad |= f.order_bad;
        ci[r] = st.copy_in_seconds;
        k[r] = st.kernel_seconds;
        co[r] = st.copy_out_seconds;
        tot[r] = st.total_seconds;
        w[r] = wall;
    }
    t.copy_in = bench_median(ci, n);
    t.kernel = bench_median(k, n);
    t.copy_out = bench_median(co, n);
    t.total = bench_median(tot, n);
    t.wall = bench_median(w, n);
    hay_scratch_free(s);
    return t;
}

static uint8_t *paper_text(const char *dir, uint64_t *len)
{
    *len = 10000000;
    return make_text(dir, *len);
}

static int fig7(const char *patfile, const char *dir)
{
    pat_list p;
    if (load_patterns(patfile, &p, 1000, 128) < 0)
        return 2;
    uint64_t len;
    uint8_t *d = paper_text(dir, &len);
    if (!d)
        return 2;
    hay_patterns *ac = compile(&p, HAY_BACKEND_CPU, "ac", NULL);
    hay_patterns *dfa = compile(&p, HAY_BACKEND_CPU, "dfa", NULL);
    timing tac = run(ac, d, len, NULL, 0, 1);
    timing tdfa = run(dfa, d, len, NULL, 0, 1);
    printf("# %zu patterns (<= 128 bytes) from %s, %llu bytes of %s; medians of %d\n",
           p.n, patfile, (unsigned long long)len, dir, reps);
    printf("# serial CPU Aho-Corasick (hay cpu/ac, 1 thread): %.2f ms, %llu matches; "
           "serial DFA: %.2f ms\n", tac.wall * 1e3, (unsigned long long)tac.count,
           tdfa.wall * 1e3);
    printf("%-66s | %8s %8s %8s %8s %6s | %9s %6s | %s\n", "knobs", "copy_in",
           "kernel", "copy_out", "total", "x_AC", "list_tot", "x_AC", "count ok");
    static const char *const rows[] = {
        "transfer=pageable,root=shared,stage=1,block=128,bpt=1",
        "transfer=pinned,root=shared,stage=1,block=128,bpt=1",
        "transfer=pinned,root=global,stage=0,block=128,bpt=1",
        "transfer=pinned,root=global,stage=0,block=64,bpt=1",
        "transfer=pinned,root=global,stage=0,block=256,bpt=1",
        "transfer=pinned,root=global,stage=0,block=256,bpt=4",
        "transfer=pinned,root=global,stage=0,block=256,bpt=8",
        "transfer=pinned,root=global,stage=0,block=256,bpt=12",
        "transfer=pinned,root=global,stage=0,block=256,bpt=16",
        "transfer=pinned,root=global,stage=0,block=256,bpt=16,loop=round",
        "transfer=pinned,root=shared,stage=0,block=256,bpt=16",
        "transfer=pinned,root=shared,stage=1,block=256,bpt=16",
        "transfer=pinned,root=shared,stage=0,block=256,bpt=16,table=tex",
        "transfer=pinned,root=shared,stage=0,block=256,bpt=16,table=compact",
        "transfer=pinned,root=shared,stage=0,block=256,bpt=32",
        "transfer=pinned,root=shared,stage=0,block=1024,bpt=4",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        hay_patterns *g = compile(&p, HAY_BACKEND_CUDA, "pfac", rows[i]);
        if (!g)
            return 2;
        timing c = run(g, d, len, NULL, 0, 0);
        timing l = run(g, d, len, NULL, 1, 0);
        int ok = c.count == tac.count && l.count == tac.count;
        bad |= !ok;
        printf("%-66s | %8.3f %8.3f %8.3f %8.3f %6.1f | %9.3f %6.1f | %s\n", rows[i],
               c.copy_in * 1e3, c.kernel * 1e3, c.copy_out * 1e3, c.total * 1e3,
               tac.wall / c.total, l.total * 1e3, tac.wall / l.total,
               ok ? "yes" : "NO");
        hay_patterns_free(g);
    }
    printf("# times in ms; copy phases overlap the kernel across pieces, so they "
           "need not add up to total\n");
    hay_patterns_free(ac);
    hay_patterns_free(dfa);
    free(d);
    pat_list_free(&p);
    return bad ? 1 : 0;
}

static int threads(const char *patfile, const char *dir)
{
    pat_list p;
    if (load_patterns(patfile, &p, 1000, 128) < 0)
        return 2;
    uint64_t len;
    uint8_t *d = paper_text(dir, &len);
    hay_patterns *dfa = compile(&p, HAY_BACKEND_CPU, "dfa", NULL);
    hay_patterns *g = compile(&p, HAY_BACKEND_CUDA, "pfac", NULL);
    if (!dfa || !g)
        return 2;
    timing tg = run(g, d, len, NULL, 0, 0);
    hay_buffer *buf = NULL;
    hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf);
    timing tr = run(g, d, len, buf, 0, 0);
    printf("# CPU DFA on 1..16 threads vs the GPU, %zu patterns over %llu bytes\n",
           p.n, (unsigned long long)len);
    printf("%-8s %10s %14s %14s %8s\n", "threads", "cpu_ms", "gpu_kernel_x",
           "gpu_overall_x", "count");
    static const unsigned ts[] = { 1, 2, 4, 8, 12, 16 };
    int bad = 0;
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
        timing c = run(dfa, d, len, NULL, 0, ts[i]);
        bad |= c.count != tg.count;
        printf("%-8u %10.3f %14.1f %14.1f %8s\n", ts[i], c.wall * 1e3,
               c.wall / tr.kernel, c.wall / tg.total,
               c.count == tg.count ? "same" : "DIFF");
    }
    printf("# GPU kernel (resident) %.3f ms, GPU overall (host input, count) %.3f ms\n",
           tr.kernel * 1e3, tg.total * 1e3);
    hay_buffer_free(buf);
    hay_patterns_free(dfa);
    hay_patterns_free(g);
    free(d);
    pat_list_free(&p);
    return bad;
}

/* Runs hs_bench on `file`; returns the median scan seconds, *count. */
static double hyperscan(const char *hs, const char *patfile, const char *file,
                        uint64_t *count)
{
    double v[64];
    int n = reps < 64 ? reps : 63;
    *count = 0;
    for (int r = -1; r < n; r++) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "%s -f '%s' --escapes --threads 16 --populate '%s' 2>&1",
                 hs, patfile, file);
        FILE *f = popen(cmd, "r");
        if (!f)
            return -1;
        char line[512];
        double sec = -1;
        while (fgets(line, sizeof line, f)) {
            char *q = strstr(line, "phase=scan");
            if (q && (q = strstr(q, "seconds=")))
                sec = atof(q + 8);
            else if (line[0] >= '0' && line[0] <= '9')
                *count = strtoull(line, NULL, 10);
        }
        pclose(f);
        if (r >= 0)
            v[r] = sec;
    }
    return bench_median(v, n);
}

static void row(const char *name, double sec, uint64_t n, uint64_t ref,
                double gb)
{
    printf("%-36s %10.4f %10.2f %12llu %s\n", name, sec, gb / sec,
           (unsigned long long)n, n == ref ? "same" : "DIFF");
    fflush(stdout);
}

static void list_row(const char *name, const timing *t, const timing *want, uint64_t ref,
                     double gb)
{
    int ok = t->count == ref && t->sum == want->sum && !t->order_bad;
    printf("%-36s %10.4f %10.2f %12llu %s\n", name, t->wall, gb / t->wall,
           (unsigned long long)t->count, ok ? "same" : t->order_bad ? "ORDER" : "DIFF");
    printf("#   phases: copy_in %.4f kernel %.4f copy_out+sort %.4f (overlapped)\n",
           t->copy_in, t->kernel, t->copy_out);
    if (*last_log)
        printf("#   %s\n", last_log);
    *last_log = 0;
    fflush(stdout);
}

/* The full ordered list of set g over d: per match, in batches (all
 * threads, then one), and resident in batches when buf is given.  Returns
 * the per-match row; *bad set when any row is wrong. */
static timing list_rows(const hay_patterns *g, const uint8_t *d, uint64_t len,
                        const hay_buffer *buf, uint64_t ref, double gb, int *bad)
{
    /* The floor the callback itself sets: its work over ref matches in
     * arrays of HAY_BATCH_MAX already made (in L1), without the library. */
    hay_match *a = malloc(HAY_BATCH_MAX * sizeof *a);
    for (unsigned i = 0; a && i < HAY_BATCH_MAX; i++)
        a[i] = (hay_match){ i % 1000, 0, i, i + 7 };
    fold ff;
    memset(&ff, 0, sizeof ff);
    double f0 = bench_now();
    for (uint64_t k = 0; a && k < ref; k += HAY_BATCH_MAX) {
        ff.last_end = 0;
        a[k / HAY_BATCH_MAX % HAY_BATCH_MAX].end++;   /* not hoisted */
        batch_cb(a, ref - k < HAY_BATCH_MAX ? ref - k : HAY_BATCH_MAX, &ff);
    }
    double fs = bench_now() - f0;
    printf("%-36s %10.4f %10.2f %12llu (checksum %llx)\n", "  the callback alone (L1)", fs,
           gb / fs, (unsigned long long)ff.n, (unsigned long long)ff.sum);
    free(a);
    timing tl = run(g, d, len, NULL, LIST, 0);
    list_row("cuda pfac end-to-end full list", &tl, &tl, ref, gb);
    timing tb = run(g, d, len, NULL, BATCH, 0);
    list_row("cuda pfac end-to-end list-batch", &tb, &tl, ref, gb);
    timing t1 = run(g, d, len, NULL, BATCH, 1);
    list_row("cuda pfac e2e list-batch 1 thread", &t1, &tl, ref, gb);
    *bad |= tl.count != ref || tl.order_bad;
    *bad |= tb.count != ref || tb.sum != tl.sum || tb.order_bad;
    *bad |= t1.count != ref || t1.sum != tl.sum || t1.order_bad;
    /* The library alone: a callback that only counts (no checksum: "same"
     * here checks the count). */
    for (unsigned th = 0; th < 2; th++) {
        timing tc = run(g, d, len, NULL, BATCH_COUNT, th);
        tc.sum = tl.sum;
        list_row(th ? "e2e list-batch, count-only cb, 1 thr" : "e2e list-batch, count-only callback",
                 &tc, &tl, ref, gb);
        *bad |= tc.count != ref;
    }
    if (buf) {
        timing tr = run(g, d, len, buf, BATCH, 0);
        list_row("cuda pfac resident list-batch", &tr, &tl, ref, gb);
        *bad |= tr.count != ref || tr.sum != tl.sum || tr.order_bad;
    }
    return tl;
}

/* Every pattern of patfile and 1 GiB of dir's text (the 1 GiB modes);
 * NULL when either cannot be read. */
static uint8_t *setup_1g(const char *patfile, const char *dir, pat_list *p)
{
    if (load_patterns(patfile, p, (size_t)-1, (size_t)-1) < 0)
        return NULL;
    return make_text(dir, (uint64_t)1 << 30);
}

static int big(const char *patfile, const char *dir, const char *hs,
               const char *file)
{
    pat_list p;
    uint64_t len = (uint64_t)1 << 30;
    uint8_t *d = setup_1g(patfile, dir, &p);
    if (!d)
        return 2;
    double gb = (double)len / 1e9;
    hay_patterns *g = compile(&p, HAY_BACKEND_CUDA, "pfac", NULL);
    hay_patterns *cpu = compile(&p, HAY_BACKEND_CPU, NULL, NULL);
    if (!cpu || !g)
        return 2;
    printf("# %s: %zu patterns over 1 GiB of %s; medians of %d after a warm-up\n",
           patfile, p.n, dir, reps);
    printf("%-36s %10s %10s %12s %s\n", "engine", "seconds", "GB/s", "matches",
           "vs cuda count");
    timing te = run(g, d, len, NULL, COUNT, 0);
    uint64_t ref = te.count;
    row("cuda pfac end-to-end count", te.wall, te.count, ref, gb);
    printf("#   phases: copy_in %.4f kernel %.4f copy_out %.4f (overlapped)\n",
           te.copy_in, te.kernel, te.copy_out);
    hay_buffer *buf = NULL;
    hay_status bs = hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf);
    timing tr;
    memset(&tr, 0, sizeof tr);
    if (bs == HAY_OK) {
        tr = run(g, d, len, buf, 0, 0);
        row("cuda pfac resident kernel-only", tr.kernel, tr.count, ref, gb);
        row("cuda pfac resident count (wall)", tr.wall, tr.count, ref, gb);
    } else {
        printf("# resident buffer: %s\n", hay_strerror(bs));
    }
    if (bs == HAY_OK) {
        static const char *const knobs[] = {
            "loop=round", "stage=1", "stage=1,loop=round", "table=tex", "bpt=4",
            "bpt=32", "bpt=64", "block=128", "block=512,bpt=8", "root=global",
            "table=compact",
        };
        for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
            hay_patterns *gk = compile(&p, HAY_BACKEND_CUDA, "pfac", knobs[i]);
            if (!gk)
                continue;
            timing tk = run(gk, d, len, buf, 0, 0);
            char name[64];
            snprintf(name, sizeof name, "  resident kernel %s", knobs[i]);
            row(name, tk.kernel, tk.count, ref, gb);
            hay_patterns_free(gk);
        }
    }
    int list_bad = 0;
    timing tl = list_rows(g, d, len, bs == HAY_OK ? buf : NULL, ref, gb, &list_bad);
    timing tc = run(cpu, d, len, NULL, 0, 16);
    row("cpu hay (16 threads, count)", tc.wall, tc.count, ref, gb);
    uint64_t hc = 0;
    double hsec = -1;
    if (hs && file) {
        FILE *f = fopen(file, "wb");
        if (f) {
            fwrite(d, 1, len, f);
            fclose(f);
            hsec = hyperscan(hs, patfile, file, &hc);
            remove(file);
        }
        if (hsec > 0)
            row("hyperscan-16T (hs_bench)", hsec, hc, ref, gb);
    }
    if (hsec > 0)
        printf("# speed-up over hyperscan-16T: end-to-end count %.1fx, full list %.1fx, "
               "resident kernel %.1fx\n", hsec / te.wall, hsec / tl.wall,
               bs == HAY_OK ? hsec / tr.kernel : 0.0);
    int bad = tc.count != ref || list_bad ||
              (bs == HAY_OK && tr.count != ref) || (hsec > 0 && hc != ref);
    hay_buffer_free(buf);
    hay_patterns_free(cpu);
    hay_patterns_free(g);
    free(d);
    pat_list_free(&p);
    return bad;
}

/* list --only ROWS: the list-arrays rows whose names hold one of ROWS'
 * '|'-separated parts, with each of src/cuda/sort.cu's sorts (the radix
 * sort, the regions, the regions each sorted by CUB's block radix sort:
 * HAY_CUDA_SORT), then the resident device rows
 * again with HAY_CUDA_LIST_SERIAL (each sort and each conversion alone on
 * the device: the timeline's "GPU: sort" and "cuts and conversions" are
 * then their own times, and the rest of the wall time is the list
 * kernel's and the host's), all checked against one reference list made
 * with the radix sort; no other list rows. */
static int list_filtered(hay_patterns *g, const uint8_t *d, uint64_t len,
                         const hay_buffer *buf, uint64_t ref, double gb)
{
    static const struct {
        const char *env, *tag, *tag1;
    } sorts[] = {
        { "radix", " [radix]", " [radix, serial]" },
        { NULL, "", " [serial]" },
        { "blocksort", " [blocksort]", " [blocksort, serial]" },
    };
    list_arrays arr = { 0 };
    list_filter flt = { list_rows_only, "", 0 };
    uint64_t sum = 0;
    setenv("HAY_CUDA_SORT", "radix", 1);
    int bad = list_arrays_ref(g, d, len, &arr, ref, &sum, &flt);
    for (int serial = 0, refbad = bad; serial < 2 && !refbad; serial++)
        for (size_t i = 0; i < sizeof sorts / sizeof *sorts; i++) {
            if (sorts[i].env)
                setenv("HAY_CUDA_SORT", sorts[i].env, 1);
            else
                unsetenv("HAY_CUDA_SORT");
            if (serial)
                setenv("HAY_CUDA_LIST_SERIAL", "1", 1);
            flt.only = serial ? "resident list arrays, device" : list_rows_only;
            flt.tag = serial ? sorts[i].tag1 : sorts[i].tag;
            bad |= list_arrays_rows(g, d, len, buf, &arr, ref, sum, gb, reps, 0, &flt, keep_log,
                                    last_log);
        }
    unsetenv("HAY_CUDA_SORT");
    unsetenv("HAY_CUDA_LIST_SERIAL");
    list_arrays_free(&arr);
    return bad;
}

static int list_only(const char *patfile, const char *dir)
{
    pat_list p;
    uint64_t len = (uint64_t)1 << 30;
    uint8_t *d = setup_1g(patfile, dir, &p);
    hay_patterns *g = d ? compile(&p, HAY_BACKEND_CUDA, list_algo, list_params) : NULL;
    if (!g)
        return 2;
    double gb = (double)len / 1e9;
    printf("# %s: %zu patterns over 1 GiB of %s, --algo %s%s%s; medians of %d after a warm-up\n",
           patfile, p.n, dir, list_algo, list_params ? ", --params " : "",
           list_params ? list_params : "", reps);
    printf("%-36s %10s %10s %12s %s\n", "engine", "seconds", "GB/s", "matches",
           "vs per-match list");
    timing te = run(g, d, len, NULL, COUNT, 0);
    uint64_t ref = te.count;
    row("cuda pfac end-to-end count", te.wall, te.count, ref, gb);
    hay_buffer *buf = NULL;
    if (hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf) == HAY_OK) {
        timing tr = run(g, d, len, buf, COUNT, 0);
        row("cuda pfac resident kernel-only", tr.kernel, tr.count, ref, gb);
    }
    int bad = 0;
    if (list_rows_only) {
        bad = list_filtered(g, d, len, buf, ref, gb);
        hay_buffer_free(buf);
        hay_patterns_free(g);
        free(d);
        pat_list_free(&p);
        return bad;
    }
    timing tl = list_rows(g, d, len, buf, ref, gb, &bad);
    list_arrays arr = { 0 };
    bad |= list_arrays_rows(g, d, len, buf, &arr, ref, tl.sum, gb, reps, 0, NULL, keep_log,
                            last_log);
    list_arrays_free(&arr);
    /* Small lists: every piece overflows and is searched again in parts
     * that fit, a round trip with the device per list (src/cuda/overflow.h). */
    static const char *const caps[] = { "result_cap=1M", "result_cap=64K" };
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        hay_patterns *gc = compile(&p, HAY_BACKEND_CUDA, "pfac", caps[i]);
        if (!gc) {
            bad = 1;
            continue;
        }
        timing tc = run(gc, d, len, NULL, BATCH, 0);
        char name[64];
        snprintf(name, sizeof name, "e2e list-batch %s", caps[i]);
        list_row(name, &tc, &tl, ref, gb);
        bad |= tc.count != ref || tc.sum != tl.sum || tc.order_bad;
        hay_patterns_free(gc);
    }
    hay_buffer_free(buf);
    hay_patterns_free(g);
    free(d);
    pat_list_free(&p);
    return bad;
}

/* The marks and the first match from the per-match list of set g (the
 * reference of the marks rows). */
typedef struct mark_ref {
    uint64_t *marks;
    hay_match first;
} mark_ref;

static int mark_ref_cb(uint32_t id, uint64_t s, uint64_t e, void *ctx)
{
    mark_ref *m = ctx;
    if (!m->first.end)
        m->first = (hay_match){ id, 0, s, e };
    m->marks[(e - 1) / 64] |= 1ull << ((e - 1) % 64);
    return 0;
}

/* The rows of hay_scan_marks and hay_scan_first for set g: resident
 * kernel-only and wall, end to end from host memory, checked against the
 * bitmap and first match of the list (ref).  Returns non-zero when wrong. */
static int marks_rows(const hay_patterns *g, const uint8_t *d, uint64_t len,
                      const hay_buffer *buf, const mark_ref *ref, double gb)
{
    size_t words = (size_t)((len + 63) / 64);
    timing tk = run(g, d, len, buf, MARKS, 0);
    int mk_ok = !memcmp(run_marks, ref->marks, words * sizeof *run_marks);
    timing te = run(g, d, len, NULL, MARKS, 0);
    mk_ok &= !memcmp(run_marks, ref->marks, words * sizeof *run_marks);
    timing fr = run(g, d, len, buf, FIRST, 0);
    int f_ok = run_first.end == ref->first.end && run_first.id == ref->first.id;
    timing fe = run(g, d, len, NULL, FIRST, 0);
    f_ok &= run_first.end == ref->first.end && run_first.id == ref->first.id;
    printf("#   marks: resident kernel %.1f GB/s, resident wall %.2f GB/s, e2e %.2f GB/s "
           "(copy_in %.4f kernel %.4f copy_out %.4f) %s; first: resident %.5f s, e2e %.5f s "
           "(end %llu) %s\n", gb / tk.kernel, gb / tk.wall, gb / te.wall, te.copy_in,
           te.kernel, te.copy_out, mk_ok ? "same" : "DIFF", fr.wall, fe.wall,
           (unsigned long long)run_first.end, f_ok ? "same" : "DIFF");
    fflush(stdout);
    return !mk_ok || !f_ok;
}

static int lits(const char *patfile, const char *dir)
{
    pat_list p;
    uint64_t len = (uint64_t)1 << 30;
    uint8_t *d = setup_1g(patfile, dir, &p);
    hay_buffer *buf = NULL;
    if (!d || hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf) != HAY_OK)
        return 2;
    double gb = (double)len / 1e9;
    static const struct {
        const char *algo, *params;
        int list;
    } rows[] = {
        { "pfac", NULL, 1 },
        { "fdr-gpu", NULL, 1 },
        { "fdr-gpu", "threads=512", 0 },
        { "fdr-gpu", "threads=256", 0 },
        { "fdr-gpu", "run=128", 0 },
        { "fdr-gpu", "domain=14", 0 },
        { "fdr-gpu", "domain=13", 0 },
        { "fdr-gpu", "group_max=16000", 0 },
    };
    printf("# %s: %zu patterns over 1 GiB of %s; medians of %d after a warm-up\n", patfile,
           p.n, dir, reps);
    printf("%-40s %12s %12s %12s %12s %12s %12s %s\n", "engine", "kernel_GB/s",
           "e2e_cnt_GB/s", "list_GB/s", "batch_GB/s", "res_bat_GB/s", "matches", "vs pfac");
    uint64_t ref = 0;
    int bad = 0;
    mark_ref mref;
    memset(&mref, 0, sizeof mref);
    size_t words = (size_t)((len + 63) / 64);
    mref.marks = calloc(words, sizeof *mref.marks);
    run_marks = malloc(words * sizeof *run_marks);
    if (!mref.marks || !run_marks)
        return 2;
    list_arrays arr = { 0 };
    size_t nrows = sizeof rows / sizeof *rows;
    if (max_rows > 0 && (size_t)max_rows < nrows)
        nrows = (size_t)max_rows;
    for (size_t i = 0; i < nrows; i++) {
        hay_patterns *g = compile(&p, HAY_BACKEND_CUDA, rows[i].algo, rows[i].params);
        if (!g) {
            bad = 1;
            continue;
        }
        timing tr = run(g, d, len, buf, 0, 0);
        timing te = run(g, d, len, NULL, 0, 0);
        timing tl, tb, trb;
        memset(&tl, 0, sizeof tl);
        tb = trb = tl;
        const int list = rows[i].list && !count_only;
        if (list) {
            tl = run(g, d, len, NULL, LIST, 0);
            tb = run(g, d, len, NULL, BATCH, 0);
            trb = run(g, d, len, buf, BATCH, 0);
        }
        if (i == 0)
            ref = tr.count;
        int same = tr.count == ref && te.count == ref &&
                   (!list || (tl.count == ref && !tl.order_bad && tb.count == ref &&
                                      tb.sum == tl.sum && !tb.order_bad && trb.count == ref &&
                                      trb.sum == tl.sum && !trb.order_bad));
        bad |= !same;
        char name[80];
        snprintf(name, sizeof name, "%s %s", rows[i].algo, rows[i].params ? rows[i].params : "");
        printf("%-40s %12.1f %12.2f %12.2f %12.2f %12.2f %12llu %s\n", name, gb / tr.kernel,
               gb / te.wall, list ? gb / tl.wall : 0.0, list ? gb / tb.wall : 0.0,
               list ? gb / trb.wall : 0.0,
               (unsigned long long)tr.count, same ? "same" : "DIFF");
        if (list)
            printf("#   list-batch phases: copy_in %.4f kernel %.4f copy_out+sort %.4f; "
                   "resident: kernel %.4f copy_out+sort %.4f\n", tb.copy_in, tb.kernel,
                   tb.copy_out, trb.kernel, trb.copy_out);
        fflush(stdout);
        if (rows[i].list) {
            /* Marks and the first match (both engines' defaults), against
             * the bitmap and first match of PFAC's list. */
            if (i == 0) {
                hay_scratch *sc = NULL;
                hay_scratch_create(g, &sc);
                if (hay_scan(g, sc, d, len, NULL, mark_ref_cb, &mref) != HAY_OK)
                    bad = 1;
                hay_scratch_free(sc);
            }
            bad |= marks_rows(g, d, len, buf, &mref, gb);
        }
        if (list)
            bad |= list_arrays_rows(g, d, len, buf, &arr, ref, tl.sum, gb, reps, 1, NULL, keep_log,
                                    last_log);
        hay_patterns_free(g);
    }
    free(mref.marks);
    free(run_marks);
    list_arrays_free(&arr);
    hay_buffer_free(buf);
    free(d);
    pat_list_free(&p);
    return bad;
}

int main(int argc, char **argv)
{
    const char *hs = NULL, *file = "/tmp/cuda_pfac_bench.1g";
    int na = 0;
    char *args[8];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--hs") && i + 1 < argc)
            hs = argv[++i];
        else if (!strcmp(argv[i], "--file") && i + 1 < argc)
            file = argv[++i];
        else if (!strcmp(argv[i], "--count-only"))
            count_only = 1;
        else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            max_rows = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--algo") && i + 1 < argc)
            list_algo = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            list_rows_only = argv[++i];
        else if (!strcmp(argv[i], "--params") && i + 1 < argc)
            list_params = argv[++i];
        else if (na < 8)
            args[na++] = argv[i];
    }
    if (reps < 1)
        reps = 1;
    if (na != 3) {
        fprintf(stderr, "usage: cuda_pfac_bench fig7|threads|big|list|lits PATFILE TEXTDIR "
                        "[--reps N] [--hs HS_BENCH] [--file PATH] [--count-only] [--rows N] "
                        "[--algo NAME] [--only ROWS] [--params P]\n");
        return 2;
    }
    if (hay_backend_available(HAY_BACKEND_CUDA) != HAY_OK) {
        fprintf(stderr, "cuda_pfac_bench: no CUDA device\n");
        return 77;
    }
    if (!strcmp(args[0], "fig7"))
        return fig7(args[1], args[2]);
    if (!strcmp(args[0], "threads"))
        return threads(args[1], args[2]);
    if (!strcmp(args[0], "big"))
        return big(args[1], args[2], hs, file);
    if (!strcmp(args[0], "list"))
        return list_only(args[1], args[2]);
    if (!strcmp(args[0], "lits"))
        return lits(args[1], args[2]);
    fprintf(stderr, "cuda_pfac_bench: unknown mode %s\n", args[0]);
    return 2;
}
