/*
 * db_gpu_mock.c - the database search's GPU path (db_search.c built with
 * HAY_HAVE_CUDA_SWDB) run against a CPU stand-in for the kernels of
 * db_device.h, so that its host logic is tested on machines without a GPU:
 * the device gets the targets length-sorted, names and ranks them by the
 * ids it is given (hay_cuda_swdb_create_traced), and the host must return
 * exactly the CPU backend's hits, ranked by input order, with the same ends
 * and alignments, asking the device once per search.  Also: the
 * timeline of phases the results carry, the device's start ahead of the
 * search (hay_align_db_warm_up) and backend auto's size rule.
 *
 * The stand-in keeps the contract: hits ordered by score, then by id
 * (ids[i], else i), at most top_k, only scores >= min_score and > 0.
 *
 * Usage: test_align_db_gpu_mock DATA_DIR
 */
#include "align_util.h"
#include "db_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct hay_swdb_gpu {
    hay_swdb_targets db;
    const uint32_t *ids;
    const hay_align_scoring *s;
};

static const hay_align_scoring *mock_scoring;
static size_t mock_searches;
/* A device that holds at most this many targets (0: any number): a larger
 * database must be searched in parts (db_search.c's gpu_search).  It
 * reaches the mock as device params, so a kept device copy (made with
 * other params) is not reused. */
static size_t mock_max_targets;
static size_t mock_creates;
static size_t mock_warm_ups;
/* With mock_slow, each part's create and search take 100 ms and note when
 * they ran, so that the test sees whether the next part is made while one
 * is searched (db_search_gpu.c's gpu_search_parts).  Creates run one at a
 * time, as do searches, each on its own array. */
enum { MOCK_SPANS = 16 };
static int mock_slow;
static size_t mock_ncreate_spans, mock_nsearch_spans;
static double mock_create_span[MOCK_SPANS][2], mock_search_span[MOCK_SPANS][2];

static void mock_pause(void)
{
    struct timespec ts = { 0, 100 * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

int hay_cuda_swdb_part_room(const char *params, uint64_t *bytes, uint64_t *targets)
{
    size_t cap = 0;
    *bytes = 0;
    *targets = params && sscanf(params, "max_targets=%zu", &cap) == 1 ? cap : 0;
    return 0;
}

int hay_cuda_swdb_warm_up(const char *params, hay_swdb_timeline *tl)
{
    (void)params;
    double t0 = tu_now();
    mock_warm_ups++;
    hay_swdb_phase_add(tl, "warm:mock", t0, tu_now());
    return 0;
}

int hay_cuda_swdb_create_traced(const hay_swdb_targets *db, const uint32_t *ids,
                                const hay_swdb_scoring *sc, int device,
                                const char *params, hay_swdb_timeline *tl,
                                hay_swdb_gpu **out)
{
    double t0 = tu_now();
    hay_swdb_phase_add(tl, "gpu:mock_create", t0, tu_now());
    if (hay_align_scoring_alpha(mock_scoring) != sc->alpha)
        return HAY_ERR_INVALID;
    mock_creates++;
    size_t cap = 0;   /* the device's capacity comes in its params, as db_max= */
    if (params && sscanf(params, "max_targets=%zu", &cap) == 1 && db->ntargets > cap)
        return HAY_ERR_TOO_LARGE;
    hay_swdb_gpu *g = malloc(sizeof *g);
    if (!g)
        return HAY_ERR_NOMEM;
    if (mock_slow && mock_ncreate_spans < MOCK_SPANS) {
        double *sp = mock_create_span[mock_ncreate_spans++];
        sp[0] = tu_now();
        mock_pause();
        sp[1] = tu_now();
    }
    g->db = *db;
    g->ids = ids;
    g->s = mock_scoring;
    *out = g;
    return 0;
}

static int32_t score_of(const hay_swdb_gpu *g, const uint8_t *q, size_t m,
                        size_t i)
{
    hay_align_options o;
    hay_align_options_init(&o);
    o.variant = "scalar";
    o.score_only = 1;
    hay_align_result r;
    hay_align_pair(g->s, q, m, g->db.codes + g->db.offset[i],
                   (size_t)(g->db.offset[i + 1] - g->db.offset[i]), &o, &r);
    return r.score;
}

/* The id hits name target i by (and rank ties by). */
static uint32_t id_of(const hay_swdb_gpu *g, size_t i)
{
    return g->ids ? g->ids[i] : (uint32_t)i;
}

static int by_device_rank(const void *a, const void *b)
{
    const hay_swdb_hit *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->target < y->target ? -1 : x->target > y->target;
}

int hay_cuda_swdb_search(hay_swdb_gpu *g, const uint8_t *const *queries,
                         const size_t *qlens, size_t nq, size_t top_k,
                         int32_t min_score, hay_swdb_hit *hits, size_t *nhits,
                         hay_swdb_stats *st)
{
    mock_searches++;
    hay_swdb_hit *all = malloc((g->db.ntargets ? g->db.ntargets : 1) * sizeof *all);
    if (!all)
        return HAY_ERR_NOMEM;
    memset(st, 0, sizeof *st);
    double t0 = tu_now();
    if (mock_slow && mock_nsearch_spans < MOCK_SPANS) {
        double *sp = mock_search_span[mock_nsearch_spans++];
        sp[0] = t0;
        mock_pause();
        sp[1] = tu_now();
    }
    hay_swdb_phase_add(&st->tl, "gpu:mock_search", t0, tu_now());
    for (size_t j = 0; j < nq; j++) {
        size_t n = 0;
        for (size_t i = 0; i < g->db.ntargets; i++) {
            int32_t sc = score_of(g, queries[j], qlens[j], i);
            if (sc > 0 && sc >= min_score) {
                all[n].target = id_of(g, i);
                all[n].score = sc;
                n++;
            }
        }
        qsort(all, n, sizeof *all, by_device_rank);
        nhits[j] = n < top_k ? n : top_k;
        memcpy(hits + j * top_k, all, nhits[j] * sizeof *all);
    }
    free(all);
    return 0;
}

int hay_cuda_swdb_scores(hay_swdb_gpu *g, const uint8_t *const *queries,
                         const size_t *qlens, size_t nq, int32_t *scores,
                         hay_swdb_stats *st)
{
    memset(st, 0, sizeof *st);
    for (size_t j = 0; j < nq; j++)
        for (size_t i = 0; i < g->db.ntargets; i++)
            scores[j * g->db.ntargets + i] = score_of(g, queries[j], qlens[j],
                                                      i);
    return 0;
}

void hay_cuda_swdb_free(hay_swdb_gpu *g)
{
    free(g);
}

int hay_cuda_swdb_device(const hay_swdb_gpu *g)
{
    (void)g;
    return 0;
}

static size_t mock_releases;

int hay_cuda_swdb_release(int device, hay_swdb_timeline *tl)
{
    double t0 = tu_now();
    mock_releases += device == 0;
    hay_swdb_phase_add(tl, "release:mock", t0, tu_now());
    return 0;
}

/* ---- the test ---------------------------------------------------------- */
static void same_hits(const hay_align_db *db, const hay_align_scoring *s,
                      const hay_align_seq *qs, size_t nq, size_t k,
                      int score_only, const char *what)
{
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.top_k = k;
    o.align.score_only = score_only;
    o.align.threads = 2;
    hay_align_db_results *cpu = NULL, *gpu = NULL;
    o.align.backend = HAY_BACKEND_CPU;
    CHECK_ST(hay_align_db_search(db, s, qs, nq, &o, &cpu), HAY_OK, what);
    o.align.backend = HAY_BACKEND_CUDA;
    /* The device's capacity (the mock's max_targets) and a GPU key, which
     * goes to the GPU only, not to the CPU's tracebacks. */
    char params[64];
    if (mock_max_targets)
        snprintf(params, sizeof params, "max_targets=%zu,blocks=64", mock_max_targets);
    else
        snprintf(params, sizeof params, "blocks=64");
    o.align.device_params = params;
    CHECK_ST(hay_align_db_search(db, s, qs, nq, &o, &gpu), HAY_OK, what);
    if (cpu && gpu) {
        CHECK(gpu->backend == HAY_BACKEND_CUDA, "%s: backend", what);
        size_t want = 1;
        if (mock_max_targets) {
            hay_align_db_info info;
            hay_align_db_info_get(db, &info);
            /* parts planned from the room: ceil(n / cap) */
            want = (size_t)((info.sequences + mock_max_targets - 1) / mock_max_targets);
        }
        CHECK(gpu->device_parts == want, "%s: %llu device parts, want %zu", what,
              (unsigned long long)gpu->device_parts, want);
        for (size_t j = 0; j < nq; j++) {
            const hay_align_db_hits *a = &cpu->queries[j], *b = &gpu->queries[j];
            int ok = a->nhits == b->nhits;
            for (size_t h = 0; ok && h < a->nhits; h++) {
                const hay_align_result *x = &a->hits[h].r, *y = &b->hits[h].r;
                ok = a->hits[h].target == b->hits[h].target &&
                     x->score == y->score && x->q_end == y->q_end &&
                     x->t_end == y->t_end && x->q_start == y->q_start &&
                     x->t_start == y->t_start &&
                     (x->cigar == NULL) == (y->cigar == NULL) &&
                     (!x->cigar || !strcmp(x->cigar, y->cigar));
            }
            CHECK(ok, "%s: query %zu, top %zu, score_only %d: the GPU path's "
                  "hits differ from the CPU's", what, j, k, score_only);
        }
    }
    hay_align_db_results_free(cpu);
    hay_align_db_results_free(gpu);
}

/* The phase of that name in r, or NULL. */
static const hay_align_phase *phase(const hay_align_db_results *r, const char *name)
{
    for (size_t i = 0; i < r->nphases; i++)
        if (!strcmp(r->phases[i].name, name))
            return &r->phases[i];
    return NULL;
}

/* r's phases: in the order they began, each inside [t0, t1] with its
 * seconds no more than its span, and those of `want` (NULL-ended) there. */
static void check_timeline(const hay_align_db_results *r, double t0, double t1,
                           const char *const *want, const char *what)
{
    for (size_t i = 0; i < r->nphases; i++) {
        const hay_align_phase *p = &r->phases[i];
        CHECK(p->start >= t0 && p->end <= t1 && p->start <= p->end,
              "%s: phase %s [%f, %f] outside the call [%f, %f]", what, p->name,
              p->start, p->end, t0, t1);
        CHECK(p->count >= 1 && p->seconds >= 0 &&
              p->seconds <= p->end - p->start + 1e-9,
              "%s: phase %s: %f s in a span of %f, count %llu", what, p->name,
              p->seconds, p->end - p->start, (unsigned long long)p->count);
        CHECK(i == 0 || r->phases[i - 1].start <= p->start,
              "%s: phase %s begins before the one listed ahead of it", what,
              p->name);
    }
    for (size_t k = 0; want[k]; k++)
        CHECK(phase(r, want[k]) != NULL, "%s: no phase %s", what, want[k]);
}

/* The device started ahead of the search: the search waits for it, lists
 * its phases once, and a handle is made only where a GPU will be used. */
static void warm_up_cases(const hay_align_db *db, const hay_align_scoring *s,
                          const hay_align_seq *qs)
{
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    hay_align_db_warm *w = (hay_align_db_warm *)&o;   /* must be overwritten */
    CHECK_ST(hay_align_db_warm_up(&o, 0, NULL), HAY_ERR_INVALID, "warm_up(NULL out)");
    o.align.backend = HAY_BACKEND_CPU;
    CHECK_ST(hay_align_db_warm_up(&o, UINT64_MAX, &w), HAY_OK, "warm_up cpu");
    CHECK(w == NULL, "backend cpu: a device start was made");
    o.align.backend = HAY_BACKEND_AUTO;
    o.align.threads = 2;
    w = (hay_align_db_warm *)&o;
    CHECK_ST(hay_align_db_warm_up(&o, 1000, &w), HAY_OK, "warm_up auto, small");
    CHECK(w == NULL, "backend auto, 1000 cells: a device start was made");
    size_t before = mock_warm_ups;
    CHECK_ST(hay_align_db_warm_up(&o, UINT64_MAX, &w), HAY_OK, "warm_up auto, large");
    CHECK(w != NULL, "backend auto, a large search: no device start");
    hay_align_db_warm_free(w);   /* never used: waits for its thread */
    CHECK(mock_warm_ups == before + 1, "auto: %zu device starts, want 1",
          mock_warm_ups - before);
    hay_align_db_warm_free(NULL);

    o.align.backend = HAY_BACKEND_CUDA;
    o.align.threads = 2;
    o.top_k = 3;
    CHECK_ST(hay_align_db_warm_up(&o, 0, &w), HAY_OK, "warm_up cuda");
    CHECK(w != NULL, "backend cuda: no device start");
    o.warm = w;
    hay_align_db_results *r = NULL;
    double t0 = tu_now();
    CHECK_ST(hay_align_db_search(db, s, qs, 1, &o, &r), HAY_OK, "search after warm_up");
    if (r) {
        /* The thread's phase may begin before the search: from t0 - 60 s */
        static const char *const want[] = { "warm:mock", "search:device_wait",
                                            "gpu:mock_search", "search:traceback",
                                            NULL };
        check_timeline(r, t0 - 60, tu_now(), want, "warm search");
        const hay_align_phase *wm = phase(r, "warm:mock"), *dw = phase(r, "search:device_wait");
        CHECK(!wm || !dw || wm->end <= dw->end,
              "the search went on before the device start had ended");
    }
    hay_align_db_results_free(r);
    r = NULL;
    CHECK_ST(hay_align_db_search(db, s, qs, 1, &o, &r), HAY_OK, "second search");
    if (r)
        CHECK(phase(r, "warm:mock") == NULL,
              "the device start's phases listed by a second search");
    hay_align_db_results_free(r);
    hay_align_db_warm_free(w);
    CHECK(mock_warm_ups == before + 2, "%zu device starts, want 2",
          mock_warm_ups - before);
}

/* Hits of a and b: the same targets and scores. */
static int same_scores(const hay_align_db_results *a, const hay_align_db_results *b)
{
    int ok = a && b && a->nqueries == b->nqueries;
    for (size_t j = 0; ok && j < a->nqueries; j++) {
        ok = a->queries[j].nhits == b->queries[j].nhits;
        for (size_t h = 0; ok && h < a->queries[j].nhits; h++)
            ok = a->queries[j].hits[h].target == b->queries[j].hits[h].target &&
                 a->queries[j].hits[h].r.score == b->queries[j].hits[h].r.score;
    }
    return ok;
}

/* release_device: the search drops the database's device copy and ends the
 * device on the warm-up's thread (once, waited for by warm_free) where the
 * CPU work left after the scores can hide it: a long query's alignments,
 * not a short one's; without a warm-up, never. */
static void release_cases(const hay_align_db *db, const hay_align_scoring *s,
                          const hay_align_seq *small)
{
    /* 1e6 residues: its alignments (1e8 cells on one thread) hide the
     * teardown; the 10 of small do not. */
    const size_t m = 1000000;
    uint8_t *long_codes = malloc(m);
    if (!long_codes) {
        CHECK(0, "out of memory");
        return;
    }
    for (size_t i = 0; i < m; i += 10)
        memcpy(long_codes + i, small->codes, 10);
    hay_align_seq big = { long_codes, m };
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.align.threads = 1;
    o.top_k = 7;
    hay_align_db_results *cpu = NULL, *cpu_small = NULL, *r = NULL;
    o.align.backend = HAY_BACKEND_CPU;
    o.release_device = 1;
    CHECK_ST(hay_align_db_search(db, s, &big, 1, &o, &cpu), HAY_OK, "release: cpu");
    CHECK_ST(hay_align_db_search(db, s, small, 1, &o, &cpu_small), HAY_OK, "release: cpu");
    o.align.backend = HAY_BACKEND_CUDA;
    /* The device copy made (or kept) first. */
    o.release_device = 0;
    CHECK_ST(hay_align_db_search(db, s, small, 1, &o, &r), HAY_OK, "release: copy");
    hay_align_db_results_free(r);
    r = NULL;
    size_t rel0 = mock_releases, cr0 = mock_creates;
    o.release_device = 1;   /* no warm-up: ignored */
    CHECK_ST(hay_align_db_search(db, s, &big, 1, &o, &r), HAY_OK, "release without warm");
    CHECK(same_scores(cpu, r), "release without warm: hits differ from the CPU's");
    hay_align_db_results_free(r);
    r = NULL;
    CHECK(mock_releases == rel0 && mock_creates == cr0,
          "release without warm: %zu releases, %zu creates, want none",
          mock_releases - rel0, mock_creates - cr0);
    /* A short query: too little left to hide the teardown. */
    hay_align_db_warm *w = NULL;
    CHECK_ST(hay_align_db_warm_up(&o, 0, &w), HAY_OK, "release: warm_up");
    o.warm = w;
    CHECK_ST(hay_align_db_search(db, s, small, 1, &o, &r), HAY_OK, "release, short query");
    CHECK(same_scores(cpu_small, r), "release, short query: hits differ from the CPU's");
    hay_align_db_results_free(r);
    r = NULL;
    hay_align_db_warm_free(w);
    CHECK(mock_releases == rel0 && mock_creates == cr0,
          "release, short query: %zu releases, %zu creates, want none",
          mock_releases - rel0, mock_creates - cr0);
    /* The long one: released. */
    CHECK_ST(hay_align_db_warm_up(&o, 0, &w), HAY_OK, "release: warm_up");
    o.warm = w;
    CHECK_ST(hay_align_db_search(db, s, &big, 1, &o, &r), HAY_OK, "release search");
    CHECK(same_scores(cpu, r), "release search: hits differ from the CPU's");
    int started = 0;
    for (size_t i = 0; r && i < r->nphases; i++)
        started += !strcmp(r->phases[i].name, "search:device_release_start");
    CHECK(started == 1, "release search: %d release phases, want 1", started);
    hay_align_db_results_free(r);
    r = NULL;
    hay_align_db_warm_free(w);   /* waits for the release */
    CHECK(mock_releases == rel0 + 1, "release search: %zu releases after warm_free, want 1",
          mock_releases - rel0);
    /* The device copy went with it: the next search makes a new one. */
    o.warm = NULL;
    o.release_device = 0;
    CHECK_ST(hay_align_db_search(db, s, small, 1, &o, &r), HAY_OK, "after release");
    CHECK(same_scores(cpu_small, r), "after release: hits differ from the CPU's");
    CHECK(mock_creates == cr0 + 1, "after release: %zu creates, want 1", mock_creates - cr0);
    hay_align_db_results_free(r);
    hay_align_db_results_free(cpu);
    hay_align_db_results_free(cpu_small);
    free(long_codes);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/data";
    hay_align_scoring *s = NULL;
    hay_align_scoring_builtin("blosum62", 11, 1, &s);
    mock_scoring = s;

    /* Ties straddling every cut: five equal scores, and length order
     * (short ones first) unlike input order. */
    static const char fasta[] =
        ">a\nAAAAHEAGAWGHEEAAAAAAAA\n>b\nHEAGAWGHEE\n>c\nHEAGAWGHEEA\n"
        ">d\nPPP\n>e\nHEAGAWGHEE\n>f\nGGGGGGGGGGGGGHEAGAWGHEE\n"
        ">g\nMKVLAAGIVGLLLAQPAMAAEHHHHHHHHHWW\n";
    hay_align_db *db = NULL;
    char msg[256];
    CHECK_ST(hay_align_db_from_fasta(s, fasta, strlen(fasta), &db, msg,
                                     sizeof msg), HAY_OK, "tie database");
    uint8_t q[10];
    hay_align_encode(s, "HEAGAWGHEE", 10, q, NULL);
    hay_align_seq qs = { q, 10 };
    for (size_t k = 1; k <= 8; k++) {
        size_t before = mock_searches;
        same_hits(db, s, &qs, 1, k, 0, "ties");
        same_hits(db, s, &qs, 1, k, 1, "ties");
        /* The device ranks ties by input order: one ask per search. */
        CHECK(mock_searches - before == 2, "ties at k = %zu: %zu device "
              "searches for 2 searches", k, mock_searches - before);
    }
    /* A device that holds 1, 2 or 3 of the 7 targets: the parts' hits
     * merge into the same ranking, ties across parts included. */
    for (size_t cap = 1; cap <= 3; cap++) {
        mock_max_targets = cap;
        for (size_t k = 1; k <= 8; k++) {
            same_hits(db, s, &qs, 1, k, 0, "ties in parts");
            same_hits(db, s, &qs, 1, k, 1, "ties in parts");
        }
    }
    /* Parts of 3 of the 7 targets, each taking 100 ms to make and to
     * search: part i + 1 is made while part i is searched. */
    mock_max_targets = 3;
    mock_slow = 1;
    mock_ncreate_spans = mock_nsearch_spans = 0;
    same_hits(db, s, &qs, 1, 8, 1, "parts made ahead");
    mock_slow = 0;
    CHECK(mock_ncreate_spans == 3 && mock_nsearch_spans == 3,
          "parts made ahead: %zu creates and %zu searches, want 3 and 3",
          mock_ncreate_spans, mock_nsearch_spans);
    for (size_t i = 1; i < mock_ncreate_spans && i < mock_nsearch_spans; i++)
        CHECK(mock_create_span[i][0] < mock_search_span[i - 1][1] &&
                  mock_search_span[i - 1][0] < mock_create_span[i][1],
              "part %zu was not made while part %zu was searched", i, i - 1);
    mock_max_targets = 0;
    /* The device copy is kept from one search to the next with the same
     * scoring and params, and remade for another scoring. */
    same_hits(db, s, &qs, 1, 2, 1, "kept copy");
    size_t c0 = mock_creates;
    same_hits(db, s, &qs, 1, 5, 0, "kept copy");
    same_hits(db, s, &qs, 1, 3, 1, "kept copy");
    CHECK(mock_creates == c0, "same scoring: %zu creates, want none",
          mock_creates - c0);
    hay_align_scoring *s2 = NULL;
    hay_align_scoring_builtin("blosum62", 10, 2, &s2);
    mock_scoring = s2;
    same_hits(db, s2, &qs, 1, 3, 1, "other gaps");
    CHECK(mock_creates == c0 + 1, "other gaps: %zu creates, want 1",
          mock_creates - c0);
    mock_scoring = s;
    hay_align_scoring_free(s2);

    /* The results' timeline, on both backends. */
    {
        hay_align_db_options o;
        hay_align_db_options_init(&o);
        o.align.threads = 2;
        o.align.score_only = 1;
        static const char *const want_cpu[] = { "search:check", "search:cpu_scores",
                                                "search:rank", NULL };
        static const char *const want_gpu[] = { "search:check", "gpu:mock_search",
                                                "search:rank", "search:end_cells",
                                                NULL };
        for (int gpu = 0; gpu < 2; gpu++) {
            o.align.backend = gpu ? HAY_BACKEND_CUDA : HAY_BACKEND_CPU;
            hay_align_db_results *r = NULL;
            double t0 = tu_now();
            CHECK_ST(hay_align_db_search(db, s, &qs, 1, &o, &r), HAY_OK, "timeline");
            if (r)
                check_timeline(r, t0, tu_now(), gpu ? want_gpu : want_cpu,
                               gpu ? "timeline, gpu" : "timeline, cpu");
            hay_align_db_results_free(r);
        }
        /* Backend auto: the CPU for a small search, whatever is built. */
        o.align.backend = HAY_BACKEND_AUTO;
        hay_align_db_results *r = NULL;
        CHECK_ST(hay_align_db_search(db, s, &qs, 1, &o, &r), HAY_OK, "auto, small");
        if (r)
            CHECK(r->backend == HAY_BACKEND_CPU && !phase(r, "search:auto_probe"),
                  "auto: a search of %llu cells went to the GPU or probed it",
                  (unsigned long long)r->cells);
        hay_align_db_results_free(r);
    }
    /* Auto's size rule: the 31 queries (5.98e10 cells) on 16
     * threads to the GPU, one query of 10 residues (1.3e7) to the CPU, and
     * more threads need more cells. */
    CHECK(hay_align_db_auto_gpu(59771961160ull, 16), "auto: 31 queries x E. coli on the CPU");
    CHECK(!hay_align_db_auto_gpu(13299800ull, 16), "auto: 10 residues x E. coli on the GPU");
    CHECK(hay_align_db_auto_gpu(4000000000ull, 1) && !hay_align_db_auto_gpu(4000000000ull, 64),
          "auto: the threshold does not grow with the threads");
    warm_up_cases(db, s, &qs);
    release_cases(db, s, &qs);
    hay_align_db_free(db);

    char pq[4096], pt[4096];
    snprintf(pq, sizeof pq, "%s/bio/protein/queries_24-5478aa.fasta", dir);
    snprintf(pt, sizeof pt, "%s/bio/protein/sprot196.fasta", dir);
    size_t nq_text, nt_text;
    uint8_t *qt = tu_read_file(pq, &nq_text), *tt = tu_read_file(pt, &nt_text);
    if (qt && tt) {
        hay_align_db *qdb = NULL, *tdb = NULL;
        hay_align_db_from_fasta(s, qt, nq_text, &qdb, msg, sizeof msg);
        hay_align_db_from_fasta(s, tt, nt_text, &tdb, msg, sizeof msg);
        hay_align_seq three[3];
        for (size_t j = 0; j < 3; j++)
            hay_align_db_seq(qdb, j, NULL, &three[j].codes, &three[j].len);
        same_hits(tdb, s, three, 3, 50, 0, "3 queries x sprot196");
        same_hits(tdb, s, three, 3, 7, 1, "3 queries x sprot196");
        mock_max_targets = 50;
        same_hits(tdb, s, three, 3, 50, 0, "3 queries x sprot196 in parts of <= 50");
        mock_max_targets = 0;
        hay_align_db_free(qdb);
        hay_align_db_free(tdb);
    } else {
        printf("SKIP bio sets: no data at %s/bio\n", dir);
    }
    free(qt);
    free(tt);
    hay_align_scoring_free(s);
    return tu_finish();
}
