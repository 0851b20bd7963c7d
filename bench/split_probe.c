/*
 * split_probe.c - what does feeding the GPU cost the CPU threads that
 * search beside it?  (issue 4 point 8, docs/PERF.md "The split: what
 * feeding the GPU costs the CPU side").
 *
 *   split_probe FILE [--threads T] [--reps R] [--block MIB] [-e PATTERN]
 *
 * The CPU engine (backend cpu, T threads) counts PATTERN in the first
 * three quarters of a fresh MAP_SHARED mapping of FILE, as a split's CPU
 * side does, while one host thread feeds the GPU from the last quarter in
 * one of these ways (each in a loop until the CPU scan ends):
 *
 *   none        nothing (the CPU side's own rate)
 *   reg-same    cudaHostRegister a block of the same mapping, copy it to the
 *               device, unregister it (transfer=register's work)
 *   reg-other   the same on a second mapping of the file
 *   dma         copies from blocks registered before the clock starts
 *               (the DMA's own use of host memory, no registering)
 *   stage       memcpy of a block into pinned memory, then the copy
 *               (transfer=pinned's work, one copy thread)
 *
 * and, for reg-same again, with the CPU's mapping faulted in beforehand
 * (reg-same-populated: are its page faults what waits?).  Prints the CPU
 * side's median GB/s and the feeder's GB/s in each case, and the feeder
 * alone.  Exit 77 without a usable GPU.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "haystack.h"
#include "bench_util.h"

enum { F_NONE, F_REG_SAME, F_REG_OTHER, F_DMA, F_STAGE, F_REG_SAME_POP, F_CASES };
static const char *case_name[F_CASES] = { "none", "reg-same", "reg-other", "dma",
                                          "stage", "reg-same-populated" };

typedef struct feeder {
    int kind;
    int fd;
    uint64_t len, lo, block;      /* feed [lo, len) of the file */
    const uint8_t *map;           /* the CPU's mapping (reg-same, stage) */
    uint8_t *dev, *pinned;
    cudaStream_t st;
    volatile int go, stop;
    uint64_t bytes;
    double seconds;
    int err;
} feeder;

static void *feed_main(void *arg)
{
    feeder *f = arg;
    while (!f->go)
        ;
    const uint8_t *m = f->map;
    uint8_t *other = NULL;
    if (f->kind == F_REG_OTHER) {
        other = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
        if (other == MAP_FAILED) {
            f->err = 1;
            return NULL;
        }
        m = other;
    }
    double t0 = bench_now();
    uint64_t off = f->lo;
    while (!f->stop) {
        uint64_t n = f->len - off < f->block ? f->len - off : f->block;
        uint8_t *p = (uint8_t *)m + off;
        if (f->kind == F_REG_SAME || f->kind == F_REG_OTHER || f->kind == F_REG_SAME_POP) {
            if (cudaHostRegister(p, n, cudaHostRegisterReadOnly) != cudaSuccess) {
                f->err = 2;
                break;
            }
            cudaMemcpyAsync(f->dev, p, n, cudaMemcpyHostToDevice, f->st);
            cudaStreamSynchronize(f->st);
            cudaHostUnregister(p);
        } else if (f->kind == F_DMA) {
            cudaMemcpyAsync(f->dev, p, n, cudaMemcpyHostToDevice, f->st);
            cudaStreamSynchronize(f->st);
        } else if (f->kind == F_STAGE) {
            memcpy(f->pinned, p, n);
            cudaMemcpyAsync(f->dev, f->pinned, n, cudaMemcpyHostToDevice, f->st);
            cudaStreamSynchronize(f->st);
        }
        f->bytes += n;
        off += n;
        if (off >= f->len)
            off = f->lo;
    }
    f->seconds = bench_now() - t0;
    if (other)
        munmap(other, f->len);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *pat = "Sherlock Holmes";
    unsigned threads = 0;
    int reps = 9;
    uint64_t block = 32u << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--block") && i + 1 < argc)
            block = (uint64_t)atol(argv[++i]) << 20;
        else if (!strcmp(argv[i], "-e") && i + 1 < argc)
            pat = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: split_probe FILE [--threads T] [--reps R] [--block MIB] "
                            "[-e PATTERN]\n");
            return 2;
        }
    }
    if (!path || reps < 1 || reps > 101 || block == 0) {
        fprintf(stderr, "split_probe: a FILE is needed (reps 1..101, block > 0)\n");
        return 2;
    }
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size < (off_t)(4 * block)) {
        fprintf(stderr, "split_probe: %s: cannot read, or under 4 blocks\n", path);
        return 2;
    }
    uint64_t len = (uint64_t)sb.st_size;
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t lo = (len / 4 * 3) / (uint64_t)pg * (uint64_t)pg;   /* the feeder's quarter */
    if (threads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 2 ? (unsigned)c - 1 : 1;
    }
    feeder f;
    memset(&f, 0, sizeof f);
    if (cudaFree(0) != cudaSuccess || cudaMalloc((void **)&f.dev, block) != cudaSuccess ||
        cudaMallocHost((void **)&f.pinned, block) != cudaSuccess ||
        cudaStreamCreate(&f.st) != cudaSuccess) {
        fprintf(stderr, "split_probe: no usable GPU\n");
        return 77;
    }
    hay_pattern p = { pat, strlen(pat) };
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = HAY_BACKEND_CPU;
    hay_patterns *set = NULL;
    hay_scratch *sc = NULL;
    if (hay_patterns_compile(&p, 1, &co, &set) != HAY_OK ||
        hay_scratch_create(set, &sc) != HAY_OK) {
        fprintf(stderr, "split_probe: compile failed\n");
        return 2;
    }
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;

    struct utsname u;
    uname(&u);
    printf("kernel %s %s; file %s, %.2f GiB; CPU side [0, %.2f GiB) on %u threads; "
           "feeder blocks %llu MiB over the last quarter; %d reps\n",
           u.release, u.machine, path, len / 1073741824.0, lo / 1073741824.0, threads,
           (unsigned long long)(block >> 20), reps);
    printf("%-20s %12s %14s %16s\n", "feeder", "CPU GB/s", "feeder GB/s", "feeder alone");

    uint64_t want = 0;
    int bad = 0;
    for (int k = 0; k < F_CASES; k++) {
        double cpu[101], fed[101];
        double alone = 0;
        for (int r = 0; r < reps; r++) {
            int flags = MAP_SHARED | (k == F_REG_SAME_POP ? MAP_POPULATE : 0);
            uint8_t *m = mmap(NULL, len, PROT_READ, flags, fd, 0);
            if (m == MAP_FAILED) {
                perror("split_probe: mmap");
                return 2;
            }
            f.kind = k;
            f.fd = fd;
            f.len = len;
            f.lo = lo;
            f.block = block;
            f.map = m;
            f.go = f.stop = 0;
            f.bytes = 0;
            f.err = 0;
            if (k == F_DMA)
                for (uint64_t off = lo; off < len; off += block)
                    cudaHostRegister(m + off, len - off < block ? len - off : block,
                                     cudaHostRegisterReadOnly);
            pthread_t th;
            bool feeding = k != F_NONE;
            if (feeding && pthread_create(&th, NULL, feed_main, &f) != 0) {
                fprintf(stderr, "split_probe: no thread\n");
                return 2;
            }
            f.go = 1;
            double t0 = bench_now();
            uint64_t n = 0;
            if (hay_scan_count(set, sc, m, lo, &o, &n) != HAY_OK) {
                fprintf(stderr, "split_probe: scan failed\n");
                return 2;
            }
            double t = bench_now() - t0;
            f.stop = 1;
            if (feeding)
                pthread_join(th, NULL);
            if (r == 0 && k == 0)
                want = n;
            bad |= n != want;
            cpu[r] = lo / t / 1e9;
            fed[r] = f.seconds > 0 ? f.bytes / f.seconds / 1e9 : 0;
            if (feeding && f.err) {
                printf("%-20s feeder failed (%d)\n", case_name[k], f.err);
                break;
            }
            /* The feeder alone, once per case, on this mapping. */
            if (feeding && r == 0) {
                f.go = f.stop = 0;
                f.bytes = 0;
                pthread_create(&th, NULL, feed_main, &f);
                f.go = 1;
                usleep((useconds_t)(t * 1e6));
                f.stop = 1;
                pthread_join(th, NULL);
                alone = f.seconds > 0 ? f.bytes / f.seconds / 1e9 : 0;
            }
            if (k == F_DMA)
                for (uint64_t off = lo; off < len; off += block)
                    cudaHostUnregister(m + off);
            munmap(m, len);
        }
        printf("%-20s %12.2f %14.2f %16.2f\n", case_name[k], bench_median(cpu, reps),
               k ? bench_median(fed, reps) : 0.0, alone);
        fflush(stdout);
    }
    hay_scratch_free(sc);
    hay_patterns_free(set);
    if (bad) {
        fprintf(stderr, "split_probe: the counts differed between scans\n");
        return 1;
    }
    printf("count %llu in every scan\n", (unsigned long long)want);
    return 0;
}
