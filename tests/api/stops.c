/*
 * stops.c - callback stops through the public API, on every CPU engine: a
 * callback that asks to stop after k matches gets HAY_STOPPED, no call
 * after the one that asked, every call on the calling thread and ends in
 * order; serial and parallel scans (both schedules, chunks from 1 byte),
 * sparse matches and dense ones (duplicates share every end, so the
 * chunks' buffers overflow and the rest is rescanned), the dense input's
 * full list also against the oracle.
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

/* ---- stops and the calling thread ------------------------------------------------------ */

typedef struct stop_ctx {
    uint64_t calls, stop_at;
    uint64_t last_end;
    bool late, wrong_thread, disorder;
    pthread_t caller;
} stop_ctx;

static int stop_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start;
    stop_ctx *c = ctx;
    if (!pthread_equal(pthread_self(), c->caller))
        c->wrong_thread = true;
    if (c->stop_at && c->calls >= c->stop_at)
        c->late = true;
    if (end < c->last_end)
        c->disorder = true;
    c->last_end = end;
    c->calls++;
    return c->stop_at && c->calls >= c->stop_at;
}

/*
 * Stops after k matches in data, for each configuration: HAY_STOPPED, no
 * call after the one that asked to stop, every call on this thread.
 */
static void stops_on(const char *what, const hay_patterns *set, hay_scratch *scr,
                     const uint8_t *data, uint64_t len, uint64_t total)
{
    static const struct { unsigned t; hay_schedule s; size_t chunk; } cfg[] = {
        { 1, HAY_SCHEDULE_DYNAMIC, 0 },   { 2, HAY_SCHEDULE_DYNAMIC, 0 },
        { 2, HAY_SCHEDULE_STATIC, 0 },    { 3, HAY_SCHEDULE_DYNAMIC, 1 },
        { 2, HAY_SCHEDULE_DYNAMIC, 4096 }, { 3, HAY_SCHEDULE_STATIC, 999 },
        { 4, HAY_SCHEDULE_DYNAMIC, 65536 }, { 0, HAY_SCHEDULE_DYNAMIC, 0 },
        { 2, HAY_SCHEDULE_DYNAMIC, 200000 },
    };
    uint64_t ks[] = { 1, total / 2 + 1, total };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        if (cfg[c].chunk == 1 && len > (1u << 16))
            continue;   /* 1-byte chunks of a large input: only slow */
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            if (ks[i] == 0 || ks[i] > total || (i && ks[i] == ks[i - 1]))
                continue;
            hay_scan_opts o = tu_scan_opts(cfg[c].t, cfg[c].chunk, cfg[c].s);
            stop_ctx x = { 0, ks[i], 0, false, false, false, pthread_self() };
            hay_status s = hay_scan(set, scr, data, len, &o, stop_cb, &x);
            CHECK(s == HAY_STOPPED && x.calls == ks[i] && !x.late &&
                  !x.wrong_thread && !x.disorder,
                  "%s: stop at %" PRIu64 " of %" PRIu64 ", threads %u %s chunk "
                  "%zu: %s, %" PRIu64 " calls%s%s%s", what, ks[i], total,
                  cfg[c].t, cfg[c].s == HAY_SCHEDULE_STATIC ? "static" : "dynamic",
                  cfg[c].chunk, hay_strerror(s), x.calls,
                  x.late ? ", called after the stop" : "",
                  x.wrong_thread ? ", called from another thread" : "",
                  x.disorder ? ", ends out of order" : "");
        }
        /* No stop: all matches, all on this thread. */
        hay_scan_opts o = tu_scan_opts(cfg[c].t, cfg[c].chunk, cfg[c].s);
        stop_ctx x = { 0, 0, 0, false, false, false, pthread_self() };
        hay_status s = hay_scan(set, scr, data, len, &o, stop_cb, &x);
        CHECK(s == HAY_OK && x.calls == total && !x.wrong_thread && !x.disorder,
              "%s: full scan threads %u chunk %zu: %s, %" PRIu64 " of %" PRIu64
              " matches%s%s", what, cfg[c].t, cfg[c].chunk, hay_strerror(s),
              x.calls, total, x.wrong_thread ? ", called from another thread" : "",
              x.disorder ? ", ends out of order" : "");
    }
}

static void test_stops(void)
{
    /* Sparse: a needle every 997 bytes of 4.5 MiB (above the size where the
     * default options go parallel). */
    size_t len = (size_t)9 << 19;
    uint8_t *data = malloc(len);
    memset(data, 'x', len);
    uint64_t total = 0;
    for (size_t at = 10; at + 6 <= len; at += 997, total++)
        memcpy(data + at, "needle", 6);
    hay_pattern p[2] = { { "needle", 6 }, { "eedl", 4 } };
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        size_t n = e->multi ? 2 : 1;
        hay_patterns *set;
        hay_scratch *scr;
        if (!tu_set_and_scratch(e, p, n, &set, &scr))
            continue;
        char what[64];
        snprintf(what, sizeof what, "sparse, %s", e->label);
        stops_on(what, set, scr, data, len, total * n);
        hay_scratch_free(scr);
        hay_patterns_free(set);
    }
    free(data);

    /* Dense: every byte matches, duplicates share every end, so chunk
     * buffers overflow (the rest of such a chunk is rescanned serially). */
    len = 300000;
    data = malloc(len);
    memset(data, 'a', len);
    hay_pattern d[3] = { { "a", 1 }, { "a", 1 }, { "aa", 2 } };
    for (size_t i = 0; i < nengines; i++) {
        const tu_engine *e = &engines[i];
        if (!e->multi || (e->algo && strcmp(e->algo, "naive") == 0))
            continue;
        hay_patterns *set;
        hay_scratch *scr;
        if (!tu_set_and_scratch(e, d, 3, &set, &scr))
            continue;
        char what[64];
        snprintf(what, sizeof what, "dense, %s", e->label);
        stops_on(what, set, scr, data, len, 3 * (uint64_t)len - 1);
        /* and the full list against the oracle */
        tu_mlist exp = { 0 };
        tu_oracle(data, len, d, 3, false, &exp);
        /* (The dynamic schedule's ring holds 4 buffers a thread: chunks
         * of 25,000 and 23,000 bytes, each overflowing, go round it.) */
        static const struct { unsigned t; size_t chunk; } dc[] = {
            { 2, 150000 }, { 3, 100000 }, { 2, 25000 }, { 3, 23000 },
        };
        for (size_t c = 0; c < sizeof dc / sizeof dc[0]; c++)
            for (int sch = 0; sch < 2; sch++) {
                unsigned t = dc[c].t;
                hay_scan_opts o = tu_scan_opts(t, dc[c].chunk,
                                            sch ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC);
                bool ok;
                char why[TU_WHY_CAP];
                hay_status s = tu_scan_checked(set, scr, data, len, &o, &exp, d, 3, &ok, why);
                CHECK(s == HAY_OK && ok, "dense %s threads %u %s: %s; %s", e->label,
                      t, sch ? "static" : "dynamic", hay_strerror(s), why);
            }
        tu_mlist_free(&exp);
        hay_scratch_free(scr);
        hay_patterns_free(set);
    }
    free(data);
}

int main(void)
{
    nengines = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    test_stops();
    return tu_finish();
}
