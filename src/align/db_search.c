/*
 * db_search.c - many queries against a database (db.c), keeping the best
 * hits of each: the score pass on CPU threads over the targets (or on the
 * GPU behind db_device.h), a top-k per query, then the alignments of the
 * reported hits only.
 *
 * Ranking: score descending, then target index (input order) ascending.  A
 * candidate enters a query's top-k when it beats the worst one kept under
 * that order, so the k kept are exactly the first k of a full sort of all
 * scores, whatever the thread count or the order the targets are visited
 * in.
 *
 * The CPU score pass visits targets longest first (the database keeps them
 * sorted by length), in small dynamic chunks, so that no thread is left
 * with the longest targets at the end: one target at a time through the
 * striped engines (each query's profile built once and shared), or a batch
 * of 32 neighbours in length through the inter-sequence kernel
 * (sw_inter.h), whichever inter_pays says (the cpu key db_kernel forces
 * either).  A thread that meets a 16-bit saturation builds its own 32-bit
 * profile of that query, once.  With many queries (4 a thread or more)
 * threads take whole queries instead, longest first.
 */
#include "db_search.h"
#include "align_internal.h"
#include "sw_inter.h"
#include "../core/internal.h"   /* hay_thread_cap, hay_now */

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#define DEFAULT_TOP_K 50
#define MAX_SCORE_BOUND ((int64_t)1 << 30)
#define CHUNK 8
/* From this many queries per thread on, queries go to threads whole. */
#define QUERIES_PER_THREAD 4
/* The inter-sequence kernel's speed over the striped engines' that the
 * default assumes, and the rounds of batches a thread needs (inter_pays). */
#define INTER_SPEEDUP 2
#define INTER_MIN_ROUNDS 4

void hay_align_db_options_init(hay_align_db_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    hay_align_options_init(&o->align);
    o->top_k = DEFAULT_TOP_K;
}

void hay_align_db_results_free(hay_align_db_results *r)
{
    if (!r)
        return;
    for (size_t q = 0; r->queries && q < r->nqueries; q++) {
        for (size_t h = 0; h < r->queries[q].nhits; h++)
            hay_align_result_clear(&r->queries[q].hits[h].r);
        free(r->queries[q].hits);
    }
    free(r->queries);
    free(r->phases);
    free(r);
}

/* ------------------------------------------------------------------------
 * Top-k: a heap with the worst kept candidate at the root.
 * ---------------------------------------------------------------------- */
/* a ranks below b */
static int worse(const cand *a, const cand *b)
{
    return a->score < b->score ||
           (a->score == b->score && a->target > b->target);
}

static void sift_down(topk *t, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < t->n && worse(&t->h[l], &t->h[w]))
            w = l;
        if (r < t->n && worse(&t->h[r], &t->h[w]))
            w = r;
        if (w == i)
            return;
        cand x = t->h[i];
        t->h[i] = t->h[w];
        t->h[w] = x;
        i = w;
    }
}

void hay_db_topk_add(topk *t, const cand *c)
{
    if (t->n < t->k) {
        size_t i = t->n++;
        t->h[i] = *c;
        while (i && worse(&t->h[i], &t->h[(i - 1) / 2])) {
            cand x = t->h[i];
            t->h[i] = t->h[(i - 1) / 2];
            t->h[(i - 1) / 2] = x;
            i = (i - 1) / 2;
        }
    } else if (worse(&t->h[0], c)) {
        t->h[0] = *c;
        sift_down(t, 0);
    }
}

static int rank_order(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    return worse(y, x) ? -1 : worse(x, y) ? 1 : 0;
}

/* ------------------------------------------------------------------------
 * CPU score pass
 * ---------------------------------------------------------------------- */
/* Target i (sorted order): its pointer and length. */
static const uint8_t *target(const hay_align_db *db, uint64_t i, size_t *n)
{
    *n = (size_t)(db->offsets[i + 1] - db->offsets[i]);
    return db->codes + db->offsets[i];
}

/* A target that 16 bits could not hold, in 32 bits (the thread's 32-bit
 * profile *p32 of the query made on first use). */
static hay_status redo32(const search *sc, void **p32, const uint8_t *q,
                         size_t m, const uint8_t *t, size_t n, sw_end *e)
{
    hay_status err = HAY_OK;
    if (!*p32)
        err = sc->fallback->profile(sc->s, q, m, p32);
    if (err == HAY_OK)
        err = sc->fallback->score(*p32, sc->s, q, m, t, n, e);
    if (err == HAY_OK && e->saturated)
        err = HAY_ERR_STATE;
    return err;
}

static void keep(const search *sc, topk *mine, uint64_t i, const sw_end *e,
                 uint32_t flags)
{
    if (e->score > 0 && e->score >= sc->min_score) {
        cand c = { e->score, sc->db->order[i], e->q_end, e->t_end, flags };
        hay_db_topk_add(mine, &c);
    }
}

/* Targets [lo, hi) (sorted order) with the inter-sequence kernel, a
 * batch of its 8-bit lanes; their end cells are left to the hits' pass. */
static hay_status inter_batch(const search *sc, void **p32,
                              sw_inter_work *work, const uint8_t *q, size_t m,
                              uint64_t lo, uint64_t hi, topk *mine,
                              uint64_t *rescored)
{
    const uint8_t *t[HAY_SW_INTER_MAX_LANES] = { 0 };
    size_t n[HAY_SW_INTER_MAX_LANES] = { 0 };
    int32_t got[HAY_SW_INTER_MAX_LANES];
    size_t count = (size_t)(hi - lo);
    for (size_t k = 0; k < count; k++)
        t[k] = target(sc->db, lo + k, &n[k]);
    hay_status err = hay_sw_inter_scores(sc->inter, q, m, t, n, count, got,
                                         work);
    for (size_t k = 0; err == HAY_OK && k < count; k++) {
        sw_end e = { got[k], 0, 0, 0 };
        uint32_t flags = 0;
        if (got[k] == HAY_SW_INTER_SATURATED) {
            err = redo32(sc, p32, q, m, t[k], n[k], &e);
            flags = HAY_ALIGN_RESCORED32;
            ++*rescored;
        }
        if (err == HAY_OK)
            keep(sc, mine, lo + k, &e, flags);
    }
    return err;
}

/* One query on `threads` threads; *rescored counts the 32-bit redos.  The
 * targets go in units of one (striped, dynamic chunks of CHUNK) or of a
 * batch (inter: neighbours in length, so little padding), longest first. */
static hay_status cpu_query(const search *sc, int threads, const uint8_t *q,
                            size_t m, topk *out, uint64_t *rescored_out)
{
    const hay_align_db *db = sc->db;
    void *prof = NULL;
    hay_status first = HAY_OK;
    if (!sc->inter)
        first = sc->first->profile(sc->s, q, m, &prof);
    if (first != HAY_OK)
        return first;
    const uint64_t per = sc->inter ? (uint64_t)sc->inter->lanes8 : 1;
    const uint64_t units = (db->nseq + per - 1) / per;
    const int chunk = sc->inter ? 1 : CHUNK;
    uint64_t rescored = 0;
#pragma omp parallel num_threads(threads) reduction(+ : rescored)
    {
        topk mine = { malloc(sc->k * sizeof(cand)), 0, sc->k };
        void *p32 = NULL;
        sw_inter_work work = { NULL, 0 };
        hay_status err = mine.h ? HAY_OK : HAY_ERR_NOMEM;
#pragma omp for schedule(dynamic, chunk) nowait
        for (uint64_t u = 0; u < units; u++) {
            if (err != HAY_OK)
                continue;
            uint64_t hi = db->nseq - u * per, lo = hi > per ? hi - per : 0;
            if (sc->inter) {
                err = inter_batch(sc, &p32, &work, q, m, lo, hi, &mine,
                                  &rescored);
                continue;
            }
            size_t n;
            const uint8_t *t = target(db, lo, &n);
            sw_end e;
            err = sc->first->score(prof, sc->s, q, m, t, n, &e);
            uint32_t flags = 0;
            if (err == HAY_OK && e.saturated) {
                err = redo32(sc, &p32, q, m, t, n, &e);
                flags = HAY_ALIGN_RESCORED32;
                rescored++;
            }
            if (err == HAY_OK)
                keep(sc, &mine, lo, &e, flags);
        }
#pragma omp critical(hay_db_merge)
        {
            if (err != HAY_OK && first == HAY_OK)
                first = err;
            for (size_t j = 0; j < mine.n; j++)
                hay_db_topk_add(out, &mine.h[j]);
        }
        if (p32)
            sc->fallback->profile_free(p32);
        hay_sw_inter_work_free(&work);
        free(mine.h);
    }
    sc->first->profile_free(prof);
    *rescored_out = rescored;
    return first;
}

/*
 * Whether the inter-sequence kernel beats the striped engines on a query
 * whose targets go to `threads` threads, in units of one target's striped
 * pass: the striped search costs nseq over the threads; the inter one
 * ceil(batches / threads) rounds of a batch (32 or 64) at INTER_SPEEDUP times
 * the striped speed (1.6-2 on the GPU host's Xeon, 3.4 on this project's
 * VM: docs/notes/2026-11-26-sw-inter.md), plus one striped pass per kept
 * hit for its end cell; and at least INTER_MIN_ROUNDS rounds, below which
 * the host's 16 threads lost on the batches' uneven ends (31 queries: 1,024
 * targets, 2 rounds, striped 0.178 s against 0.201; 2,048, 4 rounds, inter
 * 0.204 against 0.338).
 */
static bool inter_pays(uint64_t nseq, size_t k, int threads, int lanes)
{
    uint64_t t = (uint64_t)threads, b = (uint64_t)lanes;
    uint64_t rounds = ((nseq + b - 1) / b + t - 1) / t;
    return rounds >= INTER_MIN_ROUNDS &&
           rounds * t * b / INTER_SPEEDUP + k < nseq;
}

/* A hit of the inter-sequence kernel, which gives scores only: its end
 * cell from the striped engines as their own search would have found it
 * (the same engines, the same 32-bit redo, its flags), with the query's
 * striped profile `prof` (made once per query). */
static hay_status end_cell(const search *sc, void *prof, const uint8_t *q, size_t m,
                           const uint8_t *t, size_t n,
                           const hay_align_db_hit *hit, hay_align_result *r)
{
    void *p32 = NULL;
    sw_end e = { 0, 0, 0, 0 };
    hay_status err = sc->first->score(prof, sc->s, q, m, t, n, &e);
    if (err == HAY_OK && e.saturated)
        err = redo32(sc, &p32, q, m, t, n, &e);
    if (p32)
        sc->fallback->profile_free(p32);
    *r = hit->r;
    r->score = e.score;
    r->q_end = e.q_end;
    r->t_end = e.t_end;
    r->flags = 0;           /* the caller adds the search's */
    return err;
}

static void free_profiles(const search *sc, void **profs, size_t n)
{
    for (size_t j = 0; profs && j < n; j++)
        if (profs[j])
            sc->first->profile_free(profs[j]);
    free(profs);
}

/* Query j's top-k, on `threads` threads; its heap then holds only its
 * hits (a large k with few hits keeps little). */
static hay_status cpu_one(const search *sc, int threads,
                          const hay_align_seq *qj, topk *t,
                          uint64_t *rescored)
{
    t->k = sc->k;
    t->h = malloc(sc->k * sizeof(cand));
    if (!t->h)
        return HAY_ERR_NOMEM;
    hay_status st = cpu_query(sc, threads, qj->codes, qj->len, t, rescored);
    cand *fit = realloc(t->h, (t->n ? t->n : 1) * sizeof(cand));
    if (fit) {
        t->h = fit;
        t->k = t->n;
    }
    return st;
}

static int longer_first(const void *a, const void *b, void *ctx)
{
    const hay_align_seq *q = ctx;
    size_t x = q[*(const size_t *)a].len, y = q[*(const size_t *)b].len;
    return x > y ? -1 : x < y;
}

/*
 * Many queries: each on one thread, longest first, so no thread waits at a
 * barrier per query (a batch of short reads would otherwise spend its time
 * starting and joining teams).  Few queries: each on every thread, over the
 * targets.
 */
static hay_status cpu_search(search *sc, const hay_align_seq *queries,
                             size_t nq, topk *tops)
{
    int whole = nq >= (size_t)QUERIES_PER_THREAD * (size_t)sc->threads &&
                sc->threads > 1;
    if (sc->inter && !sc->inter_forced &&
        !inter_pays(sc->db->nseq, sc->k, whole ? 1 : sc->threads,
                    sc->inter->lanes8))
        sc->inter = NULL;
    if (!whole) {
        for (size_t j = 0; j < nq; j++) {
            uint64_t r = 0;
            hay_status st = cpu_one(sc, sc->threads, &queries[j], &tops[j],
                                    &r);
            sc->rescored += r;
            if (st != HAY_OK)
                return st;
        }
        return HAY_OK;
    }
    size_t *by = malloc(nq * sizeof *by);
    if (!by)
        return HAY_ERR_NOMEM;
    for (size_t j = 0; j < nq; j++)
        by[j] = j;
    qsort_r(by, nq, sizeof *by, longer_first, (void *)queries);
    hay_status first = HAY_OK;
    uint64_t rescored = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(sc->threads) \
    reduction(+ : rescored)
    for (size_t x = 0; x < nq; x++) {
        uint64_t r = 0;
        hay_status e = cpu_one(sc, 1, &queries[by[x]], &tops[by[x]], &r);
        rescored += r;
        if (e != HAY_OK) {
#pragma omp critical(hay_db_err)
            if (first == HAY_OK)
                first = e;
        }
    }
    sc->rescored += rescored;
    free(by);
    return first;
}

/* The timeline as results keep it: its phases in the order they began. */
static int phase_by_start(const void *a, const void *b)
{
    const hay_align_phase *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static hay_status keep_phases(const hay_swdb_timeline *tl, hay_align_db_results *res)
{
    res->phases = malloc((tl->n ? (size_t)tl->n : 1) * sizeof *res->phases);
    if (!res->phases)
        return HAY_ERR_NOMEM;
    memcpy(res->phases, tl->p, (size_t)tl->n * sizeof *res->phases);
    res->nphases = (size_t)tl->n;
    qsort(res->phases, res->nphases, sizeof *res->phases, phase_by_start);
    return HAY_OK;
}

/* ------------------------------------------------------------------------
 * The search
 * ---------------------------------------------------------------------- */
/* The instance a db_kernel value names (NONE: the default, AVX2). */
static int kernel_isa(int kernel)
{
    return kernel == HAY_SW_DB_KERNEL_INTER_AVX2     ? HAY_SW_INTER_AVX2
           : kernel == HAY_SW_DB_KERNEL_INTER_AVX512 ? HAY_SW_INTER_AVX512
                                                     : HAY_SW_INTER_NONE;
}

static bool inter_forced(int kernel)
{
    return kernel == HAY_SW_DB_KERNEL_INTER || kernel_isa(kernel);
}

/* Whether the CPU score pass may take the inter-sequence kernel
 * (sw_inter.h): asked for (db_kernel=inter*), or by default (variant auto;
 * cpu_search then asks inter_pays); never without AVX2 or with a scoring
 * that 16-bit lanes cannot hold, where the striped engines run. */
static bool use_inter(int kernel, const char *variant, const sw_inter *x)
{
    if (kernel == HAY_SW_DB_KERNEL_STRIPED || x->isa == HAY_SW_INTER_NONE ||
        !x->usable16)
        return false;
    if (inter_forced(kernel))
        return true;
    return !variant || !strcmp(variant, "auto");
}

typedef struct job {
    const uint8_t *q;
    size_t m;
    size_t query;             /* its index, for the query's profile */
    hay_align_db_hit *hit;
} job;

static int larger_job_first(const void *a, const void *b)
{
    uint64_t x = ((const job *)a)->hit->r.cells, y = ((const job *)b)->hit->r.cells;
    return x > y ? -1 : x < y;
}

hay_status hay_align_db_search(const hay_align_db *db,
                               const hay_align_scoring *s,
                               const hay_align_seq *queries, size_t nq,
                               const hay_align_db_options *o,
                               hay_align_db_results **out)
{
    if (!out)
        return HAY_ERR_INVALID;
    *out = NULL;
    if (!db || !s || (nq && !queries))
        return HAY_ERR_INVALID;
    if (hay_align_db_check_scoring(db, s) != HAY_OK)
        return HAY_ERR_INVALID;
    hay_align_db_options def;
    if (!o) {
        hay_align_db_options_init(&def);
        o = &def;
    }
    double t0 = hay_now();
    hay_swdb_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return HAY_ERR_NOMEM;
    search sc;
    memset(&sc, 0, sizeof sc);
    sc.tl = tl;
    sc.db = db;
    sc.s = s;
    sc.k = o->top_k ? o->top_k : DEFAULT_TOP_K;
    if (sc.k > db->nseq)
        sc.k = (size_t)db->nseq;
    sc.min_score = o->min_score;
    sc.threads = (int)hay_thread_cap(o->align.threads > 0 ? (unsigned)o->align.threads : 0);

    hay_align_db_results *res = NULL;
    topk *tops = NULL;
    job *jobs = NULL;
    void **profs = NULL;      /* end cells: each query's striped profile */
    hay_status st = HAY_ERR_INVALID;
    int64_t top = s->max_score > 0 ? s->max_score : 1;
    uint64_t cells = 0;
    for (size_t j = 0; j < nq; j++) {
        if (!queries[j].codes || queries[j].len == 0)
            goto fail;
        for (size_t i = 0; i < queries[j].len; i++)
            if (queries[j].codes[i] >= s->alpha)
                goto fail;
        uint64_t shorter = queries[j].len < db->longest ? queries[j].len
                                                         : db->longest;
        if ((int64_t)shorter > MAX_SCORE_BOUND / top) {
            st = HAY_ERR_TOO_LARGE;
            goto fail;
        }
        cells += (uint64_t)queries[j].len * db->nres;
    }
    hay_swdb_phase_add(tl, "search:check", t0, hay_now());

    /* Auto: the GPU for a search that pays its start-up (the probe is the
     * driver's start: after the warm-up, which pays it ahead). */
    hay_backend be = o->align.backend;
    if (be == HAY_BACKEND_AUTO) {
        be = HAY_BACKEND_CPU;
#ifdef HAY_HAVE_CUDA_SWDB
        if (hay_align_db_auto_gpu(cells, sc.threads)) {
            if (o->warm)
                hay_db_warm_join(o->warm, tl);
            t0 = hay_now();
            if (hay_backend_available(HAY_BACKEND_CUDA) == HAY_OK)
                be = HAY_BACKEND_CUDA;
            hay_swdb_phase_add(tl, "search:auto_probe", t0, hay_now());
        }
#endif
    }
    st = HAY_ERR_NO_BACKEND;
    if (be == HAY_BACKEND_OPENCL)
        goto fail;
    if (be == HAY_BACKEND_CUDA) {
#ifndef HAY_HAVE_CUDA_SWDB
        goto fail;
#endif
    } else if (be != HAY_BACKEND_CPU) {
        st = HAY_ERR_INVALID;
        goto fail;
    }
    /* The CPU variant of the score pass (CPU backend) and of the hits'
     * end cells and tracebacks (every backend). */
    const char *cpu_variant = be == HAY_BACKEND_CPU ? o->align.variant : NULL;
    st = hay_sw_variant_engines(cpu_variant, &sc.first, &sc.fallback);
    if (st != HAY_OK)
        goto fail;
    if (!sc.fallback)
        sc.fallback = &hay_sw_scalar;
    sw_inter inter;
    if (be == HAY_BACKEND_CPU) {
        hay_sw_wavefront_params cp;
        st = hay_sw_wavefront_params_get(o->align.device_params, &cp);
        if (st != HAY_OK)
            goto fail;
        hay_sw_inter_prepare(s, kernel_isa(cp.db_kernel), &inter);
        /* an instance named that this CPU cannot run, as a variant's */
        st = HAY_ERR_UNSUPPORTED;
        if (kernel_isa(cp.db_kernel) && inter.isa == HAY_SW_INTER_NONE)
            goto fail;
        if (use_inter(cp.db_kernel, cpu_variant, &inter))
            sc.inter = &inter;
        sc.inter_forced = inter_forced(cp.db_kernel);
    }

    res = calloc(1, sizeof *res);
    tops = calloc(nq ? nq : 1, sizeof *tops);
    st = HAY_ERR_NOMEM;
    if (!res || !tops)
        goto fail;
    res->nqueries = nq;
    res->backend = be;
    res->engine = be == HAY_BACKEND_CPU ? sc.first->name : "cuda";
    res->queries = calloc(nq ? nq : 1, sizeof *res->queries);
    if (!res->queries)
        goto fail;
    res->cells = cells;

    t0 = hay_now();
    double t_scores = t0;
    if (be == HAY_BACKEND_CPU) {
        st = cpu_search(&sc, queries, nq, tops);
        if (st != HAY_OK)
            goto fail;
        if (sc.inter)
            res->engine = sc.inter->isa == HAY_SW_INTER_AVX512 ? "inter_avx512"
                                                               : "inter_avx2";
        hay_swdb_phase_add(tl, "search:cpu_scores", t0, hay_now());
    } else {
        for (size_t j = 0; j < nq; j++) {
            tops[j].k = sc.k;
            tops[j].h = malloc(sc.k * sizeof(cand));
            if (!tops[j].h)
                goto fail;
        }
#ifdef HAY_HAVE_CUDA_SWDB
        if (o->warm)
            hay_db_warm_join(o->warm, tl);
        sc.parts = 1;
        st = hay_db_gpu_search(&sc, o->align.device_params, queries, nq, tops);
        /* The last device use: its teardown overlaps the alignments,
         * where there is enough CPU work left to hide it. */
        if (st == HAY_OK && o->warm && o->release_device &&
            hay_db_gpu_release_pays(&sc, queries, nq, tops, o->align.score_only))
            hay_db_gpu_release_device(&sc, o->warm);
#endif
        if (st != HAY_OK)
            goto fail;
    }
    t0 = hay_now();
    res->rescored32 = sc.rescored;
    res->device_parts = be == HAY_BACKEND_CPU ? 0 : sc.parts;

    size_t njobs = 0;
    for (size_t j = 0; j < nq; j++) {
        qsort(tops[j].h, tops[j].n, sizeof(cand), rank_order);
        res->queries[j].hits = calloc(tops[j].n ? tops[j].n : 1,
                                      sizeof(hay_align_db_hit));
        if (!res->queries[j].hits) {
            st = HAY_ERR_NOMEM;
            goto fail;
        }
        res->queries[j].nhits = tops[j].n;
        njobs += tops[j].n;
    }
    hay_swdb_phase_add(tl, "search:rank", t0, hay_now());
    res->seconds_scores = hay_now() - t_scores;

    /* The reported hits: end cells from the score pass (the GPU and the
     * inter-sequence kernel give scores only, so their hits get one CPU
     * score pass: the striped engines' own for the latter), then unless
     * score_only the traceback, each checked against the search's score. */
    t0 = hay_now();
    jobs = malloc((njobs ? njobs : 1) * sizeof *jobs);
    if (!jobs) {
        st = HAY_ERR_NOMEM;
        goto fail;
    }
    size_t w = 0;
    for (size_t j = 0; j < nq; j++)
        for (size_t h = 0; h < tops[j].n; h++) {
            const cand *c = &tops[j].h[h];
            hay_align_db_hit *hit = &res->queries[j].hits[h];
            const uint8_t *codes;
            hay_align_db_seq(db, c->target, &hit->name, &codes,
                             &hit->target_len);
            hit->target = c->target;
            hit->evalue = NAN;
            hit->bitscore = NAN;
            hit->r.score = c->score;
            hit->r.q_end = c->q_end;
            hit->r.t_end = c->t_end;
            hit->r.q_start = hit->r.t_start = UINT64_MAX;
            hit->r.cells = (uint64_t)queries[j].len * hit->target_len;
            hit->r.flags = c->flags;
            jobs[w].q = queries[j].codes;
            jobs[w].m = queries[j].len;
            jobs[w].query = j;
            jobs[w].hit = hit;
            w++;
        }
    int need = !o->align.score_only || be != HAY_BACKEND_CPU || sc.inter;
    /* Largest pairs first, so that no thread is left with a long one at
     * the end (the hits come query by query, and a long query's 50 come
     * together). */
    if (need)
        qsort(jobs, njobs, sizeof *jobs, larger_job_first);
    hay_align_options po = o->align;
    po.backend = HAY_BACKEND_CPU;
    po.variant = cpu_variant;
    if (be != HAY_BACKEND_CPU)
        po.device_params = NULL;    /* the GPU's keys, not the CPU's */
    hay_status first = HAY_OK;
    /* The end cells of score-only CPU hits: one striped profile a query
     * (a profile a hit cost about 8% of the whole search). */
    int ends = need && be == HAY_BACKEND_CPU && o->align.score_only;
    if (ends) {
        profs = calloc(nq ? nq : 1, sizeof *profs);
        if (!profs) {
            st = HAY_ERR_NOMEM;
            goto fail;
        }
        for (size_t j = 0; j < nq && first == HAY_OK; j++)
            if (tops[j].n)
                first = sc.first->profile(sc.s, queries[j].codes, queries[j].len, &profs[j]);
    }
    if (need && first == HAY_OK) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(sc.threads)
        for (size_t x = 0; x < njobs; x++) {
            hay_align_db_hit *hit = jobs[x].hit;
            const uint8_t *t;
            hay_align_db_seq(db, hit->target, NULL, &t, NULL);
            hay_align_result r;
            hay_status e;
            if (ends)
                e = end_cell(&sc, profs[jobs[x].query], jobs[x].q, jobs[x].m, t,
                             hit->target_len, hit, &r);
            else
                e = hay_align_pair(s, jobs[x].q, jobs[x].m, t,
                                   hit->target_len, &po, &r);
            if (e == HAY_OK && r.score != hit->r.score) {
                e = be == HAY_BACKEND_CPU ? HAY_ERR_STATE : HAY_ERR_DEVICE;
                hay_align_result_clear(&r);
            }
            if (e == HAY_OK) {
                r.flags |= hit->r.flags;
                hit->r = r;
            } else {
#pragma omp critical(hay_db_err)
                if (first == HAY_OK)
                    first = e;
            }
        }
    }
    st = first;
    if (st != HAY_OK)
        goto fail;
    res->seconds_traceback = need ? hay_now() - t0 : 0.0;
    if (need)
        hay_swdb_phase_add(tl, o->align.score_only ? "search:end_cells"
                                                   : "search:traceback",
                           t0, hay_now());
    st = keep_phases(tl, res);
    if (st != HAY_OK)
        goto fail;
    for (size_t j = 0; j < nq; j++)
        free(tops[j].h);
    free(tops);
    free(jobs);
    free_profiles(&sc, profs, nq);
    free(tl);
    *out = res;
    return HAY_OK;
fail:
    for (size_t j = 0; tops && j < nq; j++)
        free(tops[j].h);
    free(tops);
    free(jobs);
    free_profiles(&sc, profs, nq);
    free(tl);
    hay_align_db_results_free(res);
    return st;
}
