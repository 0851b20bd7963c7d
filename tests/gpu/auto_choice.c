/*
 * auto_choice.c - where backend auto runs a scan, on a machine with a CUDA
 * device (exits 77, skipped, without one).  Each mode is its own process,
 * since the CUDA context is made once per process:
 *
 *   test_auto_choice warm     a set compiled with a size hint at its GPU
 *                             threshold starts the device while the CPU
 *                             engine is built: its first GPU scan finds the
 *                             start-up paid (init_seconds 0)
 *   test_auto_choice cold     the same set without the hint: the first GPU
 *                             scan pays the start-up (init_seconds > 0)
 *   test_auto_choice literal  eight literals (the CPU's teddy) over 300 MiB
 *                             stay on the CPU without probing its rate, with
 *                             the note saying so; a set the CPU searches
 *                             with its DFA is probed; counts equal the CPU
 *                             backend's
 */
#include "haystack.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (!(cond)) {                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
            failures++;                                         \
        }                                                       \
    } while (0)

static hay_patterns *compile(const char *const *words, size_t n, hay_backend backend,
                             const char *params, uint64_t hint)
{
    hay_pattern p[64];
    for (size_t i = 0; i < n; i++) {
        p[i].data = words[i];
        p[i].len = strlen(words[i]);
    }
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = backend;
    o.params = params;
    o.size_hint = hint;
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(p, n, &o, &set);
    if (s != HAY_OK) {
        fprintf(stderr, "compile: %s\n", hay_strerror(s));
        exit(1);
    }
    return set;
}

static uint64_t count(hay_patterns *set, const char *data, uint64_t len,
                      hay_scan_stats *st)
{
    hay_scratch *scr = NULL;
    uint64_t n = 0;
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.stats = st;
    if (hay_scratch_create(set, &scr) != HAY_OK ||
        hay_scan_count(set, scr, data, len, &o, &n) != HAY_OK) {
        fprintf(stderr, "scan failed\n");
        exit(1);
    }
    hay_scratch_free(scr);
    return n;
}

/* A text with the words of `words` sprinkled over len bytes of filler. */
static char *text(uint64_t len, const char *const *words, size_t n)
{
    char *t = malloc(len);
    if (!t)
        exit(1);
    for (uint64_t i = 0; i < len; i++)
        t[i] = (char)('a' + (i * 7 + i / 13) % 26);
    for (uint64_t at = 100, k = 0; at + 64 < len; at += 4093, k++)
        memcpy(t + at, words[k % n], strlen(words[k % n]));
    return t;
}

static const char *const heavy[] = {   /* short literals: the CPU's DFA */
    "ab", "cd", "ef", "gh", "ij", "kl", "mn", "op", "qr", "st", "uv", "wx",
    "yza", "bcd", "efg", "hij", "klm", "nop", "qrs", "tuv",
};
static const char *const eight[] = {
    "boundary", "devoid", "groan", "jurisprudence", "landless", "moons", "Satan",
    "seldom",
};

static void warm_or_cold(bool warm)
{
    uint64_t len = 2u << 20;
    char *t = text(len, heavy, 20);
    hay_patterns *set = compile(heavy, 20, HAY_BACKEND_AUTO, "gpu_min=1M", warm ? len : 0);
    /* The warm-up thread's start-up (cuInit and a context) is done well
     * within this. */
    struct timespec d = { 2, 0 };
    nanosleep(&d, NULL);
    hay_scan_stats st;
    uint64_t n = count(set, t, len, &st);
    hay_patterns *cpu = compile(heavy, 20, HAY_BACKEND_CPU, NULL, 0);
    uint64_t want = count(cpu, t, len, NULL);
    CHECK(n == want, "count %llu, CPU %llu", (unsigned long long)n, (unsigned long long)want);
    CHECK(st.backend == HAY_BACKEND_CUDA, "ran on %s (%s)", hay_backend_name(st.backend),
          st.note ? st.note : "");
    if (warm)
        CHECK(st.init_seconds == 0, "warm: the scan paid %.3f s of start-up", st.init_seconds);
    else
        CHECK(st.init_seconds > 0, "cold: the scan paid no start-up");
    printf("%s: init_seconds=%.3f total=%.3f note=%s\n", warm ? "warm" : "cold",
           st.init_seconds, st.total_seconds, st.note ? st.note : "");
    hay_patterns_free(set);
    hay_patterns_free(cpu);
    free(t);
}

static void literal(void)
{
    uint64_t len = 300u << 20;
    char *t = text(len, eight, 8);
    hay_scan_stats st;
    hay_patterns *set = compile(eight, 8, HAY_BACKEND_AUTO, NULL, len);
    hay_patterns *cpu = compile(eight, 8, HAY_BACKEND_CPU, NULL, 0);
    uint64_t n = count(set, t, len, &st), want = count(cpu, t, len, NULL);
    CHECK(n == want, "count %llu, CPU %llu", (unsigned long long)n, (unsigned long long)want);
    CHECK(st.backend == HAY_BACKEND_CPU, "eight literals ran on %s",
          hay_backend_name(st.backend));
    CHECK(st.note && strstr(st.note, "literal filter"), "note: %s", st.note ? st.note : "");
    hay_patterns_free(set);
    hay_patterns_free(cpu);
    set = compile(heavy, 20, HAY_BACKEND_AUTO, NULL, len);
    n = count(set, t, len, &st);
    CHECK(!st.note || !strstr(st.note, "literal filter"), "the DFA's set: %s", st.note);
    printf("literal: heavy set ran on %s (%s)\n", hay_backend_name(st.backend),
           st.note ? st.note : "");
    hay_patterns_free(set);
    free(t);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_auto_choice warm|cold|literal\n");
        return 2;
    }
    int devices = 0;
    if (hay_backend_available(HAY_BACKEND_CUDA) != HAY_OK ||
        hay_device_count(HAY_BACKEND_CUDA, &devices) != HAY_OK || devices < 1) {
        printf("SKIP: no usable CUDA device\n");
        return 77;
    }
    if (!strcmp(argv[1], "warm") || !strcmp(argv[1], "cold"))
        warm_or_cold(!strcmp(argv[1], "warm"));
    else if (!strcmp(argv[1], "literal"))
        literal();
    else
        return 2;
    return failures ? 1 : 0;
}
