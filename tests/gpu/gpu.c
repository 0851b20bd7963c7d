/*
 * gpu.c - the CUDA backend beyond the conformance table.
 *
 *   test_gpu <data dir>
 *
 * Exits 77 (skipped) when no CUDA device is usable.  Checks, each against
 * the CPU backend (or a count known by construction):
 *   - transfer=register (the input pinned in place): shared mapping, heap
 *     and private mapping (staged), lists and counts
 *   - millions of matches through a result list of 65,536 slots
 *     (result_cap=65536, 300 times fewer; each list is a round trip with
 *     the device): the full list equals the CPU's
 *   - counts per pattern (hay_scan_count_each), host and resident
 *   - device-resident buffers: several pattern sets over one upload; lists,
 *     counts; backend pairing rules; a CPU buffer
 *   - stats: backend, init/prepare once, phases, auto's note
 *   - errors: a bad device index, a buffer too large for the device
 *   - several threads scanning with one set at once
 *   - real data: snort-community and et-open over every file of
 *     <data>/text, counts and counts per pattern equal to the CPU DFA
 *   - an input over 4 GiB, resident and streamed from the host, with
 *     matches planted across and beyond the 4 GiB line (HAY_TEST_SCALE
 *     below 1 skips it)
 */
#include "testutil.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static hay_patterns *compile(hay_backend b, const hay_pattern *p, size_t n,
                             const char *params, hay_status *st)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = b;
    o.params = params;
    hay_patterns *set = NULL;
    *st = hay_patterns_compile(p, n, &o, &set);
    return set;
}

/* Whether two runs reported the same matches (each sorted first). */
static bool same_matches(tu_keys *a, tu_keys *b)
{
    tu_keys_sort(a);
    tu_keys_sort(b);
    return a->n == b->n && (a->n == 0 || memcmp(a->k, b->k, a->n * 8) == 0);
}

static void list_of(const hay_patterns *set, const uint8_t *d, uint64_t len,
                    const hay_scan_opts *o, tu_keys *out, const char *what)
{
    hay_scratch *s = NULL;
    hay_scratch_create(set, &s);
    memset(out, 0, sizeof *out);
    hay_status st = hay_scan(set, s, d, len, o, tu_key_cb, out);
    CHECK(st == HAY_OK, "%s: scan: %s", what, hay_strerror(st));
    CHECK(!out->ends_down, "%s: ends decrease", what);
    hay_scratch_free(s);
}

static uint64_t count_of(const hay_patterns *set, const uint8_t *d,
                         uint64_t len, const hay_scan_opts *o)
{
    hay_scratch *s = NULL;
    hay_scratch_create(set, &s);
    uint64_t n = UINT64_MAX;
    hay_status st = hay_scan_count(set, s, d, len, o, &n);
    CHECK(st == HAY_OK, "count: %s", hay_strerror(st));
    hay_scratch_free(s);
    return n;
}

/* ---- transfer=register: the input pinned in place ------------------------ */

/* One input in four kinds of memory, searched with the pipeline copying
 * straight from it in 1 MiB blocks (a needle across every block boundary):
 * a shared file mapping and shared anonymous memory are pinned in place
 * (no note), heap memory and a private file mapping are not eligible and
 * are staged (the note says so); lists and counts equal the CPU's each
 * time, also from an unaligned start. */
static void test_register(void)
{
    size_t len = tu_scaled((size_t)24 << 20, (size_t)4 << 20) + 4093;
    uint8_t *d = malloc(len);
    tu_rng r = { 11 };
    for (size_t i = 0; i < len; i++)
        d[i] = (uint8_t)('a' + tu_below(&r, 20));
    for (size_t at = (size_t)1 << 20; at + 4 < len; at += (size_t)1 << 20)
        memcpy(d + at - 3, "needle", 6);
    memcpy(d + len - 6, "needle", 6);
    char path[] = "/tmp/hay-gpu-register-XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0 && write(fd, d, len) == (ssize_t)len, "temporary file")) {
        free(d);
        return;
    }
    unlink(path);
    uint8_t *sh = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    uint8_t *pr = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    uint8_t *an = tu_shared_alloc(d, len);
    CHECK(sh != MAP_FAILED && pr != MAP_FAILED && an, "mmap");
    static const hay_pattern single[] = { { "needle", 6 } };
    static const hay_pattern multi[] = { { "needle", 6 }, { "edl", 3 }, { "abc", 3 } };
    struct { const hay_pattern *p; size_t n; } sets[] = { { single, 1 }, { multi, 3 } };
    struct { const char *name; const uint8_t *m; bool direct; } mem[] = {
        { "shared mapping", sh, true }, { "shared anonymous", an, true },
        { "heap", d, false }, { "private mapping", pr, false },
    };
    for (size_t k = 0; k < 2 && sh != MAP_FAILED && pr != MAP_FAILED && an; k++) {
        hay_status st;
        hay_patterns *cpu = compile(HAY_BACKEND_CPU, sets[k].p, sets[k].n, NULL, &st);
        hay_patterns *gpu = compile(HAY_BACKEND_CUDA, sets[k].p, sets[k].n,
                                    "transfer=register,chunk=1M", &st);
        if (!CHECK(cpu && gpu, "compile %zu patterns: %s", sets[k].n, hay_strerror(st)))
            break;
        tu_keys want;
        list_of(cpu, d, len, NULL, &want, "register: CPU");
        uint64_t want_off = count_of(cpu, d + 1, len - 1, NULL);
        for (size_t m = 0; m < 4; m++) {
            hay_scan_stats stats;
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            o.stats = &stats;
            tu_keys got;
            char what[96];
            snprintf(what, sizeof what, "register, %zu patterns, %s", sets[k].n,
                     mem[m].name);
            list_of(gpu, mem[m].m, len, &o, &got, what);
            bool staged = strstr(stats.note, "staged") != NULL;
            CHECK(staged != mem[m].direct, "%s: note '%s'", what, stats.note);
            CHECK(same_matches(&want, &got), "%s: %zu matches, want %zu", what, got.n,
                  want.n);
            free(got.k);
            uint64_t c = count_of(gpu, mem[m].m, len, &o);
            CHECK(c == want.n, "%s: count %llu, want %zu", what, (unsigned long long)c,
                  want.n);
            c = count_of(gpu, mem[m].m + 1, len - 1, &o);
            CHECK(c == want_off, "%s, from byte 1: count %llu, want %llu", what,
                  (unsigned long long)c, (unsigned long long)want_off);
        }
        CHECK(want.n >= len >> 20, "register: %zu needles", want.n);
        free(want.k);
        hay_patterns_free(cpu);
        hay_patterns_free(gpu);
    }
    if (sh != MAP_FAILED)
        munmap(sh, len);
    if (pr != MAP_FAILED)
        munmap(pr, len);
    tu_shared_free(an, len);
    close(fd);
    free(d);
}

/* ---- millions of matches, a tiny result list ------------------------------ */

static void test_many_matches(void)
{
    size_t len = tu_scaled((size_t)8 << 20, 1 << 20);
    uint8_t *d = malloc(len);
    tu_rng r = { 7 };
    for (size_t i = 0; i < len; i++)
        d[i] = "aab"[tu_below(&r, 3)];
    static const hay_pattern p[] = { { "a", 1 }, { "ab", 2 }, { "aa", 2 },
                                     { "ba", 2 }, { "a", 1 }, { "aab", 3 } };
    hay_status st;
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, 6, NULL, &st);
    hay_patterns *gpu = compile(HAY_BACKEND_CUDA, p, 6,
                                "result_cap=65536,chunk=3M", &st);
    CHECK(st == HAY_OK, "compile result_cap=65536: %s", hay_strerror(st));
    if (gpu && cpu) {
        tu_keys a, b;
        double t0 = tu_now();
        list_of(cpu, d, len, NULL, &a, "cpu");
        double t1 = tu_now();
        list_of(gpu, d, len, NULL, &b, "cuda result_cap=65536");
        double t2 = tu_now();
        printf("many matches: %zu on the CPU (%.2f s), %zu on CUDA with 65536 "
               "slots (%.2f s)\n", a.n, t1 - t0, b.n, t2 - t1);
        CHECK(a.n > 2 * len / 3, "expected millions of matches, got %zu", a.n);
        CHECK(same_matches(&a, &b), "result_cap=65536: %zu matches, CPU %zu, "
              "or different ones", b.n, a.n);
        /* The count agrees too, and so does the list with the default
         * result list (dense matches: every block flushes every round). */
        CHECK(count_of(gpu, d, len, NULL) == a.n, "count with result_cap");
        hay_patterns *g2 = compile(HAY_BACKEND_CUDA, p, 6, NULL, &st);
        for (int k = 0; k < 3 && g2; k++) {
            free(b.k);
            list_of(g2, d, len, NULL, &b, "cuda default");
            CHECK(same_matches(&a, &b), "default list, run %d: %zu matches, CPU %zu",
                  k, b.n, a.n);
        }
        hay_patterns_free(g2);
        free(a.k);
        free(b.k);
    }
    hay_patterns_free(cpu);
    hay_patterns_free(gpu);
    free(d);
}

/* ---- counts per pattern and resident buffers ------------------------------- */

static void check_each(const hay_patterns *cpu, const hay_patterns *gpu,
                       const hay_buffer *buf, const uint8_t *d, uint64_t len,
                       size_t n, const char *what)
{
    uint64_t *a = calloc(n, 8), *b = calloc(n, 8), *c = calloc(n, 8);
    hay_scratch *s = NULL;
    hay_scratch_create(cpu, &s);
    hay_status st = hay_scan_count_each(cpu, s, d, len, NULL, a);
    CHECK(st == HAY_OK, "%s: cpu count_each: %s", what, hay_strerror(st));
    st = hay_scan_count_each(gpu, s, d, len, NULL, b);
    CHECK(st == HAY_OK, "%s: cuda count_each: %s", what, hay_strerror(st));
    CHECK(memcmp(a, b, n * 8) == 0, "%s: counts per pattern differ (host)", what);
    if (buf) {
        st = hay_scan_count_each_buffer(gpu, s, buf, NULL, c);
        CHECK(st == HAY_OK, "%s: resident count_each: %s", what, hay_strerror(st));
        CHECK(memcmp(a, c, n * 8) == 0, "%s: counts per pattern differ (resident)",
              what);
    }
    hay_scratch_free(s);
    free(a);
    free(b);
    free(c);
}

static void test_resident(void)
{
    size_t len = tu_scaled((size_t)8 << 20, 1 << 18);
    uint8_t *d = malloc(len);
    tu_rng r = { 11 };
    for (size_t i = 0; i < len; i++)
        d[i] = (uint8_t)("abcdefgh  \n\0\xff"[tu_below(&r, 13)]);
    hay_buffer *buf = NULL, *cbuf = NULL;
    hay_status st = hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf);
    CHECK(st == HAY_OK && buf, "buffer_create cuda: %s", hay_strerror(st));
    CHECK(hay_buffer_backend(buf) == HAY_BACKEND_CUDA, "buffer backend");
    st = hay_buffer_create(HAY_BACKEND_CPU, d, len, &cbuf);
    CHECK(st == HAY_OK, "buffer_create cpu: %s", hay_strerror(st));
    static const hay_pattern sets[3][4] = {
        { { "ab", 2 }, { "b", 1 }, { "h\n", 2 }, { "\0\xff", 2 } },
        { { "abc", 3 }, { "cab", 3 }, { "a", 1 }, { "gh", 2 } },
        { { "defgh", 5 }, { " ", 1 }, { "ee", 2 }, { "abcdefgh", 8 } },
    };
    for (int k = 0; k < 3 && buf; k++) {
        hay_patterns *cpu = compile(HAY_BACKEND_CPU, sets[k], 4, NULL, &st);
        hay_patterns *gpu = compile(HAY_BACKEND_CUDA, sets[k], 4, NULL, &st);
        CHECK(st == HAY_OK, "compile set %d: %s", k, hay_strerror(st));
        if (!gpu || !cpu) {
            hay_patterns_free(cpu);
            continue;
        }
        hay_scratch *s = NULL;
        hay_scratch_create(gpu, &s);
        tu_keys a, b;
        list_of(cpu, d, len, NULL, &a, "cpu");
        memset(&b, 0, sizeof b);
        st = hay_scan_buffer(gpu, s, buf, NULL, tu_key_cb, &b);
        CHECK(st == HAY_OK && !b.ends_down, "scan_buffer set %d: %s", k,
              hay_strerror(st));
        CHECK(same_matches(&a, &b), "resident list, set %d: %zu vs %zu", k,
              b.n, a.n);
        uint64_t n = 0;
        hay_scan_stats stats;
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.stats = &stats;
        st = hay_scan_count_buffer(gpu, s, buf, &o, &n);
        CHECK(st == HAY_OK && n == a.n, "count_buffer set %d: %s, %llu vs %zu",
              k, hay_strerror(st), (unsigned long long)n, a.n);
        CHECK(stats.backend == HAY_BACKEND_CUDA && stats.copy_in_seconds == 0 &&
              stats.kernel_seconds > 0 && stats.matches == n,
              "resident stats: backend %d copy-in %g kernel %g", (int)stats.backend,
              stats.copy_in_seconds, stats.kernel_seconds);
        /* A resident list in small pieces with a small result list. */
        o.chunk_size = 100000;
        o.stats = NULL;
        memset(&b, 0, sizeof b);
        hay_patterns *g2 = compile(HAY_BACKEND_CUDA, sets[k], 4, "result_cap=5000", &st);
        st = hay_scan_buffer(g2, s, buf, &o, tu_key_cb, &b);
        CHECK(st == HAY_OK && same_matches(&a, &b), "resident pieces set %d", k);
        hay_patterns_free(g2);
        free(b.k);
        check_each(cpu, gpu, buf, d, len, 4, "resident sets");
        /* The CPU buffer works with both; a CPU set refuses a CUDA buffer. */
        st = hay_scan_count_buffer(gpu, s, cbuf, NULL, &n);
        CHECK(st == HAY_OK && n == a.n, "cuda set, cpu buffer: %s", hay_strerror(st));
        st = hay_scan_count_buffer(cpu, s, buf, NULL, &n);
        CHECK(st == HAY_ERR_UNSUPPORTED, "cpu set, cuda buffer: %s", hay_strerror(st));
        /* An auto set scans a CUDA buffer on the GPU. */
        hay_patterns *au = compile(HAY_BACKEND_AUTO, sets[k], 4, NULL, &st);
        o.chunk_size = 0;
        o.stats = &stats;
        st = hay_scan_count_buffer(au, s, buf, &o, &n);
        CHECK(st == HAY_OK && n == a.n && stats.backend == HAY_BACKEND_CUDA,
              "auto set, cuda buffer: %s", hay_strerror(st));
        hay_patterns_free(au);
        free(a.k);
        hay_scratch_free(s);
        hay_patterns_free(cpu);
        hay_patterns_free(gpu);
    }
    hay_buffer_free(buf);
    hay_buffer_free(cbuf);
    /* Out of device memory is a status. */
    buf = TU_NOT_NULL;
    st = hay_buffer_create(HAY_BACKEND_CUDA, d, (uint64_t)1 << 44, &buf);
    CHECK(st == HAY_ERR_NOMEM && buf == NULL, "16 TiB buffer: %s", hay_strerror(st));
    free(d);
}

/* ---- stats, auto, errors ---------------------------------------------------- */

static void test_stats_auto_errors(void)
{
    static const hay_pattern p[] = { { "needle", 6 }, { "haystack", 8 } };
    size_t len = 1 << 20;
    uint8_t *d = calloc(len, 1);
    for (size_t i = 0; i + 8 < len; i += 1000)
        memcpy(d + i, i % 2000 ? "needle" : "haystack", i % 2000 ? 6 : 8);
    hay_status st;
    hay_scan_opts o;
    hay_scan_stats s1, s2;
    hay_scan_opts_init(&o);
    hay_patterns *gpu = compile(HAY_BACKEND_CUDA, p, 2, NULL, &st);
    CHECK(st == HAY_OK, "compile: %s", hay_strerror(st));
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, 2, NULL, &st);
    uint64_t want = count_of(cpu, d, len, NULL);
    /* info names the device's engine: PFAC for two patterns, gpu-fast for one */
    hay_patterns_info info;
    CHECK(hay_patterns_info_get(gpu, &info) == HAY_OK && info.backend == HAY_BACKEND_CUDA &&
          !strcmp(info.algo, "pfac"), "info: backend %d algo %s", (int)info.backend,
          info.algo);
    hay_patterns *one = compile(HAY_BACKEND_CUDA, p, 1, NULL, &st);
    CHECK(one && hay_patterns_info_get(one, &info) == HAY_OK &&
          !strcmp(info.algo, "gpu-fast") && strstr(info.reason, "gpu-fast"),
          "info, one pattern: algo %s", one ? info.algo : "(no set)");
    hay_patterns_free(one);
    o.stats = &s1;
    CHECK(count_of(gpu, d, len, &o) == want, "count");
    o.stats = &s2;
    CHECK(count_of(gpu, d, len, &o) == want, "count again");
    CHECK(s1.backend == HAY_BACKEND_CUDA && s1.prepare_seconds > 0 &&
          s1.copy_in_seconds > 0 && s1.kernel_seconds > 0 && s1.bytes == len &&
          s1.matches == want && s1.total_seconds > 0,
          "first stats: prepare %g copy-in %g kernel %g", s1.prepare_seconds,
          s1.copy_in_seconds, s1.kernel_seconds);
    CHECK(s2.init_seconds == 0 && s2.prepare_seconds == 0,
          "second scan reports no start-up");
    printf("stats: init %.4f s (this set: %.4f), prepare %.4f s, copy-in %.6f, "
           "kernel %.6f, copy-out %.6f, total %.6f\n", s1.init_seconds,
           s1.init_seconds, s1.prepare_seconds, s1.copy_in_seconds,
           s1.kernel_seconds, s1.copy_out_seconds, s1.total_seconds);

    /* Auto: small inputs stay on the CPU; gpu_min=0 moves them. */
    hay_patterns *au = compile(HAY_BACKEND_AUTO, p, 2, NULL, &st);
    o.stats = &s1;
    CHECK(count_of(au, d, len, &o) == want && s1.backend == HAY_BACKEND_CPU &&
          s1.note && strstr(s1.note, "threshold"), "auto small: backend %d note %s",
          (int)s1.backend, s1.note ? s1.note : "(null)");
    hay_patterns *au0 = compile(HAY_BACKEND_AUTO, p, 2, "gpu_min=0", &st);
    CHECK(count_of(au0, d, len, &o) == want && s1.backend == HAY_BACKEND_CUDA,
          "auto gpu_min=0: backend %d note %s", (int)s1.backend,
          s1.note ? s1.note : "(null)");
    tu_keys a, b;
    list_of(cpu, d, len, NULL, &a, "cpu");
    list_of(au0, d, len, NULL, &b, "auto gpu_min=0");
    CHECK(same_matches(&a, &b), "auto gpu_min=0 list");
    free(a.k);
    free(b.k);
    hay_patterns_free(au);
    hay_patterns_free(au0);

    /* Errors are statuses. */
    hay_patterns *bad = compile(HAY_BACKEND_CUDA, p, 2, "device=15", &st);
    CHECK(st == HAY_ERR_NO_DEVICE && !bad, "device=15: %s", hay_strerror(st));
    bad = compile(HAY_BACKEND_CUDA, p, 2, NULL, &st);
    hay_patterns_free(bad);
    bad = compile(HAY_BACKEND_CUDA, p, 2, "pfac=1", &st);
    CHECK(st == HAY_ERR_INVALID && !bad, "unknown key: %s", hay_strerror(st));
    hay_patterns_free(gpu);
    hay_patterns_free(cpu);
    free(d);
}

/* ---- threads ------------------------------------------------------------------ */

typedef struct thr_arg {
    const hay_patterns *set;
    const uint8_t *d;
    size_t len;
    uint64_t count;
    tu_keys list;
} thr_arg;

static void *thr_main(void *p)
{
    thr_arg *a = p;
    hay_scratch *s = NULL;
    hay_scratch_create(a->set, &s);
    for (int k = 0; k < 5; k++) {
        uint64_t n = 0;
        hay_scan_count(a->set, s, a->d, a->len, NULL, &n);
        a->count += n;
    }
    hay_scan(a->set, s, a->d, a->len, NULL, tu_key_cb, &a->list);
    hay_scratch_free(s);
    return NULL;
}

static void test_threads(void)
{
    size_t len = 3 << 20;
    uint8_t *d = malloc(len);
    tu_rng r = { 3 };
    for (size_t i = 0; i < len; i++)
        d[i] = (uint8_t)('a' + tu_below(&r, 4));
    static const hay_pattern p[] = { { "abc", 3 }, { "dd", 2 }, { "cab", 3 } };
    hay_status st;
    hay_patterns *gpu = compile(HAY_BACKEND_CUDA, p, 3, "chunk=1M", &st);
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, 3, NULL, &st);
    tu_keys want;
    list_of(cpu, d, len, NULL, &want, "cpu");
    thr_arg args[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].set = gpu;
        args[i].d = d;
        args[i].len = len;
        pthread_create(&th[i], NULL, thr_main, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].count == 5 * want.n, "thread %d count", i);
        CHECK(!args[i].list.ends_down && same_matches(&want, &args[i].list),
              "thread %d list", i);
        free(args[i].list.k);
    }
    free(want.k);
    hay_patterns_free(gpu);
    hay_patterns_free(cpu);
    free(d);
}

/* ---- real data ---------------------------------------------------------------- */

static void test_realdata(const char *dir)
{
    static const char *const sets[] = { "snort-community.txt", "et-open.txt" };
    char path[4096];
    for (int k = 0; k < 2; k++) {
        size_t n;
        uint8_t *store;
        hay_pattern *p = tu_data_patterns(dir, sets[k], &n, &store);
        if (!p)
            continue;
        hay_status st;
        hay_patterns *cpu = compile(HAY_BACKEND_CPU, p, n, NULL, &st);
        hay_patterns *gpu = compile(HAY_BACKEND_CUDA, p, n, NULL, &st);
        CHECK(st == HAY_OK, "compile %s on CUDA: %s", sets[k], hay_strerror(st));
        hay_patterns *cmp = compile(HAY_BACKEND_CUDA, p, n, "table=compact", &st);
        CHECK(st == HAY_OK, "compile %s compact: %s", sets[k], hay_strerror(st));
        snprintf(path, sizeof path, "%s/text", dir);
        DIR *dd = opendir(path);
        struct dirent *de;
        while (gpu && cmp && dd && (de = readdir(dd))) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/text/%s", dir, de->d_name);
            size_t len;
            uint8_t *d = tu_read_file(path, &len);
            if (!d)
                continue;
            uint64_t a = count_of(cpu, d, len, NULL);
            uint64_t b = count_of(gpu, d, len, NULL);
            uint64_t c = count_of(cmp, d, len, NULL);
            CHECK(a == b && a == c, "%s over %s: cpu %llu cuda %llu compact %llu",
                  sets[k], de->d_name, (unsigned long long)a,
                  (unsigned long long)b, (unsigned long long)c);
            check_each(cpu, gpu, NULL, d, len, n, sets[k]);
            printf("%s over %s: %llu matches\n", sets[k], de->d_name,
                   (unsigned long long)a);
            free(d);
        }
        if (dd)
            closedir(dd);
        hay_patterns_free(cpu);
        hay_patterns_free(gpu);
        hay_patterns_free(cmp);
        free(p);
        free(store);
    }
}

/* ---- over 4 GiB ------------------------------------------------------------------ */

static void test_big(void)
{
    if (tu_scale() < 1) {
        printf("SKIP: 4.5 GiB input (HAY_TEST_SCALE < 1)\n");
        return;
    }
    uint64_t len = ((uint64_t)9 << 29) + 12345;   /* 4.5 GiB and a bit */
    /* Shared anonymous memory: transfer=register pins it in place. */
    uint8_t *d = tu_shared_alloc(NULL, len);
    if (!d) {
        printf("SKIP: no host memory for 4.5 GiB\n");
        return;
    }
    memset(d, 'x', len);
    /* Needles every 64 MiB, one across the 4 GiB line, one at the end. */
    uint64_t planted = 0;
    for (uint64_t at = 1000; at + 7 < len; at += (uint64_t)64 << 20, planted++)
        memcpy(d + at, "needle!", 7);
    memcpy(d + ((uint64_t)4 << 30) - 3, "needle!", 7);
    memcpy(d + len - 7, "needle!", 7);
    planted += 2;
    static const hay_pattern p[] = { { "needle!", 7 }, { "dle", 3 } };
    hay_status st;
    hay_patterns *gpu = compile(HAY_BACKEND_CUDA, p, 2, NULL, &st);
    hay_scratch *s = NULL;
    hay_scratch_create(gpu, &s);
    uint64_t n = 0;
    double t0 = tu_now();
    st = hay_scan_count(gpu, s, d, len, NULL, &n);
    double t1 = tu_now();
    CHECK(st == HAY_OK && n == 2 * planted, "4.5 GiB streamed: %s, %llu of %llu",
          hay_strerror(st), (unsigned long long)n, (unsigned long long)(2 * planted));
    /* The same, copied straight from the input, pinned in place. */
    hay_patterns *reg = compile(HAY_BACKEND_CUDA, p, 2, "transfer=register", &st);
    if (CHECK(reg != NULL, "4.5 GiB, transfer=register: %s", hay_strerror(st))) {
        hay_scan_stats rs;
        hay_scan_opts ro;
        hay_scan_opts_init(&ro);
        ro.stats = &rs;
        uint64_t rn = 0;
        hay_scratch *rsc = NULL;
        hay_scratch_create(reg, &rsc);
        double r0 = tu_now();
        st = hay_scan_count(reg, rsc, d, len, &ro, &rn);
        hay_scratch_free(rsc);
        CHECK(st == HAY_OK && rn == 2 * planted && !strstr(rs.note, "staged"),
              "4.5 GiB, transfer=register: %s, %llu of %llu, note '%s'", hay_strerror(st),
              (unsigned long long)rn, (unsigned long long)(2 * planted), rs.note);
        printf("4.5 GiB: transfer=register count %.3f s\n", tu_now() - r0);
        hay_patterns_free(reg);
    }
    tu_keys l;
    memset(&l, 0, sizeof l);
    st = hay_scan(gpu, s, d, len, NULL, tu_key_cb, &l);
    bool line = false, end = false;
    for (size_t i = 0; i < l.n; i++) {
        uint64_t e = l.k[i] >> 20;
        line |= e == ((uint64_t)4 << 30) + 4 && (l.k[i] & 0xfffff) == 0;
        end |= e == len && (l.k[i] & 0xfffff) == 0;
    }
    CHECK(st == HAY_OK && l.n == 2 * planted && line && end,
          "4.5 GiB list: %zu matches, across 4 GiB %d, at the end %d", l.n,
          (int)line, (int)end);
    free(l.k);
    hay_buffer *buf = NULL;
    st = hay_buffer_create(HAY_BACKEND_CUDA, d, len, &buf);
    CHECK(st == HAY_OK, "4.5 GiB buffer: %s", hay_strerror(st));
    if (buf) {
        double t2 = tu_now();
        st = hay_scan_count_buffer(gpu, s, buf, NULL, &n);
        double t3 = tu_now();
        CHECK(st == HAY_OK && n == 2 * planted, "4.5 GiB resident: %llu",
              (unsigned long long)n);
        printf("4.5 GiB: streamed count %.3f s, resident count %.4f s\n",
               t1 - t0, t3 - t2);
    }
    hay_buffer_free(buf);
    hay_scratch_free(s);
    hay_patterns_free(gpu);
    tu_shared_free(d, len);
}

int main(int argc, char **argv)
{
    hay_status av = hay_backend_available(HAY_BACKEND_CUDA);
    if (av != HAY_OK) {
        printf("SKIP: CUDA backend: %s\n", hay_strerror(av));
        return TU_SKIP;
    }
    double t0 = tu_now();
    test_stats_auto_errors();
    printf("stats/auto/errors done %.1f s\n", tu_now() - t0);
    test_register();
    printf("register done %.1f s\n", tu_now() - t0);
    test_many_matches();
    printf("many matches done %.1f s\n", tu_now() - t0);
    test_resident();
    printf("resident done %.1f s\n", tu_now() - t0);
    test_threads();
    printf("threads done %.1f s\n", tu_now() - t0);
    if (argc > 1)
        test_realdata(argv[1]);
    printf("real data done %.1f s\n", tu_now() - t0);
    test_big();
    printf("big done %.1f s\n", tu_now() - t0);
    return tu_finish();
}
