/*
 * allocator.c - what haystack.h says the caller's allocator serves: with an
 * allocator given, the CPU backend's sets, scratches, streams and scans
 * allocate nothing with malloc.  The program is linked with
 * --wrap=malloc (and calloc, realloc, free, strdup, posix_memalign,
 * aligned_alloc), so every such call from the library's objects is counted;
 * the count must stay 0 from compile to free, for every CPU algorithm, in
 * every match mode, exact and caseless, serially and on three threads with
 * small chunks (per-chunk match buffers), for hay_scan, hay_scan_count,
 * hay_scan_count_each and a stream written in pieces.  The callbacks used
 * inside the counted stretch allocate nothing themselves.
 *
 * Backend auto keeps a record of its own with malloc (documented in
 * haystack.h); its count is printed, not checked.
 */
#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the wrapped C library ------------------------------------------------ */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
int __real_posix_memalign(void **p, size_t align, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);

static atomic_int counting;
static atomic_llong plain_calls;

static void note_call(void)
{
    if (atomic_load(&counting))
        atomic_fetch_add(&plain_calls, 1);
}

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
int __wrap_posix_memalign(void **p, size_t align, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);

void *__wrap_malloc(size_t n) { note_call(); return __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { note_call(); return __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { note_call(); return __real_realloc(p, n); }
void __wrap_free(void *p)
{
    if (p)
        note_call();
    __real_free(p);
}
char *__wrap_strdup(const char *s) { note_call(); return __real_strdup(s); }
int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
    note_call();
    return __real_posix_memalign(p, align, n);
}
void *__wrap_aligned_alloc(size_t align, size_t n)
{
    note_call();
    return __real_aligned_alloc(align, n);
}

/* ---- the caller's allocator --------------------------------------------------- */

static atomic_llong served, released;

static void *t_alloc(size_t size, void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&served, 1);
    return __real_malloc(size ? size : 1);
}

static void t_free(void *p, void *ctx)
{
    (void)ctx;
    if (p)
        atomic_fetch_add(&released, 1);
    __real_free(p);
}

static int count_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id, (void)start, (void)end;
    (*(uint64_t *)ctx)++;
    return 0;
}

/* ---- one set, start to end ------------------------------------------------------ */

/* Compiles, scans every way and frees, with counting on; returns the plain
 * allocations seen.  A scan whose counts disagree is a failure too. */
static long long run(hay_backend backend, const char *algo, const hay_pattern *p,
                     size_t n, hay_match_mode mode, bool caseless,
                     const uint8_t *hay, size_t len, uint64_t *counts,
                     const char *what)
{
    hay_allocator al = { t_alloc, t_free, NULL };
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = backend;
    o.algo = algo;
    o.alloc = &al;
    o.mode = mode;
    o.flags = caseless ? HAY_CASELESS : 0;
    atomic_store(&plain_calls, 0);
    atomic_store(&counting, 1);
    hay_patterns *set = NULL;
    hay_scratch *scr = NULL;
    hay_status s = hay_patterns_compile(p, n, &o, &set);
    if (s == HAY_ERR_UNSUPPORTED || s == HAY_ERR_TOO_LARGE) {
        atomic_store(&counting, 0);
        return 0;   /* a one-pattern engine given several */
    }
    CHECK_ST(s, HAY_OK, what);
    if (s == HAY_OK)
        CHECK_ST(hay_scratch_create(set, &scr), HAY_OK, what);
    for (unsigned t = 1; scr && t <= 3; t += 2) {
        hay_scan_opts so;
        hay_scan_opts_init(&so);
        so.threads = t;
        so.chunk_size = t == 1 ? 0 : 64;
        uint64_t listed = 0, counted = 0, sum = 0;
        CHECK_ST(hay_scan(set, scr, hay, len, &so, count_cb, &listed), HAY_OK, what);
        CHECK_ST(hay_scan_count(set, scr, hay, len, &so, &counted), HAY_OK, what);
        CHECK_ST(hay_scan_count_each(set, scr, hay, len, &so, counts), HAY_OK, what);
        for (size_t i = 0; i < n; i++)
            sum += counts[i];
        CHECK(listed == counted && counted == sum,
              "%s, %u threads: listed %llu, counted %llu, per pattern %llu", what, t,
              (unsigned long long)listed, (unsigned long long)counted,
              (unsigned long long)sum);
    }
    hay_stream *st = NULL;
    uint64_t streamed = 0;
    if (set && hay_stream_open(set, count_cb, &streamed, &st) == HAY_OK) {
        for (size_t at = 0; at < len; at += 97)
            hay_stream_write(st, hay + at, len - at < 97 ? len - at : 97);
        CHECK_ST(hay_stream_close(st), HAY_OK, what);
        hay_stream_free(st);
    }
    hay_scratch_free(scr);
    hay_patterns_free(set);
    atomic_store(&counting, 0);
    return atomic_load(&plain_calls);
}

int main(void)
{
    enum { NPAT = 40, LEN = 20000 };
    static uint8_t words[NPAT][12];
    static uint8_t hay[LEN];
    hay_pattern pats[NPAT];
    uint64_t counts[NPAT];
    tu_rng r = { 11 };
    for (size_t i = 0; i < LEN; i++)
        hay[i] = (uint8_t)("abcAB"[tu_below(&r, 5)]);
    for (size_t i = 0; i < NPAT; i++) {
        size_t m = 1 + i % 8, at = (size_t)tu_below(&r, LEN - m);
        memcpy(words[i], hay + at, m);
        pats[i].data = words[i];
        pats[i].len = m;
    }

    const char *algos[32];
    size_t nalgos = 0;
    for (const char *a; nalgos < 31 &&
         hay_algo_name(HAY_BACKEND_CPU, nalgos, &a) == HAY_OK;)
        algos[nalgos++] = a;
    algos[nalgos++] = NULL;   /* auto */

    unsigned long long runs = 0;
    for (size_t ai = 0; ai < nalgos; ai++)
        for (int mode = HAY_MATCH_ALL; mode <= HAY_MATCH_LEFTMOST_LONGEST; mode++)
            for (int cl = 0; cl < 2; cl++)
                for (size_t np = 1; np <= NPAT; np += NPAT - 1) {
                    char what[96];
                    snprintf(what, sizeof what, "cpu/%s mode %d%s, %zu patterns",
                             algos[ai] ? algos[ai] : "auto", mode,
                             cl ? " caseless" : "", np);
                    long long plain = run(HAY_BACKEND_CPU, algos[ai], pats, np,
                                          (hay_match_mode)mode, cl, hay, LEN,
                                          counts, what);
                    CHECK(plain == 0, "%s: %lld allocations outside the allocator",
                          what, plain);
                    runs++;
                }
    CHECK(served > 0 && served == released, "allocator: %lld served, %lld released",
          (long long)served, (long long)released);
    printf("cpu: %llu sets, %lld allocations served, none by malloc\n", runs,
           (long long)served);
    long long plain = run(HAY_BACKEND_AUTO, NULL, pats, NPAT, HAY_MATCH_ALL, false,
                          hay, LEN, counts, "auto");
    printf("auto: %lld allocations outside the allocator (see haystack.h)\n", plain);
    return tu_finish();
}
