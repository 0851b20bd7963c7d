/*
 * memread.c - the read ceiling for bench/run.py: how fast can N threads
 * read a memory-mapped file at all?
 *
 * Counts the newline bytes of FILE (a loop the compiler vectorises; no
 * pattern logic), mapped and shared out the way hs_bench does it (N equal
 * shares, plain mmap).  A matcher that reaches this speed is bound by memory
 * and page-cache bandwidth, not by its own work.  Prints the count on stdout
 * and "stats:" lines like `hay find --stats` on stderr.
 *
 *   memread [--threads N] FILE
 *
 * Build: cc -O3 -march=x86-64-v3 -o memread memread.c -lpthread
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

typedef struct share {
    const unsigned char *p;
    uint64_t n, count;
} share;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *count_newlines(void *arg)
{
    share *s = arg;
    uint64_t c = 0;
    /* 8-bit lanes summed in blocks of 255 bytes per lane so they cannot overflow */
    for (uint64_t i = 0; i < s->n;) {
        uint64_t end = s->n - i > 255 * 64 ? i + 255 * 64 : s->n;
        unsigned char lanes[64] = { 0 };
        uint64_t j = i;
        for (; j + 64 <= end; j += 64)
            for (int k = 0; k < 64; k++)
                lanes[k] += s->p[j + k] == '\n';
        for (; j < end; j++)
            c += s->p[j] == '\n';
        for (int k = 0; k < 64; k++)
            c += lanes[k];
        i = end;
    }
    s->count = c;
    return NULL;
}

int main(int argc, char **argv)
{
    long threads = 1;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--version")) {
            puts("memread (newline count, bench/adapters/memread.c)");
            return 0;
        } else if (!path && argv[i][0] != '-')
            path = argv[i];
        else {
            fputs("usage: memread [--threads N] FILE\n", stderr);
            return 2;
        }
    }
    if (!path) {
        fputs("usage: memread [--threads N] FILE\n", stderr);
        return 2;
    }
    if (threads <= 0)
        threads = sysconf(_SC_NPROCESSORS_ONLN);
    double t_start = now();
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        fprintf(stderr, "memread: %s: %s\n", path, strerror(errno));
        return 2;
    }
    uint64_t len = (uint64_t)st.st_size;
    const unsigned char *data = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (data == MAP_FAILED) {
        fprintf(stderr, "memread: mmap: %s\n", strerror(errno));
        return 2;
    }
    double t_map = now() - t_start;
    share *sh = calloc((size_t)threads, sizeof *sh);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    if (!sh || !tid)
        return 2;
    for (long t = 0; t < threads; t++) {
        uint64_t lo = len / (uint64_t)threads * (uint64_t)t;
        uint64_t hi = t + 1 == threads ? len : len / (uint64_t)threads * (uint64_t)(t + 1);
        sh[t].p = data + lo;
        sh[t].n = hi - lo;
    }
    double t0 = now();
    for (long t = 1; t < threads; t++)
        if (pthread_create(&tid[t], NULL, count_newlines, &sh[t]))
            return 2;
    count_newlines(&sh[0]);
    uint64_t total = sh[0].count;
    for (long t = 1; t < threads; t++) {
        pthread_join(tid[t], NULL);
        total += sh[t].count;
    }
    double t_scan = now() - t0;
    printf("%llu\n", (unsigned long long)total);
    fprintf(stderr, "stats: backend=memread algo=newlines threads=%ld schedule=static patterns=0\n",
            threads);
    fprintf(stderr, "stats: phase=map bytes=%llu seconds=%.6f\n", (unsigned long long)len, t_map);
    fprintf(stderr, "stats: phase=scan bytes=%llu seconds=%.6f gbps=%.2f\n",
            (unsigned long long)len, t_scan, t_scan > 0 ? (double)len / t_scan / 1e9 : 0.0);
    fprintf(stderr, "stats: phase=total seconds=%.6f\n", now() - t_start);
    free(sh);
    free(tid);
    return 0;
}
