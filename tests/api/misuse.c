/*
 * misuse.c - documented misuse and wild arguments (issue 20 rows 3 and 7):
 * every one a clear status or a right answer, never a crash, a print or
 * an exit.
 *
 *   threads     hay_scan_count and hay_align_batch asked for 65,536 (and
 *               UINT_MAX / INT_MAX) threads: the OpenMP runtime used to
 *               crash or end the process; the library clamps (haystack.h,
 *               HAY_MAX_THREADS) and answers right.
 *   refusals    an algorithm that refuses a set says why in
 *               hay_compile_opts.error (row 13): "brute takes one pattern".
 *   scratch     one scratch used by two scans at once: a scan started from
 *               another thread while the first holds the scratch, and one
 *               started from inside the first's match callback, return
 *               HAY_ERR_SCRATCH_IN_USE; two threads hammering one scratch
 *               never get a wrong answer with HAY_OK.
 */
#include "haystack.h"
#include "haystack_align.h"
#include "testutil.h"

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}

/* 1 MB of "ab" with "abab" every 2 bytes: many matches, many chunks. */
typedef struct input {
    uint8_t *data;
    size_t len;
    hay_pattern pat;
    uint64_t want;
} input;

static input make_input(void)
{
    input in = { NULL, 1u << 20, { "abab", 4 }, 0 };
    in.data = malloc(in.len);
    for (size_t i = 0; i < in.len; i++)
        in.data[i] = (uint8_t)(i % 2 ? 'b' : 'a');
    in.want = (in.len - 4) / 2 + 1;
    return in;
}

/* The input's pattern on the CPU backend, and a scratch. */
static void open_cpu(const input *in, hay_patterns **set, hay_scratch **scr)
{
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = HAY_BACKEND_CPU;
    CHECK_ST(hay_patterns_compile(&in->pat, 1, &co, set), HAY_OK, "compile");
    CHECK_ST(*set ? hay_scratch_create(*set, scr) : HAY_ERR_INVALID, HAY_OK, "scratch");
}

/* ---- row 3: thread counts -------------------------------------------------- */

static void test_threads(void)
{
    input in = make_input();
    hay_patterns *set = NULL;
    hay_scratch *scr = NULL;
    open_cpu(&in, &set, &scr);
    static const unsigned wild[] = { 1025, 32768, 65536, UINT_MAX };
    for (size_t i = 0; set && scr && i < sizeof wild / sizeof wild[0]; i++) {
        for (int sched = 0; sched < 2; sched++) {
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            o.threads = wild[i];
            o.chunk_size = 4096;   /* chunks enough for every thread asked */
            o.schedule = sched ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC;
            uint64_t n = 0;
            hay_status s = hay_scan_count(set, scr, in.data, in.len, &o, &n);
            CHECK(s == HAY_OK && n == in.want, "count, %u threads (%s): %s, %" PRIu64
                  " matches, want %" PRIu64, wild[i], sched ? "static" : "dynamic",
                  hay_strerror(s), n, in.want);
            n = 0;
            s = hay_scan(set, scr, in.data, in.len, &o, count_cb, &n);
            CHECK(s == HAY_OK && n == in.want, "scan, %u threads (%s): %s, %" PRIu64
                  " matches, want %" PRIu64, wild[i], sched ? "static" : "dynamic",
                  hay_strerror(s), n, in.want);
        }
    }
    hay_scratch_free(scr);
    hay_patterns_free(set);
    free(in.data);

    /* hay_align_batch: 64 pairs on 65,536 threads asked. */
    hay_align_scoring *sc = NULL;
    CHECK_ST(hay_align_scoring_dna(2, -3, 5, 2, &sc), HAY_OK, "dna scoring");
    if (!sc)
        return;
    uint8_t q[40], t[60];
    CHECK_ST(hay_align_encode(sc, "ACGTACGTTTGACCAGTACGATCAGGACTTACGATCGATG", 40, q, NULL),
             HAY_OK, "encode q");
    CHECK_ST(hay_align_encode(sc, "TTTTACGTACGTTTGACCAGTACGATCAGGACTTACGATCGATGAAAACCCCGGGGTTTT",
                              60, t, NULL), HAY_OK, "encode t");
    hay_align_seq qs[8], ts[8];
    for (int i = 0; i < 8; i++) {
        qs[i] = (hay_align_seq){ q, 40 - (size_t)i };
        ts[i] = (hay_align_seq){ t, 60 - (size_t)i };
    }
    hay_align_result want[64], got[64];
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    hay_align_options o;
    hay_align_options_init(&o);
    o.backend = HAY_BACKEND_CPU;
    o.threads = 1;
    CHECK_ST(hay_align_batch(sc, qs, 8, ts, 8, &o, want), HAY_OK, "align, 1 thread");
    static const int wild_int[] = { 65536, INT_MAX, -5 };
    for (size_t w = 0; w < sizeof wild_int / sizeof wild_int[0]; w++) {
        o.threads = wild_int[w];
        hay_status s = hay_align_batch(sc, qs, 8, ts, 8, &o, got);
        bool same = true;
        for (int k = 0; k < 64; k++)
            same = same && got[k].score == want[k].score &&
                   got[k].t_end == want[k].t_end &&
                   ((!got[k].cigar && !want[k].cigar) ||
                    (got[k].cigar && want[k].cigar && !strcmp(got[k].cigar, want[k].cigar)));
        CHECK(s == HAY_OK && same, "align, %d threads: %s, results %s", wild_int[w],
              hay_strerror(s), same ? "same" : "differ from one thread's");
        for (int k = 0; k < 64; k++)
            hay_align_result_clear(&got[k]);
    }
    for (int k = 0; k < 64; k++)
        hay_align_result_clear(&want[k]);
    hay_align_scoring_free(sc);
}

/* ---- row 7: one scratch, two scans ------------------------------------------ */

/* Thread A scans; its callback, at the first match, lets thread B try a
 * scan on the same scratch and waits until B has its answer. */
typedef struct overlap {
    const hay_patterns *set;
    hay_scratch *scr;
    const input *in;
    atomic_int phase;   /* 0: A not in its callback, 1: B may go, 2: B done */
    hay_status b_status;
    hay_status nested;  /* a scan from inside A's own callback */
    uint64_t a_matches;
} overlap;

static int hold_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    overlap *ov = ctx;
    if (ov->a_matches++ == 0) {
        uint64_t n = 0;
        ov->nested = hay_scan_count(ov->set, ov->scr, ov->in->data, 100, NULL, &n);
        atomic_store(&ov->phase, 1);
        while (atomic_load(&ov->phase) != 2)
            ;
    }
    return 0;
}

static void *overlap_b(void *arg)
{
    overlap *ov = arg;
    while (atomic_load(&ov->phase) != 1)
        ;
    uint64_t n = 0;
    ov->b_status = hay_scan_count(ov->set, ov->scr, ov->in->data, ov->in->len, NULL, &n);
    atomic_store(&ov->phase, 2);
    return NULL;
}

typedef struct hammer {
    const hay_patterns *set;
    hay_scratch *scr;
    const input *in;
    int wrong, in_use, ok;
    char err[200];
} hammer;

static void *hammer_main(void *arg)
{
    hammer *h = arg;
    for (int rep = 0; rep < 20; rep++) {
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 2;
        o.chunk_size = 1000;
        uint64_t n = 0;
        hay_status s = hay_scan(h->set, h->scr, h->in->data, h->in->len, &o, count_cb, &n);
        if (s == HAY_ERR_SCRATCH_IN_USE) {
            h->in_use++;
        } else if (s == HAY_OK && n == h->in->want) {
            h->ok++;
        } else {
            h->wrong++;
            snprintf(h->err, sizeof h->err, "%s with %" PRIu64 " matches, want %" PRIu64,
                     hay_strerror(s), n, h->in->want);
        }
    }
    return NULL;
}

static void test_scratch_in_use(void)
{
    CHECK(strcmp(hay_strerror(HAY_ERR_SCRATCH_IN_USE), hay_strerror((hay_status)-100)) != 0,
          "HAY_ERR_SCRATCH_IN_USE has no text of its own");
    input in = make_input();
    hay_patterns *set = NULL;
    hay_scratch *scr = NULL;
    open_cpu(&in, &set, &scr);
    if (!set || !scr)
        goto out;

    overlap ov = { set, scr, &in, 0, HAY_OK, HAY_OK, 0 };
    pthread_t b;
    pthread_create(&b, NULL, overlap_b, &ov);
    hay_status a = hay_scan(set, scr, in.data, in.len, NULL, hold_cb, &ov);
    pthread_join(b, NULL);
    CHECK(a == HAY_OK && ov.a_matches == in.want, "the scan holding the scratch: %s, %"
          PRIu64 " matches, want %" PRIu64, hay_strerror(a), ov.a_matches, in.want);
    CHECK_ST(ov.b_status, HAY_ERR_SCRATCH_IN_USE, "a scan from another thread meanwhile");
    CHECK_ST(ov.nested, HAY_ERR_SCRATCH_IN_USE, "a scan from inside the match callback");
    uint64_t n = 0;
    CHECK(hay_scan_count(set, scr, in.data, in.len, NULL, &n) == HAY_OK && n == in.want,
          "the scratch is free again after the scan");

    hammer h[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        h[k] = (hammer){ set, scr, &in, 0, 0, 0, "" };
        pthread_create(&th[k], NULL, hammer_main, &h[k]);
    }
    for (int k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        CHECK(h[k].wrong == 0, "two threads on one scratch, thread %d: %d wrong answers "
              "(last: %s)", k, h[k].wrong, h[k].err);
    }
    printf("scratch hammer: %d right, %d refused (in use)\n", h[0].ok + h[1].ok,
           h[0].in_use + h[1].in_use);
out:
    hay_scratch_free(scr);
    hay_patterns_free(set);
    free(in.data);
}

/* With arguments: only the tests named (to see one fail without the
 * other ending the process first). */
/* ---- row 13: refusals say why ----------------------------------------------- */

static void refused(hay_backend b, const char *algo, const hay_pattern *p, size_t n,
                    hay_status want, const char *words)
{
    char why[256] = "x";
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = b;
    co.algo = algo;
    co.error = why;
    co.error_cap = sizeof why;
    hay_patterns *set = TU_NOT_NULL;
    hay_status s = hay_patterns_compile(p, n, &co, &set);
    CHECK(s == want && set == NULL, "%s/%s, %zu patterns: %s, want %s", hay_backend_name(b),
          algo, n, hay_strerror(s), hay_strerror(want));
    CHECK(strstr(why, words) != NULL, "%s/%s, %zu patterns: the message '%s' does not say '%s'",
          hay_backend_name(b), algo, n, why, words);
    co.error = NULL;   /* no buffer: the same refusal */
    CHECK_ST(hay_patterns_compile(p, n, &co, &set), want, "the refusal without a buffer");
}

static void test_refusals(void)
{
    hay_pattern two[2] = { { "a", 1 }, { "b", 1 } };
    static const char *const one_only[] = { "bm", "horspool", "simd" };
    for (size_t i = 0; i < sizeof one_only / sizeof one_only[0]; i++) {
        char words[64];
        snprintf(words, sizeof words, "%s takes one pattern (2 given)", one_only[i]);
        refused(HAY_BACKEND_CPU, one_only[i], two, 2, HAY_ERR_UNSUPPORTED, words);
    }
    /* More patterns than teddy's buckets hold: refused, and said. */
    static char bytes[65][4];
    hay_pattern many[65];
    for (int i = 0; i < 65; i++) {
        snprintf(bytes[i], sizeof bytes[i], "%d", i);
        many[i] = (hay_pattern){ bytes[i], strlen(bytes[i]) };
    }
    refused(HAY_BACKEND_CPU, "teddy", many, 65, HAY_ERR_TOO_LARGE, "teddy");
    if (hay_backend_available(HAY_BACKEND_OPENCL) == HAY_OK)
        refused(HAY_BACKEND_OPENCL, "brute", two, 2, HAY_ERR_UNSUPPORTED,
                "brute takes one pattern (2 given)");
    else
        printf("refusals: no OpenCL device, brute not tried\n");
}

int main(int argc, char **argv)
{
    struct { const char *name; void (*fn)(void); } tests[] = {
        { "wild thread counts", test_threads },
        { "scratch in use", test_scratch_in_use },
        { "refusals", test_refusals },
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!tu_part_wanted(argc, argv, tests[i].name))
            continue;
        double t0 = tu_now();
        unsigned long long f0 = tu_failed;
        tests[i].fn();
        tu_part_report(tests[i].name, t0, f0);
    }
    return tu_finish();
}
