/*
 * parts.c - hay_scan_opts.on_part, the caller's pass over the haystack
 * beside the scan: on the CPU backend (and auto scanning on the CPU) the
 * parts handed over cover [0, len) exactly once, each before any match
 * ending in it reaches the callback; per match and in batches; serial,
 * parallel (both schedules, chunks that go round the ring of buffers, a
 * buffer that overflows), and stopped scans, which may leave parts out but
 * never hand one over twice.
 */
#include "testutil.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seen {
    pthread_mutex_t lock;
    uint8_t *marks;        /* per byte: how many parts held it */
    uint64_t len, parts, matches, stop_at;
    bool bad_range, early;   /* a part out of [0, len); a match before its part */
} seen;

static void on_part(const void *data, uint64_t start, uint64_t end, void *ctx)
{
    seen *s = ctx;
    (void)data;
    pthread_mutex_lock(&s->lock);
    s->parts++;
    if (start >= end || end > s->len)
        s->bad_range = true;
    else
        for (uint64_t i = start; i < end; i++)
            s->marks[i]++;
    pthread_mutex_unlock(&s->lock);
}

/* A match ending at `end`: its last byte's part was handed over. */
static int match_seen(seen *s, uint64_t end)
{
    pthread_mutex_lock(&s->lock);
    if (end == 0 || !s->marks[end - 1])
        s->early = true;
    s->matches++;
    bool stop = s->stop_at && s->matches >= s->stop_at;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id;
    (void)start;
    return match_seen(ctx, end);
}

static int on_batch(const hay_match *m, size_t n, void *ctx)
{
    for (size_t i = 0; i < n; i++)
        if (match_seen(ctx, m[i].end))
            return 1;
    return 0;
}

typedef struct cfg {
    unsigned threads;
    hay_schedule schedule;
    size_t chunk;
} cfg;

/* One scan; a full one (stop_at 0) must hand over every byte once. */
static void run(const char *what, const hay_patterns *set, hay_scratch *scr,
                const uint8_t *data, uint64_t len, const cfg *c, bool batch,
                uint64_t stop_at, uint64_t total)
{
    seen s = { .len = len, .stop_at = stop_at };
    pthread_mutex_init(&s.lock, NULL);
    s.marks = calloc(len ? len : 1, 1);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = c->threads;
    o.schedule = c->schedule;
    o.chunk_size = c->chunk;
    o.on_part = on_part;
    o.part_ctx = &s;
    hay_status st = batch ? hay_scan_batch(set, scr, data, len, &o, on_batch, &s)
                          : hay_scan(set, scr, data, len, &o, on_match, &s);
    uint64_t once = 0, twice = 0;
    for (uint64_t i = 0; i < len; i++) {
        once += s.marks[i] == 1;
        twice += s.marks[i] > 1;
    }
    char where[160];
    snprintf(where, sizeof where, "%s, %s, threads %u %s chunk %zu, stop at %" PRIu64, what,
             batch ? "batch" : "per match", c->threads,
             c->schedule == HAY_SCHEDULE_STATIC ? "static" : "dynamic", c->chunk, stop_at);
    CHECK(st == (stop_at ? HAY_STOPPED : HAY_OK), "%s: %s", where, hay_strerror(st));
    CHECK(!s.bad_range && twice == 0, "%s: %" PRIu64 " bytes in two parts%s", where, twice,
          s.bad_range ? ", a part out of range" : "");
    CHECK(!s.early, "%s: a match before its part", where);
    if (!stop_at)
        CHECK(once == len && s.matches == total,
              "%s: %" PRIu64 " of %" PRIu64 " bytes in a part, %" PRIu64 " of %" PRIu64
              " matches", where, once, len, s.matches, total);
    free(s.marks);
    pthread_mutex_destroy(&s.lock);
}

static void scans(const char *what, const hay_patterns *set, const uint8_t *data, uint64_t len,
                  uint64_t total)
{
    static const cfg cfgs[] = {
        { 1, HAY_SCHEDULE_DYNAMIC, 0 },     { 1, HAY_SCHEDULE_DYNAMIC, 4096 },
        { 2, HAY_SCHEDULE_DYNAMIC, 0 },     { 2, HAY_SCHEDULE_DYNAMIC, 4096 },
        { 3, HAY_SCHEDULE_DYNAMIC, 999 },   { 4, HAY_SCHEDULE_DYNAMIC, 25000 },
        { 2, HAY_SCHEDULE_STATIC, 0 },      { 3, HAY_SCHEDULE_STATIC, 5000 },
        { 0, HAY_SCHEDULE_DYNAMIC, 0 },
    };
    hay_scratch *scr = NULL;
    CHECK_ST(hay_scratch_create(set, &scr), HAY_OK, "scratch");
    if (!scr)
        return;
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
        for (int batch = 0; batch < 2; batch++) {
            run(what, set, scr, data, len, &cfgs[c], batch, 0, total);
            if (total > 2)
                run(what, set, scr, data, len, &cfgs[c], batch, total / 2, total);
        }
    hay_scratch_free(scr);
}

static uint64_t count(const hay_patterns *set, const uint8_t *data, uint64_t len)
{
    hay_scratch *scr = NULL;
    uint64_t n = 0;
    if (hay_scratch_create(set, &scr) == HAY_OK)
        hay_scan_count(set, scr, data, len, NULL, &n);
    hay_scratch_free(scr);
    return n;
}

int main(void)
{
    /* Sparse text over 6 MiB (above the size that goes parallel without a
     * chunk size), and dense 'a's whose chunk buffers overflow. */
    uint64_t len = 6u << 20;
    uint8_t *text = malloc(len);
    tu_rng r = { 7 };
    for (uint64_t i = 0; i < len; i++)
        text[i] = (uint8_t)('a' + tu_below(&r, 4));
    uint64_t dlen = 400000;
    uint8_t *dense = malloc(dlen);
    memset(dense, 'a', dlen);
    hay_pattern sparse[2] = { { "abcdab", 6 }, { "ddc", 3 } };
    hay_pattern many[2] = { { "a", 1 }, { "aa", 2 } };
    static const hay_backend backends[] = { HAY_BACKEND_CPU, HAY_BACKEND_AUTO };
    for (size_t b = 0; b < 2; b++) {
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.backend = backends[b];
        const char *name = b ? "auto" : "cpu";
        hay_patterns *set = NULL;
        char what[64];
        if (hay_patterns_compile(sparse, 2, &co, &set) == HAY_OK) {
            snprintf(what, sizeof what, "%s, sparse", name);
            scans(what, set, text, len, count(set, text, len));
            snprintf(what, sizeof what, "%s, sparse, 100 bytes", name);
            scans(what, set, text, 100, count(set, text, 100));
        } else {
            CHECK(b == 1, "%s: the sparse set does not compile", name);
        }
        hay_patterns_free(set);
        set = NULL;
        if (hay_patterns_compile(many, 2, &co, &set) == HAY_OK) {
            snprintf(what, sizeof what, "%s, dense", name);
            scans(what, set, dense, dlen, count(set, dense, dlen));
        }
        hay_patterns_free(set);
    }
    free(text);
    free(dense);
    return tu_finish();
}
