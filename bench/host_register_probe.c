/*
 * host_register_probe.c - can the GPU copy a file straight from the page
 * cache?  Maps FILE, registers it with the CUDA driver piece by piece
 * (cudaHostRegister, read-only), copies each piece to the device from the
 * mapping itself and unregisters it: no staging copy on the CPU, so the
 * host's memory is read once per byte instead of three or four times
 * (docs/PERF.md, "GPU from the page cache").  Three repetitions per call.
 *
 *   host_register_probe FILE PIECE_MIB shared|private [populate]
 *
 * Prints, per repetition, the total time and GB/s, and the time spent
 * registering and unregistering.  Measured on the H200 host on 2026-11-23:
 * a private mapping does not finish (the driver pins the pages writable,
 * which copies each one), a shared one registers 1 GiB in about 20 ms.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
    if (argc < 4 || atol(argv[2]) <= 0 ||
        (strcmp(argv[3], "shared") != 0 && strcmp(argv[3], "private") != 0)) {
        fprintf(stderr, "usage: host_register_probe FILE PIECE_MIB shared|private [populate]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size <= 0) {
        fprintf(stderr, "host_register_probe: %s: cannot read\n", argv[1]);
        return 2;
    }
    size_t len = (size_t)sb.st_size, piece = (size_t)atol(argv[2]) << 20;
    int shared = !strcmp(argv[3], "shared"), populate = argc > 4;
    unsigned char *d = NULL;
    cudaStream_t st;
    if (cudaFree(0) != cudaSuccess || cudaMalloc((void **)&d, len) != cudaSuccess ||
        cudaStreamCreate(&st) != cudaSuccess) {
        fprintf(stderr, "host_register_probe: no usable GPU\n");
        return 77;
    }
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now();
        unsigned char *p = mmap(NULL, len, PROT_READ,
                                (shared ? MAP_SHARED : MAP_PRIVATE) | (populate ? MAP_POPULATE : 0),
                                fd, 0);
        if (p == MAP_FAILED) {
            perror("host_register_probe: mmap");
            return 2;
        }
        double treg = 0, tunreg = 0;
        int failed = 0;
        for (size_t o = 0; o < len; o += piece) {
            size_t n = len - o < piece ? len - o : piece;
            double a = bench_now();
            cudaError_t e = cudaHostRegister(p + o, n, cudaHostRegisterReadOnly);
            treg += bench_now() - a;
            if (e != cudaSuccess) {
                if (!failed)
                    printf("register: %s (copying pageable instead)\n", cudaGetErrorString(e));
                failed = 1;
                cudaGetLastError();
                cudaMemcpy(d + o, p + o, n, cudaMemcpyHostToDevice);
                continue;
            }
            cudaMemcpyAsync(d + o, p + o, n, cudaMemcpyHostToDevice, st);
            cudaStreamSynchronize(st);
            a = bench_now();
            cudaHostUnregister(p + o);
            tunreg += bench_now() - a;
        }
        double t = bench_now() - t0;
        printf("piece %zu MiB, %s mapping%s: %.1f ms, %.1f GB/s; register %.1f ms, "
               "unregister %.1f ms%s\n", piece >> 20, shared ? "shared" : "private",
               populate ? " (populated)" : "", t * 1e3, len / t / 1e9, treg * 1e3,
               tunreg * 1e3, failed ? "; REGISTER FAILED" : "");
        munmap(p, len);
    }
    cudaStreamDestroy(st);
    cudaFree(d);
    close(fd);
    return 0;
}
