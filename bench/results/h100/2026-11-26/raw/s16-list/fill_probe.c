/* fill_probe: the host side of hay_scan_list alone (src/cuda/list.c's
 * fill path), no device: NPIECES pieces of PER sorted keys (3 rotating key
 * buffers, as the pipeline's 3 slots' pinned lists) into pre-faulted
 * arrays, with T threads, plain against non-temporal stores.
 * cc -O2 -std=gnu11 -Isrc -Iinclude -o fill_probe .dev-s13/fill_probe.c src/cuda/list.c
 *    src/core/fill.c src/core/batch.c src/core/pool.c -lpthread   (+ stubs below) */
#include "core/fill.h"
#include "cuda/list.h"
#include "cuda/cuda_engine.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* fill.c's entry points call hay_run_ask etc.: not used here. */
hay_status hay_run_ask(const hay_patterns *set, hay_scratch *scratch, const hay_run *r)
{ (void)set; (void)scratch; (void)r; return HAY_ERR_UNSUPPORTED; }
void *hay_malloc(const hay_allocator *a, size_t size) { (void)a; return malloc(size); }
double hay_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
void hay_scan_opts_init(hay_scan_opts *o) { memset(o, 0, sizeof *o); }

int main(int argc, char **argv)
{
    uint64_t total = argc > 1 ? strtoull(argv[1], 0, 10) : 285731041ull;
    int npieces = argc > 2 ? atoi(argv[2]) : 32;
    uint64_t per = total / npieces;
    enum { NP = 4550 };
    static size_t plen[NP];
    for (int i = 0; i < NP; i++) plen[i] = 1 + (i * 7919u) % 40;
    unsigned long long *keys[3];
    for (int b = 0; b < 3; b++) {
        keys[b] = malloc(per * 8);
        uint64_t end = 50;
        for (uint64_t i = 0; i < per; i++) {
            end += (i * 2654435761u >> 7) % 8 == 0;   /* ~3.7 bytes a match, as snort */
            keys[b][i] = HAY_CUDA_MATCH(end + i / 4, (uint32_t)((i * 40503u) % NP));
        }
    }
    uint64_t n = per * npieces;
    hay_match_list l = { malloc(n * 4), malloc(n * 8), malloc(n * 8), n, 0, 0 };
    memset(l.ids, 1, n * 4); memset(l.starts, 1, n * 8); memset(l.ends, 1, n * 8);
    static const unsigned th[] = { 1, 4, 8, 12, 16 };
    static const char *const sn[] = { "auto", "plain", "stream" };
    printf("# %llu keys in %d pieces of %llu, arrays %.1f GB\n", (unsigned long long)n, npieces,
           (unsigned long long)per, n * 20 / 1e9);
    for (int round = 0; round < 2; round++)
        for (size_t t = 0; t < sizeof th / sizeof *th; t++)
            for (int st = 1; st <= 2; st++) {
                hay_fill f = { .list = &l };
                hay_batcher bt;
                hay_match *keep = NULL;
                hay_batcher_init(&bt, NULL, &keep, hay_fill_batch, &f);
                hay_list_sink k = { hay_batch_match, &bt, plen, 0, NULL, th[t], st };
                double t0 = hay_now();
                uint64_t lo = 0;
                for (int p = 0; p < npieces; p++) {
                    hay_list_deliver(&k, keys[p % 3], per, lo);
                    lo += HAY_CUDA_MATCH_END(keys[p % 3][per - 1]) + 1;
                }
                double s = hay_now() - t0;
                printf("threads %2u %-6s %.4f s  %.2f ns/match  %.1f GB/s moved (28 B/match)  "
                       "stored %llu  snort-equiv %.1f GB/s of text\n", th[t], sn[st], s,
                       s / n * 1e9, n * 28 / s / 1e9, (unsigned long long)f.n,
                       1.073741824 * ((double)n / 285731041.0) / s);
                fflush(stdout);
                hay_list_pool_stop(k.pool);
                free(keep);
            }
    return 0;
}
