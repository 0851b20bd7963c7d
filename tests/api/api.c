/*
 * api.c - the public API's contract: argument checks and status codes,
 * limits, names, hay_strerror, _free(NULL), chunk sizes and thread counts
 * at their extremes, progress reports and their thread, one set shared by
 * several threads, a scratch reused across sets, and the GPU backends
 * failing cleanly where they cannot run.  Callback stops are stops.c's,
 * custom allocators alloc.c's.
 */
#include "testutil.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENGINES 32

static tu_engine engines[MAX_ENGINES];
static size_t nengines;

static int count_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}

static hay_patterns *compile_or_null(const hay_pattern *p, size_t n,
                                     const hay_compile_opts *o)
{
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(p, n, o, &set);
    CHECK(s == HAY_OK, "compile: %s", hay_strerror(s));
    return set;
}

/* ---- names, versions, strerror ------------------------------------------------ */

static void test_names(void)
{
    CHECK(strcmp(hay_version(), HAY_VERSION_STRING) == 0, "hay_version %s",
          hay_version());
    static const struct { hay_backend b; const char *name; } bs[] = {
        { HAY_BACKEND_AUTO, "auto" }, { HAY_BACKEND_CPU, "cpu" },
        { HAY_BACKEND_CUDA, "cuda" }, { HAY_BACKEND_OPENCL, "opencl" },
    };
    for (size_t i = 0; i < 4; i++) {
        CHECK(strcmp(hay_backend_name(bs[i].b), bs[i].name) == 0,
              "hay_backend_name(%d) = %s", (int)bs[i].b, hay_backend_name(bs[i].b));
        hay_backend b = (hay_backend)99;
        CHECK_ST(hay_backend_parse(bs[i].name, &b), HAY_OK, bs[i].name);
        CHECK(b == bs[i].b, "parse %s gave %d", bs[i].name, (int)b);
    }
    CHECK(strcmp(hay_backend_name((hay_backend)99), "?") == 0, "name of 99");
    CHECK(strcmp(hay_backend_name((hay_backend)-1), "?") == 0, "name of -1");
    hay_backend b;
    CHECK_ST(hay_backend_parse("gpu", &b), HAY_ERR_UNKNOWN_NAME, "parse gpu");
    CHECK_ST(hay_backend_parse("CPU", &b), HAY_ERR_UNKNOWN_NAME, "parse CPU");
    CHECK_ST(hay_backend_parse("", &b), HAY_ERR_UNKNOWN_NAME, "parse ''");
    CHECK_ST(hay_backend_parse(NULL, &b), HAY_ERR_INVALID, "parse NULL");
    CHECK_ST(hay_backend_parse("cpu", NULL), HAY_ERR_INVALID, "parse to NULL");

    CHECK_ST(hay_backend_available(HAY_BACKEND_CPU), HAY_OK, "cpu available");
    CHECK_ST(hay_backend_available(HAY_BACKEND_AUTO), HAY_OK, "auto available");
    CHECK_ST(hay_backend_available((hay_backend)99), HAY_ERR_INVALID, "99 available");

    /* Algorithm names: the documented ones, each once, then INVALID. */
    const char *name = NULL;
    size_t n = 0;
    const char *seen[64];
    while (n < 64 && hay_algo_name(HAY_BACKEND_CPU, n, &name) == HAY_OK) {
        CHECK(name && *name, "algo %zu has no name", n);
        for (size_t k = 0; k < n; k++)
            CHECK(strcmp(seen[k], name) != 0, "algo name %s listed twice", name);
        seen[n++] = name;
    }
    static const char *const documented[] = { "naive", "bm", "horspool", "simd", "ac" };
    for (size_t i = 0; i < 5; i++) {
        bool found = false;
        for (size_t k = 0; k < n; k++)
            found = found || strcmp(seen[k], documented[i]) == 0;
        CHECK(found, "documented algorithm %s is not listed", documented[i]);
    }
    CHECK_ST(hay_algo_name(HAY_BACKEND_CPU, n, &name), HAY_ERR_INVALID, "past the end");
    CHECK_ST(hay_algo_name(HAY_BACKEND_CPU, SIZE_MAX, &name), HAY_ERR_INVALID,
             "SIZE_MAX");
    CHECK_ST(hay_algo_name(HAY_BACKEND_CPU, 0, NULL), HAY_ERR_INVALID, "NULL name");
    CHECK_ST(hay_algo_name((hay_backend)99, 0, &name), HAY_ERR_INVALID, "backend 99");
    CHECK_ST(hay_algo_name(HAY_BACKEND_AUTO, 0, &name), HAY_OK, "auto lists the CPU's");

    int count = -1;
    CHECK_ST(hay_device_count(HAY_BACKEND_CPU, &count), HAY_OK, "cpu devices");
    CHECK(count == 1, "cpu device count %d", count);
    CHECK_ST(hay_device_count(HAY_BACKEND_CPU, NULL), HAY_ERR_INVALID, "count NULL");
    char buf[256];
    CHECK_ST(hay_device_describe(HAY_BACKEND_CPU, 0, buf, sizeof buf), HAY_OK,
             "describe cpu");
    CHECK(strlen(buf) > 0 && strlen(buf) < sizeof buf, "cpu description '%s'", buf);
    char small[5];
    memset(small, 'x', sizeof small);
    hay_status s = hay_device_describe(HAY_BACKEND_CPU, 0, small, sizeof small);
    CHECK(s == HAY_OK && memchr(small, 0, sizeof small) != NULL,
          "describe into 5 bytes: %s, not NUL-terminated", hay_strerror(s));
    CHECK_ST(hay_device_describe(HAY_BACKEND_CPU, 1, buf, sizeof buf),
             HAY_ERR_INVALID, "describe cpu 1");
    CHECK_ST(hay_device_describe(HAY_BACKEND_CPU, -1, buf, sizeof buf),
             HAY_ERR_INVALID, "describe cpu -1");
    CHECK_ST(hay_device_describe(HAY_BACKEND_CPU, 0, NULL, 10), HAY_ERR_INVALID,
             "describe NULL");
    CHECK_ST(hay_device_describe(HAY_BACKEND_CPU, 0, buf, 0), HAY_ERR_INVALID,
             "describe cap 0");
}

static void test_strerror(void)
{
    static const hay_status all[] = {
        HAY_OK, HAY_STOPPED, HAY_ERR_NOMEM, HAY_ERR_INVALID, HAY_ERR_UNSUPPORTED,
        HAY_ERR_NO_BACKEND, HAY_ERR_NO_DEVICE, HAY_ERR_DEVICE,
        HAY_ERR_UNKNOWN_NAME, HAY_ERR_TOO_LARGE, HAY_ERR_STATE,
    };
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        const char *a = hay_strerror(all[i]);
        if (!CHECK(a != NULL && *a, "hay_strerror(%d) is NULL or empty", (int)all[i]))
            continue;
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(a, hay_strerror(all[k])) != 0,
                  "hay_strerror(%d) == hay_strerror(%d) == '%s'", (int)all[i],
                  (int)all[k], a);
    }
    static const int odd[] = { -100, 2, 100, -10, INT32_MIN, INT32_MAX };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        CHECK(hay_strerror((hay_status)odd[i]) != NULL, "hay_strerror(%d) is NULL",
              odd[i]);
}

static void test_free_null(void)
{
    hay_patterns_free(NULL);
    hay_scratch_free(NULL);
    CHECK_ST(hay_stream_close(NULL), HAY_OK, "hay_stream_close(NULL)");
    hay_stream_free(NULL);
    hay_compile_opts_init(NULL);
    hay_scan_opts_init(NULL);
    CHECK(true, "free(NULL) calls returned");
}

/* ---- arguments ------------------------------------------------------------------ */

static void test_invalid_args(void)
{
    hay_pattern p = { "abc", 3 };
    hay_patterns *set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(&p, 1, NULL, NULL), HAY_ERR_INVALID, "out NULL");
    CHECK_ST(hay_patterns_compile(NULL, 1, NULL, &set), HAY_ERR_INVALID, "patterns NULL");
    CHECK(set == NULL, "*out not NULL after an error");
    set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(&p, 0, NULL, &set), HAY_ERR_INVALID, "n = 0");
    CHECK(set == NULL, "*out not NULL after n = 0");
    hay_pattern zero = { "abc", 0 };
    set = TU_NOT_NULL;
    CHECK_ST(hay_patterns_compile(&zero, 1, NULL, &set), HAY_ERR_INVALID, "len 0");
    CHECK(set == NULL, "*out not NULL after len 0");
    hay_pattern two[2] = { { "abc", 3 }, { "x", 0 } };
    CHECK_ST(hay_patterns_compile(two, 2, NULL, &set), HAY_ERR_INVALID,
             "second pattern of len 0");
    hay_pattern nodata = { NULL, 3 };
    CHECK_ST(hay_patterns_compile(&nodata, 1, NULL, &set), HAY_ERR_INVALID, "data NULL");

    hay_compile_opts o;
    hay_compile_opts_init(&o);
    CHECK(o.flags == 0 && o.backend == HAY_BACKEND_AUTO && o.algo == NULL &&
          o.alloc == NULL, "hay_compile_opts_init defaults");
    o.flags = 0x80;
    CHECK_ST(hay_patterns_compile(&p, 1, &o, &set), HAY_ERR_INVALID, "unknown flag");
    hay_compile_opts_init(&o);
    o.backend = (hay_backend)99;
    CHECK_ST(hay_patterns_compile(&p, 1, &o, &set), HAY_ERR_INVALID, "backend 99");
    hay_compile_opts_init(&o);
    hay_allocator half = { NULL, NULL, NULL };
    o.alloc = &half;
    CHECK_ST(hay_patterns_compile(&p, 1, &o, &set), HAY_ERR_INVALID,
             "allocator without functions");

    /* Unknown algorithm names, on auto and on the CPU backend. */
    static const char *const unknown[] = { "", "BM", "boyer-moore", "ac ", "gpu" };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        for (int b = 0; b < 2; b++) {
            hay_compile_opts_init(&o);
            o.backend = b ? HAY_BACKEND_CPU : HAY_BACKEND_AUTO;
            o.algo = unknown[i];
            set = TU_NOT_NULL;
            hay_status s = hay_patterns_compile(&p, 1, &o, &set);
            CHECK(s == HAY_ERR_UNKNOWN_NAME && set == NULL,
                  "algo '%s' on %s: %s", unknown[i], hay_backend_name(o.backend),
                  hay_strerror(s));
        }
    }
    hay_compile_opts_init(&o);
    o.algo = "auto";
    set = compile_or_null(&p, 1, &o);

    hay_scratch *scr = TU_NOT_NULL;
    CHECK_ST(hay_scratch_create(NULL, &scr), HAY_ERR_INVALID, "scratch for NULL");
    CHECK(scr == NULL, "scratch *out not NULL after an error");
    CHECK_ST(hay_scratch_create(set, NULL), HAY_ERR_INVALID, "scratch out NULL");
    scr = NULL;
    CHECK_ST(hay_scratch_create(set, &scr), HAY_OK, "scratch");

    uint64_t n = 7;
    const char *hay = "xxabcxx";
    CHECK_ST(hay_scan(NULL, scr, hay, 7, NULL, count_cb, &n), HAY_ERR_INVALID, "scan set NULL");
    CHECK_ST(hay_scan(set, NULL, hay, 7, NULL, count_cb, &n), HAY_ERR_INVALID, "scan scratch NULL");
    CHECK_ST(hay_scan(set, scr, hay, 7, NULL, NULL, &n), HAY_ERR_INVALID, "scan callback NULL");
    CHECK_ST(hay_scan(set, scr, NULL, 7, NULL, count_cb, &n), HAY_ERR_INVALID, "scan data NULL");
    CHECK(n == 7, "callback called on an invalid scan");
    n = 0;
    CHECK_ST(hay_scan(set, scr, NULL, 0, NULL, count_cb, &n), HAY_OK, "scan NULL, 0");
    CHECK_ST(hay_scan(set, scr, hay, 0, NULL, count_cb, &n), HAY_OK, "scan len 0");
    CHECK(n == 0, "matches in an empty haystack");
    CHECK_ST(hay_scan(set, scr, hay, 7, NULL, count_cb, &n), HAY_OK, "scan opts NULL");
    CHECK(n == 1, "scan with default opts found %" PRIu64, n);

    n = 7;
    CHECK_ST(hay_scan_count(NULL, scr, hay, 7, NULL, &n), HAY_ERR_INVALID, "count set NULL");
    CHECK(n == 0, "count not zeroed on error");
    n = 7;
    CHECK_ST(hay_scan_count(set, NULL, hay, 7, NULL, &n), HAY_ERR_INVALID, "count scratch NULL");
    CHECK_ST(hay_scan_count(set, scr, NULL, 7, NULL, &n), HAY_ERR_INVALID, "count data NULL");
    CHECK_ST(hay_scan_count(set, scr, hay, 7, NULL, NULL), HAY_ERR_INVALID, "count out NULL");
    CHECK_ST(hay_scan_count(set, scr, NULL, 0, NULL, &n), HAY_OK, "count NULL, 0");
    CHECK(n == 0, "count of nothing %" PRIu64, n);
    CHECK_ST(hay_scan_count(set, scr, hay, 7, NULL, &n), HAY_OK, "count opts NULL");
    CHECK(n == 1, "count with default opts %" PRIu64, n);

    hay_scan_opts so;
    memset(&so, 0xab, sizeof so);
    hay_scan_opts_init(&so);
    CHECK(so.threads == 0 && so.schedule == HAY_SCHEDULE_DYNAMIC &&
          so.chunk_size == 0 && so.progress == NULL, "hay_scan_opts_init defaults");

    hay_patterns_info info;
    CHECK_ST(hay_patterns_info_get(NULL, &info), HAY_ERR_INVALID, "info of NULL");
    CHECK_ST(hay_patterns_info_get(set, NULL), HAY_ERR_INVALID, "info to NULL");

    hay_stream *st = TU_NOT_NULL;
    CHECK_ST(hay_stream_open(NULL, count_cb, &n, &st), HAY_ERR_INVALID, "stream set NULL");
    CHECK(st == NULL, "stream *out not NULL after an error");
    CHECK_ST(hay_stream_open(set, NULL, &n, &st), HAY_ERR_INVALID, "stream callback NULL");
    CHECK_ST(hay_stream_open(set, count_cb, &n, NULL), HAY_ERR_INVALID, "stream out NULL");
    CHECK_ST(hay_stream_write(NULL, "abc", 3), HAY_ERR_INVALID, "write to NULL");
    CHECK_ST(hay_stream_open(set, count_cb, &n, &st), HAY_OK, "stream");
    CHECK_ST(hay_stream_write(st, NULL, 3), HAY_ERR_INVALID, "write NULL data");
    CHECK_ST(hay_stream_write(st, NULL, 0), HAY_OK, "write NULL, 0");
    CHECK_ST(hay_stream_close(st), HAY_OK, "close unused stream");
    hay_stream_free(st);

    hay_scratch_free(scr);
    hay_patterns_free(set);
}

/* ---- limits --------------------------------------------------------------------- */

static void test_limits(void)
{
    size_t m = HAY_MAX_PATTERN_LEN;
    uint8_t *big = malloc(m + 1);
    tu_rng r = { 7 };
    for (size_t i = 0; i <= m; i++)
        big[i] = (uint8_t)('a' + tu_below(&r, 26));
    size_t len = 3 * m;
    uint8_t *hay = malloc(len);
    memset(hay, '.', len);
    memcpy(hay + 5, big, m);
    memcpy(hay + len - m, big, m);
    hay_pattern too = { big, m + 1 }, max = { big, m };
    hay_pattern pair[2] = { { "abc", 3 }, { big, m + 1 } };
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        hay_patterns *set = TU_NOT_NULL;
        hay_status s = tu_compile(e, &too, 1, false, &set);
        CHECK(s == HAY_ERR_TOO_LARGE && set == NULL,
              "%s: pattern of HAY_MAX_PATTERN_LEN + 1 bytes: %s", e->label,
              hay_strerror(s));
        if (e->multi) {
            s = tu_compile(e, pair, 2, false, &set);
            CHECK(s == HAY_ERR_TOO_LARGE, "%s: second pattern too long: %s",
                  e->label, hay_strerror(s));
        }
        for (int caseless = 0; caseless < 2; caseless++) {
            set = NULL;
            s = tu_compile(e, &max, 1, caseless, &set);
            if (!CHECK(s == HAY_OK, "%s: pattern of HAY_MAX_PATTERN_LEN bytes: %s",
                       e->label, hay_strerror(s)))
                continue;
            hay_scratch *scr = NULL;
            hay_scratch_create(set, &scr);
            tu_mlist exp = { 0 };
            tu_mlist_push(&exp, 0, 5, 5 + m);
            tu_mlist_push(&exp, 0, len - m, len);
            for (unsigned t = 1; t <= 2; t++) {
                hay_scan_opts o = tu_scan_opts(t, t == 1 ? 0 : m / 3, HAY_SCHEDULE_DYNAMIC);
                bool ok;
                char why[TU_WHY_CAP];
                s = tu_scan_checked(set, scr, hay, len, &o, &exp, &max, 1, &ok, why);
                CHECK(s == HAY_OK && ok, "%s: scan for the longest pattern, %u "
                      "threads: %s; %s", e->label, t, hay_strerror(s), why);
            }
            /* and through a stream, in pieces shorter than the pattern */
            tu_checker ck;
            tu_checker_init(&ck, &exp, 0, &max, 1);
            hay_stream *st = NULL;
            s = hay_stream_open(set, tu_check_cb, &ck, &st);
            bool ok = s == HAY_OK;
            for (size_t at = 0; ok && at < len; at += 4099)
                ok = hay_stream_write(st, hay + at, len - at < 4099 ? len - at : 4099)
                     == HAY_OK;
            ok = hay_stream_close(st) == HAY_OK && ok;
            hay_stream_free(st);
            bool agree = tu_checker_done(&ck, false);
            CHECK(ok && agree, "%s: stream for the longest pattern: %s; %s",
                  e->label, ok ? "calls ok" : "a call failed",
                  agree ? "ok" : ck.err);
            tu_checker_free(&ck);
            tu_mlist_free(&exp);
            hay_scratch_free(scr);
            hay_patterns_free(set);
        }
    }
    free(hay);
    free(big);

    /* More than HAY_MAX_PATTERNS patterns. */
    size_t n = (size_t)HAY_MAX_PATTERNS + 1;
    hay_pattern *many = malloc(n * sizeof *many);
    for (size_t i = 0; i < n; i++) {
        many[i].data = "a";
        many[i].len = 1;
    }
    hay_patterns *set = TU_NOT_NULL;
    hay_status s = hay_patterns_compile(many, n, NULL, &set);
    CHECK(s == HAY_ERR_TOO_LARGE && set == NULL,
          "HAY_MAX_PATTERNS + 1 patterns: %s", hay_strerror(s));
    free(many);
}

/* ---- info ------------------------------------------------------------------------ */

static void test_info(void)
{
    hay_pattern p[3] = { { "abc", 3 }, { "de", 2 }, { "fghij", 5 } };
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        size_t n = e->multi ? 3 : 1;
        hay_patterns *set = NULL;
        if (tu_compile(e, p, n, false, &set) != HAY_OK)
            continue;
        hay_patterns_info info;
        CHECK_ST(hay_patterns_info_get(set, &info), HAY_OK, "info");
        /* Backend auto reports itself; the CPU engine it chose is info.algo. */
        CHECK(info.backend == e->backend, "%s: info.backend %d", e->label,
              (int)info.backend);
        CHECK(info.algo && (!e->algo || strcmp(info.algo, e->algo) == 0),
              "%s: info.algo %s", e->label, info.algo ? info.algo : "(null)");
        if (!e->algo && info.algo) {
            /* auto reports one of the listed algorithms, and why */
            bool listed = false;
            const char *name;
            for (size_t k = 0; hay_algo_name(HAY_BACKEND_CPU, k, &name) == HAY_OK; k++)
                listed = listed || strcmp(name, info.algo) == 0;
            CHECK(listed, "auto chose unlisted algorithm %s", info.algo);
            CHECK(info.reason && *info.reason, "auto gave no reason");
        }
        CHECK(info.reason != NULL, "%s: info.reason NULL", e->label);
        CHECK(info.count == n, "%s: info.count %zu", e->label, info.count);
        CHECK(info.min_len == (n == 1 ? 3 : 2) && info.max_len == (n == 1 ? 3 : 5),
              "%s: min_len %zu max_len %zu", e->label, info.min_len, info.max_len);
        CHECK(info.memory > 0, "%s: memory 0", e->label);
        CHECK(info.compile_seconds >= 0, "%s: compile_seconds %g", e->label,
              info.compile_seconds);
        hay_patterns_free(set);
    }
}

/* ---- the GPU backends where they cannot run --------------------------------------------- */

static void test_gpu_backends_fail_cleanly(void)
{
    static const hay_backend gpus[] = { HAY_BACKEND_CUDA, HAY_BACKEND_OPENCL };
    hay_pattern p = { "abc", 3 };
    for (size_t i = 0; i < 2; i++) {
        hay_status av = hay_backend_available(gpus[i]);
        CHECK(av == HAY_OK || av == HAY_ERR_NO_BACKEND || av == HAY_ERR_NO_DEVICE,
              "%s available: %s", hay_backend_name(gpus[i]), hay_strerror(av));
        int count = -1;
        hay_status dc = hay_device_count(gpus[i], &count);
        CHECK(av == HAY_OK ? dc == HAY_OK && count > 0 : dc == av && count == 0,
              "%s: device count %s, %d (available: %s)", hay_backend_name(gpus[i]),
              hay_strerror(dc), count, hay_strerror(av));
        char buf[128];
        hay_status ds = hay_device_describe(gpus[i], 0, buf, sizeof buf);
        CHECK(av == HAY_OK ? ds == HAY_OK : ds == av,
              "%s: describe %s (available: %s)", hay_backend_name(gpus[i]),
              hay_strerror(ds), hay_strerror(av));

        /* Compiling for it: the availability status, or (device present)
         * success or HAY_ERR_UNSUPPORTED; never a half-made set. */
        const char *algos[3] = { NULL, "ac", "naive" };
        for (size_t k = 0; k < 3; k++) {
            hay_compile_opts o;
            hay_compile_opts_init(&o);
            o.backend = gpus[i];
            o.algo = algos[k];
            hay_patterns *set = TU_NOT_NULL;
            hay_status s = hay_patterns_compile(&p, 1, &o, &set);
            if (av != HAY_OK) {
                CHECK(s == av && set == NULL, "compile for %s (%s): %s, want %s",
                      hay_backend_name(gpus[i]), algos[k] ? algos[k] : "auto",
                      hay_strerror(s), hay_strerror(av));
            } else {
                CHECK((s == HAY_OK) == (set != NULL) &&
                      (s == HAY_OK || s == HAY_ERR_UNSUPPORTED ||
                       s == HAY_ERR_UNKNOWN_NAME),
                      "compile for %s (%s): %s", hay_backend_name(gpus[i]),
                      algos[k] ? algos[k] : "auto", hay_strerror(s));
                hay_patterns_free(set);
            }
        }
        printf("backend %s: %s\n", hay_backend_name(gpus[i]), hay_strerror(av));
    }
}

/* ---- chunk sizes and thread counts at their extremes ------------------------------------ */

static void test_extreme_opts(void)
{
    size_t len = 50000;
    uint8_t *data = malloc(len);
    tu_rng r = { 99 };
    for (size_t i = 0; i < len; i++)
        data[i] = (uint8_t)('a' + tu_below(&r, 3));
    hay_pattern p[2] = { { "abca", 4 }, { "cc", 2 } };
    static const size_t chunks[] = { 1, 3, 4095, 1u << 20, (size_t)1 << 40,
                                     (size_t)1 << 62, SIZE_MAX / 4, SIZE_MAX / 2,
                                     SIZE_MAX - 1, SIZE_MAX };
    static const unsigned threads[] = { 0, 1, 2, 3, 16, 64 };
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        size_t n = e->multi ? 2 : 1;
        hay_patterns *set;
        hay_scratch *scr;
        if (!tu_set_and_scratch(e, p, n, &set, &scr))
            continue;
        tu_mlist exp = { 0 };
        tu_oracle(data, len, p, n, false, &exp);
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
                for (int sch = 0; sch < 2; sch++) {
                    if (chunks[c] < 16 && threads[t] != 2)
                        continue;   /* tiny chunks: slow, one setting is enough */
                    if (threads[t] > 3 && chunks[c] != 4095)
                        continue;   /* oversubscribed: one setting */
                    hay_scan_opts o = tu_scan_opts(
                        threads[t], chunks[c], sch ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC);
                    bool ok;
                    char why[TU_WHY_CAP];
                    hay_status s = tu_scan_checked(set, scr, data, len, &o, &exp, p, n, &ok, why);
                    CHECK(s == HAY_OK && ok, "%s chunk_size %zu threads %u %s: "
                          "scan %s; %s", e->label, chunks[c], threads[t],
                          sch ? "static" : "dynamic", hay_strerror(s), why);
                    uint64_t cnt = 0;
                    s = hay_scan_count(set, scr, data, len, &o, &cnt);
                    CHECK(s == HAY_OK && cnt == exp.n, "%s chunk_size %zu threads %u "
                          "%s: count %s, %" PRIu64 ", want %zu", e->label, chunks[c],
                          threads[t], sch ? "static" : "dynamic", hay_strerror(s),
                          cnt, exp.n);
                }
        tu_mlist_free(&exp);
        hay_scratch_free(scr);
        hay_patterns_free(set);
    }
    free(data);
}

/* ---- progress ---------------------------------------------------------------------------- */

typedef struct progress_ctx {
    uint64_t calls, last, total;
    bool backwards, over, wrong_thread, total_changed;
    pthread_t caller;
} progress_ctx;

static void progress_cb(uint64_t done, uint64_t total, void *ctx)
{
    progress_ctx *p = ctx;
    if (!pthread_equal(pthread_self(), p->caller))
        p->wrong_thread = true;
    if (p->calls && total != p->total)
        p->total_changed = true;
    if (done < p->last)
        p->backwards = true;
    if (done > total)
        p->over = true;
    p->total = total;
    p->last = done;
    p->calls++;
}

static void test_progress(void)
{
    size_t len = (size_t)5 << 20;
    uint8_t *data = calloc(len, 1);
    memcpy(data + len / 2, "abc", 3);
    hay_pattern p = { "abc", 3 };
    hay_patterns *set = compile_or_null(&p, 1, NULL);
    hay_scratch *scr = NULL;
    hay_scratch_create(set, &scr);
    for (int mode = 0; mode < 2; mode++)
        for (unsigned t = 1; t <= 3; t++)
            for (int sch = 0; sch < 2; sch++) {
                for (int chunked = 0; chunked < 2; chunked++) {
                    hay_scan_opts o = tu_scan_opts(
                        t, chunked ? 65536 : 0, sch ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC);
                    progress_ctx pc = { 0, 0, 0, false, false, false, false,
                                        pthread_self() };
                    o.progress = progress_cb;
                    o.progress_ctx = &pc;
                    uint64_t n = 0;
                    hay_status s = mode
                        ? hay_scan(set, scr, data, len, &o, count_cb, &n)
                        : hay_scan_count(set, scr, data, len, &o, &n);
                    CHECK(s == HAY_OK && n == 1 && pc.calls > 0 && pc.last == len &&
                          pc.total == len && !pc.backwards && !pc.over &&
                          !pc.wrong_thread && !pc.total_changed,
                          "progress of %s, threads %u %s chunk %zu: %s, %" PRIu64
                          " matches, %" PRIu64 " calls, last %" PRIu64 "/%" PRIu64
                          "%s%s%s", mode ? "scan" : "count", t,
                          sch ? "static" : "dynamic", o.chunk_size,
                          hay_strerror(s), n, pc.calls, pc.last, pc.total,
                          pc.backwards ? ", went backwards" : "",
                          pc.over ? ", done > total" : "",
                          pc.wrong_thread ? ", from another thread" : "");
                }
            }
    hay_scratch_free(scr);
    hay_patterns_free(set);
    free(data);
}

/* ---- one set, several threads ---------------------------------------------------------------- */

typedef struct share_job {
    const hay_patterns *set;
    const uint8_t *hay;
    size_t len;
    const tu_mlist *exp;
    const hay_pattern *p;
    size_t n;
    unsigned threads;
    bool ok;
    char err[600];
} share_job;

static void *share_worker(void *arg)
{
    share_job *j = arg;
    hay_scratch *scr = NULL;
    j->ok = hay_scratch_create(j->set, &scr) == HAY_OK;
    for (int rep = 0; rep < 20 && j->ok; rep++) {
        hay_scan_opts o =
            tu_scan_opts(j->threads, j->threads > 1 ? 1000 : 0, HAY_SCHEDULE_DYNAMIC);
        bool agree;
        char why[TU_WHY_CAP];
        hay_status s = tu_scan_checked(j->set, scr, j->hay, j->len, &o, j->exp, j->p, j->n, &agree,
                                    why);
        j->ok = s == HAY_OK && agree;
        if (!j->ok)
            snprintf(j->err, sizeof j->err, "%s; %s", hay_strerror(s), why);
        uint64_t c = 0;
        s = hay_scan_count(j->set, scr, j->hay, j->len, &o, &c);
        if (j->ok && (s != HAY_OK || c != j->exp->n)) {
            j->ok = false;
            snprintf(j->err, sizeof j->err, "count %s %" PRIu64, hay_strerror(s), c);
        }
    }
    hay_scratch_free(scr);
    return NULL;
}

static void test_shared_set(void)
{
    size_t len = 100000;
    uint8_t *hay = malloc(len);
    tu_rng r = { 11 };
    for (size_t i = 0; i < len; i++)
        hay[i] = (uint8_t)('a' + tu_below(&r, 4));
    hay_pattern p[3] = { { "abcd", 4 }, { "dd", 2 }, { "cab", 3 } };
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        size_t n = e->multi ? 3 : 1;
        hay_patterns *set = NULL;
        if (tu_compile(e, p, n, false, &set) != HAY_OK)
            continue;
        tu_mlist exp = { 0 };
        tu_oracle(hay, len, p, n, false, &exp);
        share_job jobs[4];
        pthread_t th[4];
        for (int k = 0; k < 4; k++) {
            share_job j = { set, hay, len, &exp, p, n, (unsigned)(k % 2 + 1), false, "" };
            jobs[k] = j;
            pthread_create(&th[k], NULL, share_worker, &jobs[k]);
        }
        for (int k = 0; k < 4; k++) {
            pthread_join(th[k], NULL);
            CHECK(jobs[k].ok, "%s shared by 4 threads, thread %d: %s", e->label, k,
                  jobs[k].err);
        }
        tu_mlist_free(&exp);
        hay_patterns_free(set);
    }
    free(hay);
}

/* A scratch serves any set made with the same allocator. */
static void test_scratch_reuse(void)
{
    hay_pattern a = { "abc", 3 }, b[2] = { { "xyz", 3 }, { "zz", 2 } };
    hay_patterns *sa = compile_or_null(&a, 1, NULL);
    hay_patterns *sb = compile_or_null(b, 2, NULL);
    hay_scratch *scr = NULL;
    hay_scratch_create(sa, &scr);
    const char *hay = "abcxyzzabc";
    for (int rep = 0; rep < 3; rep++) {
        hay_scan_opts o = tu_scan_opts(2, 2, HAY_SCHEDULE_DYNAMIC);
        uint64_t na = 0, nb = 0;
        CHECK_ST(hay_scan(sa, scr, hay, 10, &o, count_cb, &na), HAY_OK, "reuse a");
        CHECK_ST(hay_scan(sb, scr, hay, 10, &o, count_cb, &nb), HAY_OK, "reuse b");
        CHECK(na == 2 && nb == 2, "scratch reused: %" PRIu64 " and %" PRIu64
              " matches, want 2 and 2", na, nb);
    }
    hay_scratch_free(scr);
    hay_patterns_free(sa);
    hay_patterns_free(sb);
}

int main(void)
{
    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    struct { const char *name; void (*fn)(void); } tests[] = {
        { "names", test_names },
        { "strerror", test_strerror },
        { "free(NULL)", test_free_null },
        { "invalid arguments", test_invalid_args },
        { "limits", test_limits },
        { "info", test_info },
        { "gpu backends", test_gpu_backends_fail_cleanly },
        { "extreme options", test_extreme_opts },
        { "progress", test_progress },
        { "shared set", test_shared_set },
        { "scratch reuse", test_scratch_reuse },
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        double t0 = tu_now();
        unsigned long long f0 = tu_failed;
        tests[i].fn();
        tu_part_report(tests[i].name, t0, f0);
    }
    return tu_finish();
}
