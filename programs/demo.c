/*
 * demo.c - `hay demo`: the main job on an input the program makes itself.
 * It generates an English-like corpus (default 1 GiB) with a needle planted
 * at known offsets, some of them across chunk boundaries, searches it on
 * one thread and on all cores, checks every planted offset is found exactly
 * once, and prints the matches and the throughput.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as",
    "was", "with", "be", "by", "on", "not", "he", "this", "are", "or", "his",
    "from", "at", "which", "but", "have", "an", "had", "they", "you", "were",
    "their", "one", "all", "we", "can", "her", "has", "there", "been", "if",
    "more", "when", "will", "would", "who", "so", "no", "search", "string",
    "haystack", "needle", "pattern", "matching", "signature", "sequence",
    "alignment", "parallel", "thread", "memory", "kernel", "bytes", "stack",
};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void generate(uint8_t *buf, uint64_t len, uint64_t seed)
{
    const size_t nw = sizeof words / sizeof words[0];
    size_t wlen[sizeof words / sizeof words[0]];
    for (size_t i = 0; i < nw; i++)
        wlen[i] = strlen(words[i]);
    uint64_t s = seed, pos = 0, col = 0;
    while (pos < len) {
        size_t w = (size_t)(rng(&s) % nw), wl = wlen[w];
        if (len - pos < wl + 1) {
            memset(buf + pos, ' ', (size_t)(len - pos));
            break;
        }
        memcpy(buf + pos, words[w], wl);
        pos += wl;
        col += wl + 1;
        buf[pos++] = col > 72 ? '\n' : ' ';
        if (col > 72)
            col = 0;
    }
}

typedef struct found {
    uint64_t *at;
    size_t n, cap;
} found;

static int collect(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)end;
    found *f = ctx;
    if (f->n < f->cap)
        f->at[f->n] = start;
    f->n++;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int demo_main(int argc, char **argv)
{
    uint64_t size = 1ull << 30;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (cli_parse_size(argv[++i], &size) < 0 || size < 4096) {
                fprintf(stderr, "hay: demo: invalid size '%s' (at least 4K)\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            uint64_t t;
            if (cli_parse_size(argv[++i], &t) < 0 || t > 4096) {
                fprintf(stderr, "hay: demo: invalid thread count '%s'\n", argv[i]);
                return 2;
            }
            threads = (unsigned)t;
        } else if (!strcmp(argv[i], "--help")) {
            printf("Usage: hay demo [--size BYTES] [--threads N]\n"
                   "Generate a corpus (default 1G) with planted needles, search it,\n"
                   "check every needle is found once, and print the throughput.\n");
            return 0;
        } else {
            fprintf(stderr, "hay: demo: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }

    static const char needle[] = "hay-needle-2026";
    const size_t nl = sizeof needle - 1;
    size_t planted = 1000;
    if (planted > size / (4 * nl))
        planted = (size_t)(size / (4 * nl));
    uint8_t *buf = malloc(size);
    uint64_t *want = malloc(planted * 2 * sizeof *want);
    found got = { malloc(planted * 2 * sizeof *got.at), 0, planted * 2 };
    if (!buf || !want || !got.at) {
        fprintf(stderr, "hay: demo: cannot allocate %" PRIu64 " bytes\n", size);
        free(buf); free(want); free(got.at);
        return 2;
    }

    double t0 = cli_now();
    generate(buf, size, 0x9e3779b97f4a7c15ull);
    /* Half the needles evenly spread, half straddling 1 MiB boundaries. */
    size_t n = 0;
    uint64_t step = size / planted;
    for (size_t i = 0; i < planted; i++) {
        uint64_t at = i * step + step / 2;
        uint64_t edge = (at >> 20 << 20) - nl / 2;   /* crosses a 1 MiB boundary */
        if (i % 2 && at > (1u << 20) && (!n || edge >= want[n - 1] + nl))
            at = edge;
        if (at + nl > size || (n && at < want[n - 1] + nl))
            continue;
        memcpy(buf + at, needle, nl);
        want[n++] = at;
    }
    double gen_s = cli_now() - t0;
    printf("hay demo: generated %.2f GiB of text in %.2f s, planted \"%s\" %zu times\n",
           (double)size / (1 << 30), gen_s, needle, n);

    hay_pattern p = { needle, nl };
    hay_patterns *set = NULL;
    hay_scratch *scratch = NULL;
    hay_status st = hay_patterns_compile(&p, 1, NULL, &set);
    if (st == HAY_OK)
        st = hay_scratch_create(set, &scratch);
    if (st != HAY_OK) {
        fprintf(stderr, "hay: demo: %s\n", hay_strerror(st));
        return 2;
    }
    hay_patterns_info info;
    hay_patterns_info_get(set, &info);

    int rc = 0;
    unsigned all = threads ? threads : cli_cpu_count();
    unsigned runs[2] = { 1, all };
    for (int k = 0; k < (all > 1 ? 2 : 1); k++) {
        hay_scan_opts so;
        hay_scan_opts_init(&so);
        so.threads = runs[k];
        got.n = 0;
        double s0 = cli_now();
        st = hay_scan(set, scratch, buf, size, &so, collect, &got);
        double secs = cli_now() - s0;
        if (st < 0) {
            fprintf(stderr, "hay: demo: %s\n", hay_strerror(st));
            rc = 2;
            break;
        }
        bool ok = got.n == n;
        if (ok) {
            qsort(want, n, sizeof *want, cmp_u64);
            ok = memcmp(want, got.at, n * sizeof *want) == 0;
        }
        printf("  %s on %u thread%s (%s): %zu matches in %.3f s, %.2f GB/s  %s\n",
               hay_backend_name(info.backend), runs[k], runs[k] > 1 ? "s" : "",
               info.algo, got.n, secs, (double)size / secs / 1e9,
               ok ? "all planted needles found once" : "MISMATCH");
        if (k == 0) {
            printf("  first matches at byte offsets:");
            for (size_t i = 0; i < got.n && i < 5; i++)
                printf(" %" PRIu64, got.at[i]);
            printf(" ...\n");
        }
        if (!ok)
            rc = 1;
    }

    /* A dense job: every occurrence of a common word, all cores. */
    hay_pattern the = { "the", 3 };
    hay_patterns *set2 = NULL;
    if (hay_patterns_compile(&the, 1, NULL, &set2) == HAY_OK) {
        uint64_t count = 0;
        hay_scan_opts so;
        hay_scan_opts_init(&so);
        so.threads = threads;
        double s0 = cli_now();
        st = hay_scan_count(set2, scratch, buf, size, &so, &count);
        double secs = cli_now() - s0;
        if (st == HAY_OK)
            printf("  count of \"the\" on %u threads: %" PRIu64 " in %.3f s, %.2f GB/s\n",
                   all, count, secs, (double)size / secs / 1e9);
        hay_patterns_free(set2);
    }
    hay_scratch_free(scratch);
    hay_patterns_free(set);
    free(buf);
    free(want);
    free(got.at);
    return rc;
}
