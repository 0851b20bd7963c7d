/*
 * cuda_overflow.c - the plan of an overflowing CUDA list piece
 * (src/cuda/overflow.h) against a host model of the device: matches per
 * end position in an array, the count, list and host operations checked
 * and counted.  Needs no device.  Checks:
 *   - every end with matches is handed over exactly once, in order of end,
 *     nothing skipped: lists of 1..cap matches that are exactly what the
 *     range holds; host runs only over end positions holding more than
 *     cap; never more than HAY_OVERFLOW_PARTS parts a round
 *   - the cost: with matches spread evenly, one count round and at most
 *     4/3 n / cap + 1 lists (halving until the halves fit made about
 *     3 n / cap round trips); results printed for the pipeline's tests'
 *     shapes (about 2.5 matches a byte, lists of 1 to 200,000)
 *   - lists of 1 and 3 slots, a cap one below the matches and equal to
 *     them, a single end position over the cap, dense clumps between
 *     empty stretches, and random shapes
 *   - an operation's error or stop ends the search at once with its
 *     status
 */
#include "testutil.h"

#include "../../src/cuda/overflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model: ends 1..w, at[e] matches ending at e. */
typedef struct model {
    const uint32_t *at;
    uint64_t w, cap;
    uint64_t done;          /* ends up to here handed over */
    uint64_t handed;        /* matches handed over */
    uint64_t rounds, lists, host, parts;
    uint64_t calls, stop_at;   /* stop_at: the call that stops (0: none) */
    hay_status stop_with;
    bool bad;
    char why[160];
} model;

static uint64_t sum(const model *m, uint64_t x, uint64_t y)
{
    uint64_t s = 0;
    for (uint64_t e = x + 1; e <= y; e++)
        s += m->at[e];
    return s;
}

static void fail(model *m, const char *what, uint64_t x, uint64_t y)
{
    if (!m->bad)
        snprintf(m->why, sizeof m->why, "%s at (%llu, %llu]", what, (unsigned long long)x,
                 (unsigned long long)y);
    m->bad = true;
}

/* Ends between what was handed over and x hold nothing (nothing skipped);
 * (x, y] comes next. */
static void advance(model *m, uint64_t x, uint64_t y)
{
    if (x < m->done || y <= x || y > m->w)
        fail(m, "out of order or out of range", x, y);
    else if (sum(m, m->done, x))
        fail(m, "matches skipped", m->done, x);
    if (y > m->done)
        m->done = y;
}

static hay_status stop_here(model *m)
{
    return ++m->calls == m->stop_at ? m->stop_with : HAY_OK;
}

static hay_status op_count(void *ctx, const uint64_t *b, unsigned k, uint64_t *c)
{
    model *m = ctx;
    m->rounds++;
    m->parts += k;
    if (k < 2 || k > HAY_OVERFLOW_PARTS)
        fail(m, "parts per round", b[0], b[k]);
    for (unsigned i = 0; i < k; i++) {
        if (b[i + 1] <= b[i] || b[i + 1] > m->w)
            fail(m, "empty or outside part", b[i], b[i + 1]);
        else
            c[i] = sum(m, b[i], b[i + 1]);
    }
    return stop_here(m);
}

static hay_status op_list(void *ctx, uint64_t x, uint64_t y, uint64_t n)
{
    model *m = ctx;
    m->lists++;
    advance(m, x, y);
    if (n < 1 || n > m->cap || n != sum(m, x, y))
        fail(m, "a list of the wrong size", x, y);
    m->handed += n;
    return stop_here(m);
}

static hay_status op_host(void *ctx, uint64_t x, uint64_t y)
{
    model *m = ctx;
    m->host++;
    advance(m, x, y);
    for (uint64_t e = x + 1; e <= y; e++)
        if (m->at[e] <= m->cap)
            fail(m, "the host given an end that fits a list", x, y);
    m->handed += sum(m, x, y);
    return stop_here(m);
}

/* The whole range (0, w] as one overflowing piece; checks the invariants
 * and returns the model for the cost checks. */
static model run(const uint32_t *at, uint64_t w, uint64_t cap, const char *what)
{
    model m;
    memset(&m, 0, sizeof m);
    m.at = at;
    m.w = w;
    m.cap = cap;
    uint64_t n = sum(&m, 0, w);
    hay_overflow_ops ops = { &m, op_count, op_list, op_host };
    hay_overflow_stats st;
    memset(&st, 0, sizeof st);
    hay_status s = hay_overflow_search(&ops, cap, 0, w, n, &st);
    CHECK(s == HAY_OK, "%s: %s", what, hay_strerror(s));
    CHECK(!m.bad, "%s (cap %llu): %s", what, (unsigned long long)cap, m.why);
    CHECK(m.handed == n && sum(&m, m.done, w) == 0, "%s (cap %llu): %llu of %llu matches",
          what, (unsigned long long)cap, (unsigned long long)m.handed,
          (unsigned long long)n);
    CHECK(st.rounds == m.rounds && st.lists == m.lists && st.host == m.host &&
              st.parts == m.parts,
          "%s: the stats differ from the calls", what);
    return m;
}

/* Matches spread evenly (the tests' dense random text): one round, lists
 * at least three quarters full. */
static void test_even(void)
{
    enum { W = 65536 };
    uint32_t *at = calloc(W + 1, sizeof *at);
    tu_rng r = { 5 };
    for (uint64_t e = 1; e <= W; e++)
        at[e] = (uint32_t)tu_below(&r, 5);   /* 2 a byte, 0..4 at an end */
    model whole;
    memset(&whole, 0, sizeof whole);
    whole.at = at;
    uint64_t n = sum(&whole, 0, W);
    static const uint64_t caps[] = { 200, 1000, 5000, 20000, 65536 };
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        model m = run(at, W, caps[i], "even");
        /* Parts of about a quarter list: lists fill to 3/4 at least. */
        uint64_t bound = 4 * n / (3 * caps[i]) + 1;
        uint64_t rounds = (n / caps[i] + 1) * 4 / HAY_OVERFLOW_PARTS + 1;
        printf("even, %llu matches over %u ends, cap %llu: %llu count round(s) of %llu "
               "parts, %llu lists (bound %llu), %llu host runs\n",
               (unsigned long long)n, W, (unsigned long long)caps[i],
               (unsigned long long)m.rounds, (unsigned long long)m.parts,
               (unsigned long long)m.lists, (unsigned long long)bound,
               (unsigned long long)m.host);
        CHECK(m.rounds <= rounds, "even, cap %llu: %llu rounds, want at most %llu",
              (unsigned long long)caps[i], (unsigned long long)m.rounds,
              (unsigned long long)rounds);
        CHECK(m.lists <= bound && m.host == 0, "even, cap %llu: %llu lists, %llu host runs",
              (unsigned long long)caps[i], (unsigned long long)m.lists,
              (unsigned long long)m.host);
    }
    free(at);
}

/* Lists of 1 and 3 slots, a cap one below the matches and equal to them. */
static void test_boundaries(void)
{
    enum { W = 3000 };
    uint32_t *at = calloc(W + 1, sizeof *at);
    tu_rng r = { 9 };
    for (uint64_t e = 1; e <= W; e++)
        at[e] = (uint32_t)tu_below(&r, 4);
    model whole;
    memset(&whole, 0, sizeof whole);
    whole.at = at;
    uint64_t n = sum(&whole, 0, W);
    for (uint64_t cap = 1; cap <= 3; cap++) {
        model m = run(at, W, cap, "tiny lists");
        uint64_t over = 0, fit = 0;
        for (uint64_t e = 1; e <= W; e++) {
            over += at[e] > cap;
            fit += at[e] && at[e] <= cap;
        }
        printf("cap %llu over %u ends (%llu matches): %llu rounds, %llu lists, %llu host "
               "runs (%llu ends over the cap)\n",
               (unsigned long long)cap, W, (unsigned long long)n,
               (unsigned long long)m.rounds, (unsigned long long)m.lists,
               (unsigned long long)m.host, (unsigned long long)over);
        CHECK((m.host >= 1) == (over > 0) && m.host <= over && m.lists <= fit,
              "cap %llu: %llu host runs, %llu lists", (unsigned long long)cap,
              (unsigned long long)m.host, (unsigned long long)m.lists);
    }
    /* One below the matches: two lists at most after one round; equal: one. */
    model m = run(at, W, n - 1, "cap n - 1");
    CHECK(m.rounds == 1 && m.lists == 2 && m.host == 0, "cap n - 1: %llu rounds, %llu lists",
          (unsigned long long)m.rounds, (unsigned long long)m.lists);
    m = run(at, W, n, "cap n");
    CHECK(m.rounds == 0 && m.lists == 1, "cap n: %llu rounds, %llu lists",
          (unsigned long long)m.rounds, (unsigned long long)m.lists);
    /* A single end with more than cap (duplicate patterns), alone and
     * among others. */
    uint32_t one[2] = { 0, 7 };
    m = run(one, 1, 3, "one end");
    CHECK(m.host == 1 && m.rounds == 0 && m.lists == 0, "one end: %llu host runs",
          (unsigned long long)m.host);
    memset(at, 0, (W + 1) * sizeof *at);
    at[1] = 2;
    at[1500] = 9;
    at[1501] = 9;
    at[1502] = 1;
    at[W] = 5;
    m = run(at, W, 4, "sparse with duplicates");
    CHECK(m.host >= 2 && m.host <= 3, "sparse with duplicates: %llu host runs (want 1500 "
          "and 1501, together or not, and %u)", (unsigned long long)m.host, W);
    free(at);
}

/* Clumps: dense stretches between empty ones, and random shapes. */
static void test_random(void)
{
    tu_rng r = { 77 };
    for (int t = 0; t < 300; t++) {
        uint64_t w = 1 + tu_below(&r, t < 150 ? 300 : 20000);
        uint32_t *at = calloc(w + 1, sizeof *at);
        unsigned shape = (unsigned)tu_below(&r, 3);
        for (uint64_t e = 1; e <= w; e++) {
            if (shape == 0)
                at[e] = (uint32_t)tu_below(&r, 3);
            else if (shape == 1)   /* clumps */
                at[e] = (e / 97) % 5 == 0 ? (uint32_t)tu_below(&r, 40) : 0;
            else   /* rare, heavy ends */
                at[e] = tu_below(&r, 50) == 0 ? (uint32_t)tu_below(&r, 200) : 0;
        }
        model whole;
        memset(&whole, 0, sizeof whole);
        whole.at = at;
        uint64_t n = sum(&whole, 0, w);
        uint64_t cap = 1 + tu_below(&r, t % 3 == 0 ? 4 : 100);
        char what[64];
        snprintf(what, sizeof what, "random %d (shape %u, %llu ends)", t, shape,
                 (unsigned long long)w);
        if (n > cap)
            run(at, w, cap, what);
        free(at);
    }
}

/* An op's error or stop: returned at once, no call after it. */
static void test_stop(void)
{
    enum { W = 5000 };
    uint32_t *at = calloc(W + 1, sizeof *at);
    for (uint64_t e = 1; e <= W; e++)
        at[e] = (uint32_t)(e % 3);
    model whole;
    memset(&whole, 0, sizeof whole);
    whole.at = at;
    uint64_t n = sum(&whole, 0, W);
    static const hay_status with[] = { HAY_STOPPED, HAY_ERR_DEVICE };
    for (size_t k = 0; k < 2; k++) {
        for (uint64_t at_call = 1; at_call <= 40; at_call += 13) {
            model m;
            memset(&m, 0, sizeof m);
            m.at = at;
            m.w = W;
            m.cap = 50;
            m.stop_at = at_call;
            m.stop_with = with[k];
            hay_overflow_ops ops = { &m, op_count, op_list, op_host };
            hay_overflow_stats st;
            memset(&st, 0, sizeof st);
            hay_status s = hay_overflow_search(&ops, 50, 0, W, n, &st);
            CHECK(s == with[k] && m.calls == at_call && !m.bad,
                  "stop at call %llu: %s after %llu calls", (unsigned long long)at_call,
                  hay_strerror(s), (unsigned long long)m.calls);
        }
    }
    free(at);
}

int main(void)
{
    test_even();
    test_boundaries();
    test_random();
    test_stop();
    return tu_finish();
}
