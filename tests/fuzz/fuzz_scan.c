/*
 * fuzz_scan.c - libFuzzer target for the scanning API.
 *
 * Input layout (all bytes optional; missing ones read as 0):
 *   byte 0  bit 0 caseless; bits 1-2 threads (1..4); bit 3 static schedule;
 *           bits 4-7 chunk size (index into chunk_sizes)
 *   byte 1  bits 0-2 pattern count - 1; bits 3-7 when to stop in the
 *           early-stop checks
 *   byte 2  stream split point, as a fraction of the haystack (x/255)
 *   byte 3  bits 0-3 stream write size after the split (0: one write);
 *           bits 4-7 misalignment of the haystack copy
 *   then one spec per pattern: a byte L; L < 0x80: 1 + L % 32 literal bytes
 *   follow; L >= 0x80: one byte O follows and the pattern is the haystack
 *   slice at O % len of length 1 + L % 32 (so that patterns do occur);
 *   the rest is the haystack.
 *
 * Every CPU algorithm that accepts the set (plus "auto") is compiled and its
 * hay_scan, hay_scan_count, hay_scan_marks, hay_scan_first, early stop and
 * streaming results are compared
 * with the "naive" algorithm and with the oracle below.  abort() on any
 * mismatch.
 */
#include "haystack.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATS 8

#define CHECK(c) do { if (!(c)) { \
    fprintf(stderr, "fuzz_scan: check failed at line %d: %s\n", __LINE__, #c); \
    abort(); } } while (0)

typedef struct match {
    uint32_t id;
    uint64_t start, end;
} match;

typedef struct mlist {
    match *m;
    size_t n, cap;
    size_t stop_at;     /* return non-zero on this match (1-based); 0 never */
    bool order_bad;     /* an end smaller than the previous one was seen */
} mlist;

static void push(mlist *l, uint32_t id, uint64_t s, uint64_t e)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        CHECK(l->m);
    }
    if (l->n && e < l->m[l->n - 1].end)
        l->order_bad = true;
    l->m[l->n].id = id;
    l->m[l->n].start = s;
    l->m[l->n].end = e;
    l->n++;
}

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    mlist *l = ctx;
    /* No callback may come after the one that asked to stop. */
    CHECK(l->stop_at == 0 || l->n < l->stop_at);
    push(l, id, start, end);
    return l->stop_at && l->n == l->stop_at;
}

static int cmp_match(const void *a, const void *b)
{
    const match *x = a, *y = b;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return 0;
}

static void sort_list(mlist *l)
{
    if (l->n)
        qsort(l->m, l->n, sizeof *l->m, cmp_match);
}

/* Field by field: struct padding is indeterminate. */
static bool same_prefix(const mlist *a, const mlist *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cmp_match(&a->m[i], &b->m[i]) != 0)
            return false;
    return true;
}

static bool same_list(const mlist *a, const mlist *b)
{
    return a->n == b->n && same_prefix(a, b, a->n);
}

static uint8_t fold(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

/* The oracle: every end position, every pattern, in order of end then id. */
static void oracle(const hay_pattern *p, size_t np, const uint8_t *h,
                   size_t len, bool caseless, mlist *out)
{
    for (size_t e = 1; e <= len; e++) {
        for (size_t i = 0; i < np; i++) {
            size_t m = p[i].len;
            if (m > e)
                continue;
            const uint8_t *a = h + e - m, *b = p[i].data;
            size_t k = 0;
            while (k < m && (caseless ? fold(a[k]) == fold(b[k]) : a[k] == b[k]))
                k++;
            if (k == m)
                push(out, (uint32_t)i, e - m, e);
        }
    }
}

static const size_t chunk_sizes[16] = { 0, 1, 2, 3, 4, 5, 7, 8,
                                        13, 16, 31, 64, 100, 256, 1000, 4096 };

typedef struct input {
    unsigned flags;
    hay_scan_opts opts;
    unsigned stop_sel;
    size_t split, step;
    hay_pattern pats[MAX_PATS];
    size_t np;
    const uint8_t *hay;
    size_t len;
} input;

/* Scans with the callback; checks the order and the offsets. */
static void run_scan(const input *in, const hay_patterns *set,
                     hay_scratch *scratch, size_t stop_at, mlist *out)
{
    memset(out, 0, sizeof *out);
    out->stop_at = stop_at;
    hay_status s = hay_scan(set, scratch, in->hay, in->len, &in->opts,
                            on_match, out);
    CHECK(s == (stop_at && out->n == stop_at ? HAY_STOPPED : HAY_OK));
    CHECK(!out->order_bad);
    for (size_t i = 0; i < out->n; i++) {
        CHECK(out->m[i].id < in->np);
        CHECK(out->m[i].end <= in->len);
        CHECK(out->m[i].end - out->m[i].start == in->pats[out->m[i].id].len);
    }
}

/* Streams the haystack: [0, split), then pieces of `step` (or the rest). */
static void run_stream(const input *in, const hay_patterns *set,
                       size_t stop_at, mlist *out)
{
    memset(out, 0, sizeof *out);
    out->stop_at = stop_at;
    hay_stream *st = NULL;
    CHECK(hay_stream_open(set, on_match, out, &st) == HAY_OK && st);
    bool stopped = false;
    size_t pos = 0;
    CHECK(hay_stream_write(st, in->hay, 0) == HAY_OK);
    for (bool first = true; pos < in->len; first = false) {
        size_t n = first ? in->split : (in->step ? in->step : in->len - pos);
        if (n > in->len - pos)
            n = in->len - pos;
        size_t before = out->n;
        hay_status s = hay_stream_write(st, in->hay + pos, n);
        if (stopped) {
            CHECK(s == HAY_STOPPED && out->n == before);
        } else if (s == HAY_STOPPED) {
            CHECK(stop_at && out->n == stop_at);
            stopped = true;
        } else {
            CHECK(s == HAY_OK);
        }
        pos += n;
    }
    CHECK(stopped == (stop_at && out->n == stop_at));
    CHECK(hay_stream_close(st) == HAY_OK);
    hay_stream_free(st);
    CHECK(!out->order_bad);
}

/* Checks one algorithm; `ref` is the oracle's list (sorted), `naive` the
 * naive algorithm's (sorted) or NULL while naive itself is being checked. */
static void check_algo(const input *in, const char *algo, const mlist *ref,
                       mlist *naive_out)
{
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.flags = in->flags;
    co.backend = HAY_BACKEND_CPU;
    co.algo = algo;
    hay_patterns *set = NULL;
    hay_status s = hay_patterns_compile(in->pats, in->np, &co, &set);
    if (s == HAY_ERR_UNSUPPORTED && in->np > 1 && strcmp(algo, "naive") &&
        strcmp(algo, "ac") && strcmp(algo, "auto")) {
        CHECK(set == NULL);
        return;
    }
    if (s != HAY_OK)
        fprintf(stderr, "fuzz_scan: compile %s: %s\n", algo, hay_strerror(s));
    CHECK(s == HAY_OK && set);

    hay_patterns_info info;
    CHECK(hay_patterns_info_get(set, &info) == HAY_OK);
    CHECK(info.count == in->np);
    CHECK(info.backend == HAY_BACKEND_CPU);
    CHECK(strcmp(algo, "auto") == 0 || strcmp(info.algo, algo) == 0);

    hay_scratch *scratch = NULL;
    CHECK(hay_scratch_create(set, &scratch) == HAY_OK && scratch);

    mlist full;
    run_scan(in, set, scratch, 0, &full);
    mlist sorted = full;
    sorted.m = malloc((full.n ? full.n : 1) * sizeof *full.m);
    CHECK(sorted.m);
    if (full.n)
        memcpy(sorted.m, full.m, full.n * sizeof *full.m);
    sort_list(&sorted);
    if (!same_list(&sorted, ref)) {
        fprintf(stderr, "fuzz_scan: %s: %zu matches, oracle %zu\n", algo,
                sorted.n, ref->n);
        abort();
    }
    if (naive_out) {
        *naive_out = sorted;
        sorted.m = NULL;
    }
    free(sorted.m);

    uint64_t count = 0;
    CHECK(hay_scan_count(set, scratch, in->hay, in->len, &in->opts, &count) == HAY_OK);
    CHECK(count == ref->n);
    CHECK(hay_scan_count(set, scratch, in->hay, in->len, NULL, &count) == HAY_OK);
    CHECK(count == ref->n);

    /* Marks: the last bytes of the oracle's matches; first: the full
     * scan's first match (the same options). */
    size_t nw = (in->len + 63) / 64;
    uint64_t *marks = malloc((nw + 1) * sizeof *marks), *want = calloc(nw + 1, sizeof *want);
    CHECK(marks && want);
    for (size_t i = 0; i <= nw; i++)
        marks[i] = 0x5a5a5a5a5a5a5a5aull;
    for (size_t i = 0; i < ref->n; i++)
        want[(ref->m[i].end - 1) / 64] |= 1ull << ((ref->m[i].end - 1) % 64);
    CHECK(hay_scan_marks(set, scratch, in->hay, in->len, &in->opts, marks) == HAY_OK);
    CHECK(!memcmp(marks, want, nw * sizeof *marks) && marks[nw] == 0x5a5a5a5a5a5a5a5aull);
    free(marks);
    free(want);
    hay_match first;
    CHECK(hay_scan_first(set, scratch, in->hay, in->len, &in->opts, &first) == HAY_OK);
    CHECK(full.n ? first.id == full.m[0].id && first.start == full.m[0].start &&
                       first.end == full.m[0].end
                 : first.end == 0);

    /* Early stop: exactly the first k matches of the full scan. */
    if (full.n) {
        size_t k = 1 + in->stop_sel % full.n;
        mlist part;
        run_scan(in, set, scratch, k, &part);
        CHECK(part.n == k);
        CHECK(same_prefix(&part, &full, k));
        free(part.m);
    }

    /* Streaming gives the same matches, and stops the same way. */
    mlist st;
    run_stream(in, set, 0, &st);
    sort_list(&st);
    CHECK(same_list(&st, ref));
    free(st.m);
    if (full.n) {
        size_t k = 1 + in->stop_sel % full.n;
        run_stream(in, set, k, &st);
        CHECK(st.n == k);
        free(st.m);
    }

    free(full.m);
    hay_scratch_free(scratch);
    hay_patterns_free(set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t hdr[4] = { 0, 0, 0, 0 };
    size_t pos = 0;
    for (; pos < 4 && pos < size; pos++)
        hdr[pos] = data[pos];

    input in;
    memset(&in, 0, sizeof in);
    in.flags = (hdr[0] & 1) ? HAY_CASELESS : 0;
    hay_scan_opts_init(&in.opts);
    in.opts.threads = 1 + ((hdr[0] >> 1) & 3);
    in.opts.schedule = (hdr[0] & 8) ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC;
    in.opts.chunk_size = chunk_sizes[hdr[0] >> 4];
    size_t want = 1 + (hdr[1] & 7);
    in.stop_sel = hdr[1] >> 3;
    size_t step = hdr[3] & 15, pad = hdr[3] >> 4;

    /* Pattern specs; slices of the haystack are resolved once it is known. */
    struct { bool slice; size_t len, at; const uint8_t *lit; } spec[MAX_PATS];
    size_t nspec = 0;
    while (nspec < want && pos < size) {
        uint8_t L = data[pos++];
        size_t m = 1 + L % 32;
        if (L & 0x80) {
            if (pos >= size)
                break;
            spec[nspec].slice = true;
            spec[nspec].at = data[pos++];
        } else {
            if (size - pos < m)
                break;
            spec[nspec].slice = false;
            spec[nspec].lit = data + pos;
            pos += m;
        }
        spec[nspec].len = m;
        nspec++;
    }
    if (nspec == 0)
        return 0;
    size_t len = size - pos;

    /* The haystack ends exactly where its allocation ends, at an offset
     * from malloc's alignment chosen by the input. */
    uint8_t *block = malloc(pad + len ? pad + len : 1);
    CHECK(block);
    uint8_t *hay = block + pad;
    memcpy(hay, data + pos, len);
    in.hay = hay;
    in.len = len;
    in.split = (size_t)((uint64_t)len * hdr[2] / 255);
    in.step = step;

    uint8_t *patbytes = malloc(MAX_PATS * 32);
    CHECK(patbytes);
    for (size_t i = 0; i < nspec; i++) {
        size_t m = spec[i].len;
        uint8_t *dst = patbytes + 32 * i;
        if (!spec[i].slice) {
            memcpy(dst, spec[i].lit, m);
        } else if (len == 0) {
            memset(dst, 'a', m);
        } else {
            size_t at = spec[i].at % len;
            if (m > len - at)
                m = len - at;
            memcpy(dst, hay + at, m);
        }
        in.pats[in.np].data = dst;
        in.pats[in.np].len = m;
        in.np++;
    }

    mlist ref;
    memset(&ref, 0, sizeof ref);
    oracle(in.pats, in.np, hay, len, in.flags & HAY_CASELESS, &ref);
    sort_list(&ref);

    mlist naive;
    memset(&naive, 0, sizeof naive);
    check_algo(&in, "naive", &ref, &naive);
    CHECK(same_list(&naive, &ref));

    const char *name;
    for (size_t i = 0; hay_algo_name(HAY_BACKEND_CPU, i, &name) == HAY_OK; i++)
        if (strcmp(name, "naive") != 0)
            check_algo(&in, name, &naive, NULL);
    check_algo(&in, "auto", &naive, NULL);

    free(naive.m);
    free(ref.m);
    free(patbytes);
    free(block);
    return 0;
}
