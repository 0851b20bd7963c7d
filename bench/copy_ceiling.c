/*
 * copy_ceiling.c - the host-to-device copy ceiling from pinned memory, the
 * bound issue 17 measures end-to-end GPU scans against:
 *
 *   copy_ceiling [--gib 4] [--piece-mib 32] [--streams 3] [--runs 7] [--device N]
 *
 * Copies --gib GiB to the device from a pinned host buffer, --piece-mib MiB
 * per cudaMemcpyAsync, the pieces spread round-robin over --streams streams
 * into one device buffer per stream (the shape of the library's staging
 * pipeline: src/cuda/pipeline.c, 3 pieces of 32 MiB by default), and prints
 * the median and best GB/s (10^9 bytes/s) over --runs after one untimed run.
 * The host buffer is one piece per stream, reused: what is measured is the
 * link and the copy engines, not the host's memory.  A pageable copy of the
 * same size is printed beside it for comparison.  Exit 77 with no GPU.
 *
 * Uses only the CUDA runtime (not the library), so it reads as a peer row:
 * "the link" in the same run as hay's scans.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "copy_ceiling: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

static double copy_once(void **host, void **dev, cudaStream_t *st, int ns, size_t piece,
                        size_t pieces, enum cudaMemcpyKind kind)
{
    double t0 = bench_now();
    for (size_t i = 0; i < pieces; i++) {
        int k = (int)(i % (size_t)ns);
        if (cudaMemcpyAsync(dev[k], host[k], piece, kind, st[k]) != cudaSuccess)
            return -1;
    }
    for (int k = 0; k < ns; k++)
        if (cudaStreamSynchronize(st[k]) != cudaSuccess)
            return -1;
    return bench_now() - t0;
}

static void usage(void)
{
    fprintf(stderr, "usage: copy_ceiling [--gib 4] [--piece-mib 32] [--streams 3] [--runs 7] "
                    "[--device N]\n");
}

int main(int argc, char **argv)
{
    double gib = 4;
    long piece_mib = 32, streams = 3, runs = 7, device = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!v) {
            usage();
            return 2;
        }
        if (!strcmp(a, "--gib"))
            gib = strtod(v, &end);
        else if (!strcmp(a, "--piece-mib"))
            piece_mib = strtol(v, &end, 10);
        else if (!strcmp(a, "--streams"))
            streams = strtol(v, &end, 10);
        else if (!strcmp(a, "--runs"))
            runs = strtol(v, &end, 10);
        else if (!strcmp(a, "--device"))
            device = strtol(v, &end, 10);
        else {
            usage();
            return 2;
        }
        if (!end || *end || gib <= 0 || piece_mib < 1 || streams < 1 || streams > 8 || runs < 1 ||
            runs > 1000 || device < 0) {
            fprintf(stderr, "copy_ceiling: bad value for %s: %s\n", a, v);
            return 2;
        }
        i++;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "copy_ceiling: no CUDA device: skipped\n");
        return 77;
    }
    if (device >= ndev) {
        fprintf(stderr, "copy_ceiling: no device %ld (%d present)\n", device, ndev);
        return 2;
    }
    if (check(cudaSetDevice((int)device), "cudaSetDevice"))
        return 1;
    size_t piece = (size_t)piece_mib << 20;
    size_t pieces = (size_t)(gib * (double)(1ull << 30)) / piece;
    if (pieces == 0)
        pieces = 1;
    int ns = (int)streams;
    void *host[8] = {0}, *pageable[8] = {0}, *dev[8] = {0};
    cudaStream_t st[8];
    for (int k = 0; k < ns; k++) {
        if (check(cudaMallocHost(&host[k], piece), "cudaMallocHost") ||
            check(cudaMalloc(&dev[k], piece), "cudaMalloc") ||
            check(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking), "cudaStreamCreate"))
            return 1;
        memset(host[k], 'a' + k, piece);
        pageable[k] = malloc(piece);
        if (!pageable[k]) {
            fprintf(stderr, "copy_ceiling: out of memory\n");
            return 1;
        }
        memset(pageable[k], 'a' + k, piece);
    }
    double *t = malloc(sizeof(double) * (size_t)runs);
    if (!t)
        return 1;
    double bytes = (double)pieces * (double)piece;
    const struct {
        const char *name;
        void **src;
    } kinds[2] = {{"pinned", host}, {"pageable", pageable}};
    printf("copy_ceiling: %zu pieces of %ld MiB (%.2f GiB) over %d streams, device %ld\n", pieces,
           piece_mib, bytes / (double)(1ull << 30), ns, device);
    for (int k = 0; k < 2; k++) {
        if (copy_once(kinds[k].src, dev, st, ns, piece, pieces, cudaMemcpyHostToDevice) < 0) {
            check(cudaGetLastError(), "copy");
            return 1;
        }
        double best = 1e30;
        for (long r = 0; r < runs; r++) {
            t[r] = copy_once(kinds[k].src, dev, st, ns, piece, pieces, cudaMemcpyHostToDevice);
            if (t[r] < 0) {
                check(cudaGetLastError(), "copy");
                return 1;
            }
            if (t[r] < best)
                best = t[r];
        }
        double med = bench_median(t, (int)runs);
        printf("%-8s h2d  median %.2f GB/s  best %.2f GB/s  (%d runs, median %.2f ms)\n",
               kinds[k].name, bytes / med / 1e9, bytes / best / 1e9, (int)runs, med * 1e3);
    }
    free(t);
    for (int k = 0; k < ns; k++) {
        cudaFreeHost(host[k]);
        cudaFree(dev[k]);
        cudaStreamDestroy(st[k]);
        free(pageable[k]);
    }
    return 0;
}
