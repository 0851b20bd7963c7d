/*
 * hs_bench.c - Hyperscan as a benchmark engine for bench/run.py.
 *
 * Counts every occurrence (overlapping ones included) of a set of literal
 * patterns in one file, the way `hay find --count-matches --stats` does, and
 * reports in the same "stats:" lines on stderr so the runner parses both
 * with one parser.  Uses only Hyperscan's public API (hs_compile_lit_multi,
 * block mode, one scratch per thread).
 *
 *   hs_bench [-e PATTERN]... [-f PATFILE [--escapes]] [-i] [--threads N]
 *            [--populate] FILE
 *   hs_bench --version
 *
 * With N threads the file is cut into N equal shares; each thread scans its
 * share plus (longest pattern - 1) bytes before it, and a match belongs to
 * the share its last byte is in, so every occurrence is counted once.
 * Hyperscan's block mode takes at most 4 GiB per call, so shares are scanned
 * in pieces of at most HSB_PIECE bytes with the same overlap rule.
 *
 * The file is mapped as `hay find` maps it (plain mmap, "map" phase), so
 * the first touch of each page is paid in the "scan" phase by both tools;
 * --populate maps with MAP_POPULATE instead, so "scan" times matching alone.
 * stdout: the count.  Exit status 0 ok, 2 error.
 *
 * Build: cc -O2 -o hs_bench hs_bench.c $(pkg-config --cflags --libs libhs) -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hs/hs.h>

#include "patfile.h"

#define HSB_PIECE ((uint64_t)1 << 30)

typedef struct pattern {
    char *data;
    size_t len;
} pattern;

typedef struct patterns {
    pattern *items;
    size_t n, cap, max_len;
} patterns;

typedef struct job {
    const hs_database_t *db;
    hs_scratch_t *scratch;
    const unsigned char *data;
    uint64_t lo, hi;       /* the share this thread owns */
    uint64_t overlap;      /* longest pattern - 1 */
    uint64_t count;
    hs_error_t err;
} job;

typedef struct owner {
    unsigned long long skip;  /* matches ending at or before this are not ours */
    uint64_t count;
} owner;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "hs_bench: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static void add(patterns *p, const char *s, size_t len)
{
    if (len == 0)
        die("empty patterns are not supported", NULL);
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->items = realloc(p->items, p->cap * sizeof *p->items);
        if (!p->items)
            die("out of memory", NULL);
    }
    char *c = malloc(len);
    if (!c)
        die("out of memory", NULL);
    memcpy(c, s, len);
    p->items[p->n].data = c;
    p->items[p->n].len = len;
    p->n++;
    if (len > p->max_len)
        p->max_len = len;
}

/* One pattern per line, parsed by the same code as `hay find -f`
 * (programs/patfile.c), so both read a pattern set identically. */
static void load_file(patterns *p, const char *path, int escapes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(strerror(errno), path);
    size_t len = 0, cap = 1 << 16;
    uint8_t *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            text = realloc(text, cap *= 2);
    }
    if (!text)
        die("out of memory", path);
    fclose(f);
    pat_list l = { 0 };
    char err[512];
    if (pat_list_add_text(&l, text, len, escapes, true, path, err, sizeof err) < 0)
        die(err, NULL);
    if (l.empty)
        die("empty patterns are not supported", path);
    for (size_t i = 0; i < l.n; i++)
        add(p, l.items[i].data, l.items[i].len);
    pat_list_free(&l);
    free(text);
}

static int on_match(unsigned int id, unsigned long long from,
                    unsigned long long to, unsigned int flags, void *ctx)
{
    owner *o = ctx;
    if (to > o->skip)
        o->count++;
    return 0;
}

static void *scan_share(void *arg)
{
    job *j = arg;
    for (uint64_t lo = j->lo; lo < j->hi && j->err == HS_SUCCESS; lo += HSB_PIECE) {
        uint64_t hi = j->hi - lo > HSB_PIECE ? lo + HSB_PIECE : j->hi;
        uint64_t start = lo > j->overlap ? lo - j->overlap : 0;
        owner o = { lo - start, 0 };
        j->err = hs_scan(j->db, (const char *)j->data + start,
                         (unsigned int)(hi - start), 0, j->scratch, on_match, &o);
        j->count += o.count;
    }
    return NULL;
}

static void usage(void)
{
    fputs("usage: hs_bench [-e PATTERN]... [-f PATFILE [--escapes]] [-i] "
          "[--threads N] [--populate] FILE\n       hs_bench --version\n", stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    patterns pats = { 0 };
    const char *patfile = NULL, *path = NULL;
    int escapes = 0, caseless = 0, populate = 0;
    long threads = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--version")) {
            printf("hs_bench (Hyperscan %s)\n", hs_version());
            return 0;
        } else if (!strcmp(a, "-e") && i + 1 < argc) {
            add(&pats, argv[i + 1], strlen(argv[i + 1]));
            i++;
        } else if (!strcmp(a, "-f") && i + 1 < argc) {
            patfile = argv[++i];
        } else if (!strcmp(a, "--escapes")) {
            escapes = 1;
        } else if (!strcmp(a, "--populate")) {
            populate = 1;
        } else if (!strcmp(a, "-i")) {
            caseless = 1;
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            char *end;
            threads = strtol(argv[++i], &end, 10);
            if (*end || threads < 0 || threads > 4096)
                die("bad --threads", argv[i]);
        } else if (a[0] == '-' && a[1]) {
            usage();
        } else if (!path) {
            path = a;
        } else {
            usage();
        }
    }
    if (patfile)
        load_file(&pats, patfile, escapes);
    if (!path || pats.n == 0)
        usage();
    if (threads == 0)
        threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (hs_valid_platform() != HS_SUCCESS)
        die("this CPU lacks SSSE3, which Hyperscan needs", NULL);

    double t_start = now();

    /* compile */
    const char **expr = malloc(pats.n * sizeof *expr);
    unsigned *flags = malloc(pats.n * sizeof *flags);
    unsigned *ids = malloc(pats.n * sizeof *ids);
    size_t *lens = malloc(pats.n * sizeof *lens);
    if (!expr || !flags || !ids || !lens)
        die("out of memory", NULL);
    for (size_t k = 0; k < pats.n; k++) {
        expr[k] = pats.items[k].data;
        lens[k] = pats.items[k].len;
        flags[k] = caseless ? HS_FLAG_CASELESS : 0;
        ids[k] = (unsigned)k;
    }
    hs_database_t *db = NULL;
    hs_compile_error_t *cerr = NULL;
    double t0 = now();
    if (hs_compile_lit_multi(expr, flags, ids, lens, (unsigned)pats.n,
                             HS_MODE_BLOCK, NULL, &db, &cerr) != HS_SUCCESS)
        die("hs_compile_lit_multi failed", cerr ? cerr->message : NULL);
    double t_compile = now() - t0;

    /* map */
    t0 = now();
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die(strerror(errno), path);
    struct stat st;
    if (fstat(fd, &st) < 0)
        die(strerror(errno), path);
    uint64_t len = (uint64_t)st.st_size;
    const unsigned char *data = NULL;
    if (len) {
        data = mmap(NULL, len, PROT_READ,
                    MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (data == MAP_FAILED)
            die(strerror(errno), path);
    }
    double t_map = now() - t0;

    /* scan: scratches are made before the clock starts */
    if ((uint64_t)threads > len / 4096 + 1)
        threads = (long)(len / 4096 + 1);
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (!jobs || !tids)
        die("out of memory", NULL);
    hs_scratch_t *proto = NULL;
    if (hs_alloc_scratch(db, &proto) != HS_SUCCESS)
        die("hs_alloc_scratch failed", NULL);
    for (long t = 0; t < threads; t++) {
        jobs[t].db = db;
        if (t == 0)
            jobs[t].scratch = proto;
        else if (hs_clone_scratch(proto, &jobs[t].scratch) != HS_SUCCESS)
            die("hs_clone_scratch failed", NULL);
        jobs[t].data = data;
        jobs[t].lo = len / (uint64_t)threads * (uint64_t)t;
        jobs[t].hi = t + 1 == threads ? len : len / (uint64_t)threads * (uint64_t)(t + 1);
        jobs[t].overlap = pats.max_len - 1;
        jobs[t].err = HS_SUCCESS;
    }
    t0 = now();
    for (long t = 1; t < threads; t++)
        if (pthread_create(&tids[t], NULL, scan_share, &jobs[t]))
            die("pthread_create failed", NULL);
    scan_share(&jobs[0]);
    for (long t = 1; t < threads; t++)
        pthread_join(tids[t], NULL);
    double t_scan = now() - t0;

    uint64_t count = 0;
    for (long t = 0; t < threads; t++) {
        if (jobs[t].err != HS_SUCCESS)
            die("hs_scan failed", NULL);
        count += jobs[t].count;
    }
    double t_total = now() - t_start;

    printf("%llu\n", (unsigned long long)count);
    fprintf(stderr, "stats: backend=hyperscan algo=hs threads=%ld schedule=static patterns=%zu\n",
            threads, pats.n);
    fprintf(stderr, "stats: phase=compile seconds=%.6f\n", t_compile);
    fprintf(stderr, "stats: phase=map bytes=%llu seconds=%.6f\n",
            (unsigned long long)len, t_map);
    fprintf(stderr, "stats: phase=scan bytes=%llu seconds=%.6f gbps=%.2f\n",
            (unsigned long long)len, t_scan, t_scan > 0 ? (double)len / t_scan / 1e9 : 0.0);
    fprintf(stderr, "stats: phase=total seconds=%.6f gbps=%.2f\n", t_total,
            t_total > 0 ? (double)len / t_total / 1e9 : 0.0);

    for (long t = 0; t < threads; t++)
        hs_free_scratch(jobs[t].scratch);
    hs_free_database(db);
    if (len)
        munmap((void *)data, len);
    close(fd);
    for (size_t k = 0; k < pats.n; k++)
        free(pats.items[k].data);
    free(pats.items);
    free(expr);
    free(flags);
    free(ids);
    free(lens);
    free(jobs);
    free(tids);
    return 0;
}
