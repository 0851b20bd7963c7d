/*
 * align.c - the aligner's front end: the variant table, one pair (score
 * pass, reverse pass for the start, traceback), many pairs on many threads,
 * and the GPU score passes.
 *
 * How a pair is aligned:
 *  1. The score pass (a CPU engine, or a GPU) gives the best score S and
 *     its end cell (qe, te) under the tie rule: the smallest query end,
 *     then the smallest target end.  A 16-bit pass that may have saturated
 *     is redone in 32 bits.
 *  2. The reverse pass runs the same engine on the reversed prefixes
 *     q[0..qe] and t[0..te].  Because of the tie rule, every alignment of
 *     score S inside that rectangle ends exactly at (qe, te) (one ending
 *     elsewhere would be a best cell before (qe, te) in row-major order), so
 *     the reverse pass's best cell is a start of an optimal alignment that
 *     ends at (qe, te): (qs, ts) = (qe - i', te - j'), the largest query
 *     start, then the largest target start.  Its score must be S.
 *  3. The rectangle q[qs..qe] x t[ts..te] is aligned globally
 *     (sw_global.c): its best global score is S (it is at least S, the
 *     local alignment, and at most S, S being the best local score).  The
 *     ops are rescored; anything but S is an internal error, never a
 *     silently wrong alignment.
 */
#include "align_internal.h"
#include "../core/internal.h"   /* hay_thread_cap */
#include "sw_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#define DEFAULT_TRACEBACK_BYTES ((uint64_t)64 << 20)
#define MAX_SCORE_BOUND ((int64_t)1 << 30)

typedef struct sw_variant {
    const char *name;
    const sw_engine *(*pick)(int bits);   /* NULL: fixed engines below */
    const sw_engine *first, *fallback;
} sw_variant;

static const sw_engine *best_isa(int bits)
{
    int avx2 = hay_sw_striped16_avx2.supported();
    if (bits == 16)
        return avx2 ? &hay_sw_striped16_avx2 : &hay_sw_striped16_sse2;
    return avx2 ? &hay_sw_striped32_avx2 : &hay_sw_striped32_sse2;
}

static const sw_variant variants[] = {
    { "scalar", NULL, &hay_sw_scalar, NULL },
    { "striped16", best_isa, NULL, NULL },
    { "striped32", best_isa, NULL, NULL },
    { "striped16_sse2", NULL, &hay_sw_striped16_sse2, &hay_sw_striped32_sse2 },
    { "striped16_avx2", NULL, &hay_sw_striped16_avx2, &hay_sw_striped32_avx2 },
    { "striped32_sse2", NULL, &hay_sw_striped32_sse2, NULL },
    { "striped32_avx2", NULL, &hay_sw_striped32_avx2, NULL },
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

typedef struct engines {
    const sw_engine *first, *fallback;
} engines;

static hay_status resolve(const char *name, engines *out)
{
    if (!name || !strcmp(name, "auto"))
        name = "striped16";
    for (size_t i = 0; i < NVARIANTS; i++) {
        const sw_variant *v = &variants[i];
        if (strcmp(v->name, name))
            continue;
        if (v->pick) {
            int bits = strstr(name, "16") ? 16 : 32;
            out->first = v->pick(bits);
            out->fallback = bits == 16 ? v->pick(32) : NULL;
        } else {
            out->first = v->first;
            out->fallback = v->fallback;
        }
        if (!out->first->supported())
            return HAY_ERR_UNSUPPORTED;
        return HAY_OK;
    }
    return HAY_ERR_UNKNOWN_NAME;
}

hay_status hay_sw_variant_engines(const char *variant, const sw_engine **first,
                                  const sw_engine **fallback)
{
    engines e;
    hay_status st = resolve(variant, &e);
    if (st != HAY_OK)
        return st;
    *first = e.first;
    *fallback = e.fallback;
    return HAY_OK;
}

hay_status hay_align_variant_name(size_t i, const char **name)
{
    if (!name || i >= NVARIANTS)
        return HAY_ERR_INVALID;
    *name = variants[i].name;
    return HAY_OK;
}

hay_status hay_align_variant_check(const char *variant, const char **resolved)
{
    engines e;
    hay_status st = resolve(variant, &e);
    if (st == HAY_OK && resolved)
        *resolved = e.first->name;
    return st;
}

hay_status hay_align_backend_check(hay_backend backend)
{
    switch (backend) {
    case HAY_BACKEND_AUTO:
    case HAY_BACKEND_CPU:
        return HAY_OK;
    case HAY_BACKEND_CUDA:
#ifdef HAY_HAVE_CUDA_SW
        return hay_backend_available(backend);
#else
        return HAY_ERR_NO_BACKEND;
#endif
    case HAY_BACKEND_OPENCL:
#ifdef HAY_HAVE_OPENCL_SW
        return hay_backend_available(backend);
#else
        return HAY_ERR_NO_BACKEND;
#endif
    }
    return HAY_ERR_INVALID;
}

void hay_align_options_init(hay_align_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->backend = HAY_BACKEND_AUTO;
}

void hay_align_result_clear(hay_align_result *r)
{
    if (!r)
        return;
    free(r->cigar);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------
 * Score passes
 * ---------------------------------------------------------------------- */
typedef struct ctx {
    const hay_align_scoring *s;
    const hay_align_options *o;     /* the caller's, or def */
    hay_align_options def;          /* the defaults, for a NULL o */
    hay_backend backend;
    engines eng;
    int wave_ok;                    /* CPU, variant auto: long pairs may go
                                     * to sw_wavefront.c */
    int pair_threads;               /* threads one pair may use */
    hay_sw_wavefront_params wave;
} ctx;

static int wave_size(const ctx *c, size_t m, size_t n)
{
    return c->wave_ok && (uint64_t)m * n >= c->wave.min_cells &&
           m >= HAY_SW_WAVEFRONT_MIN_SIDE && n >= HAY_SW_WAVEFRONT_MIN_SIDE;
}

static int long_pair(const ctx *c, size_t m, size_t n)
{
    return c->pair_threads > 1 && wave_size(c, m, n);
}

static hay_status gpu_pass(const ctx *c, const uint8_t *q, size_t m,
                           const uint8_t *t, size_t n, sw_end *e)
{
    hay_sw_problem p;
    hay_sw_device_result r;
    memset(&r, 0, sizeof r);
    p.q = q;
    p.m = m;
    p.t = t;
    p.n = n;
    p.matrix = c->s->matrix;
    p.alpha = c->s->alpha;
    p.gap_open = c->s->open;
    p.gap_extend = c->s->extend;
    const char *v = c->o->variant;
    if (v && !strcmp(v, "auto"))
        v = NULL;
    int st = HAY_ERR_NO_BACKEND;
    (void)p;
    (void)v;
    if (c->backend == HAY_BACKEND_CUDA) {
#ifdef HAY_HAVE_CUDA_SW
        st = hay_cuda_sw_score(&p, v, c->o->device_params, &r);
#endif
    } else {
#ifdef HAY_HAVE_OPENCL_SW
        st = hay_opencl_sw_score(&p, v, c->o->device_params, &r);
#endif
    }
    if (st != HAY_OK)
        return (hay_status)st;
    if (r.score < 0 || (r.score > 0 && (r.q_end >= m || r.t_end >= n)))
        return HAY_ERR_DEVICE;
    e->score = r.score;
    e->q_end = r.q_end;
    e->t_end = r.t_end;
    e->saturated = 0;
    return HAY_OK;
}

/* One score pass; prof (may be NULL) is c->eng.first's profile of q. */
static hay_status score_pass(const ctx *c, const void *prof, const uint8_t *q,
                             size_t m, const uint8_t *t, size_t n, sw_end *e,
                             uint32_t *flags)
{
    if (c->backend == HAY_BACKEND_CUDA || c->backend == HAY_BACKEND_OPENCL)
        return gpu_pass(c, q, m, t, n, e);
    if (long_pair(c, m, n)) {
        /* 16 bits, redone in 32 when a score may have saturated */
        *flags |= HAY_ALIGN_WAVEFRONT;
        hay_status st = hay_sw_wavefront_score(c->s, q, m, t, n,
                                               c->pair_threads,
                                               (size_t)c->wave.tile, 16, e);
        if (st != HAY_OK || !e->saturated)
            return st;
        *flags |= HAY_ALIGN_RESCORED32;
        return hay_sw_wavefront_score(c->s, q, m, t, n, c->pair_threads,
                                      (size_t)c->wave.tile, 32, e);
    }
    hay_status st;
    void *own = NULL;
    if (!prof) {
        st = c->eng.first->profile(c->s, q, m, &own);
        if (st != HAY_OK)
            return st;
        prof = own;
    }
    st = c->eng.first->score(prof, c->s, q, m, t, n, e);
    c->eng.first->profile_free(own);
    if (st != HAY_OK || !e->saturated)
        return st;
    const sw_engine *fb = c->eng.fallback ? c->eng.fallback : &hay_sw_scalar;
    void *p32 = NULL;
    st = fb->profile(c->s, q, m, &p32);
    if (st != HAY_OK)
        return st;
    st = fb->score(p32, c->s, q, m, t, n, e);
    fb->profile_free(p32);
    if (st == HAY_OK && e->saturated)
        st = HAY_ERR_STATE;
    *flags |= HAY_ALIGN_RESCORED32;
    return st;
}

/* ------------------------------------------------------------------------
 * One pair
 * ---------------------------------------------------------------------- */
static hay_status check_seq(const hay_align_scoring *s, const uint8_t *x,
                            size_t len)
{
    if (!x || len == 0)
        return HAY_ERR_INVALID;
    for (size_t i = 0; i < len; i++)
        if (x[i] >= s->alpha)
            return HAY_ERR_INVALID;
    return HAY_OK;
}

static hay_status traceback(const ctx *c, const uint8_t *q, const uint8_t *t,
                            hay_align_result *r)
{
    const hay_align_scoring *s = c->s;
    size_t ml = r->q_end + 1, nl = r->t_end + 1;
    /* The start lies within a span that the score bounds: an alignment
     * with a query residues and d target residues against gaps scores at
     * most a * max - (open + (d - 1) * extend), so d, and the target span
     * (at most a + d), are bounded, and the same the other way round.  A
     * read aligned near the end of a genome then needs no pass over the
     * whole genome. */
    if (s->extend > 0) {
        int64_t top = s->max_score > 0 ? s->max_score : 0;
        int64_t dq = ((int64_t)ml * top - r->score - s->open) / s->extend + 1;
        int64_t dt = ((int64_t)nl * top - r->score - s->open) / s->extend + 1;
        if (dq < 0)
            dq = 0;
        if (dt < 0)
            dt = 0;
        if ((uint64_t)ml + (uint64_t)dq < nl)
            nl = ml + (size_t)dq;
        if ((uint64_t)nl + (uint64_t)dt < ml)
            ml = nl + (size_t)dt;
    }
    hay_status st = HAY_ERR_NOMEM;
    uint8_t *rq = malloc(ml), *rt = malloc(nl);
    char *ops = NULL;
    if (!rq || !rt)
        goto out;
    for (size_t i = 0; i < ml; i++)
        rq[i] = q[r->q_end - i];
    for (size_t j = 0; j < nl; j++)
        rt[j] = t[r->t_end - j];
    sw_end e;
    uint32_t fl = 0;
    st = score_pass(c, NULL, rq, ml, rt, nl, &e, &fl);
    if (st != HAY_OK)
        goto out;
    if (e.score != r->score) {
        st = c->backend == HAY_BACKEND_CUDA || c->backend == HAY_BACKEND_OPENCL
                 ? HAY_ERR_DEVICE : HAY_ERR_STATE;
        goto out;
    }
    r->q_start = r->q_end - e.q_end;
    r->t_start = r->t_end - e.t_end;
    size_t mq = (size_t)(r->q_end - r->q_start + 1);
    size_t nt = (size_t)(r->t_end - r->t_start + 1);
    ops = malloc(mq + nt);
    if (!ops) {
        st = HAY_ERR_NOMEM;
        goto out;
    }
    size_t len;
    int64_t score;
    int linear;
    uint64_t budget = c->o->traceback_bytes ? c->o->traceback_bytes
                                            : DEFAULT_TRACEBACK_BYTES;
    /* A pair whose score passes ran on the threads has its traceback on
     * them too (sw_hirschberg.c). */
    sw_global_par par = { 1, c->wave.split_cells, (size_t)c->wave.tile };
    if (r->flags & HAY_ALIGN_WAVEFRONT)
        par.threads = c->pair_threads;
    st = hay_sw_global_ops(s, q + r->q_start, mq, t + r->t_start, nt, &par,
                           budget, ops, &len, &score, &linear);
    if (st != HAY_OK)
        goto out;
    if (score != r->score || len == 0 || ops[0] == 'I' || ops[0] == 'D' ||
        ops[len - 1] == 'I' || ops[len - 1] == 'D') {
        st = HAY_ERR_STATE;
        goto out;
    }
    if (linear)
        r->flags |= HAY_ALIGN_LINEAR;
    /* Counts and the run-length CIGAR (at most 21 characters a run). */
    size_t runs = 0;
    for (size_t k = 0; k < len; k++)
        if (k == 0 || ops[k] != ops[k - 1])
            runs++;
    r->cigar = malloc(runs * 21 + 1);
    if (!r->cigar) {
        st = HAY_ERR_NOMEM;
        goto out;
    }
    size_t w = 0, i = (size_t)r->q_start, j = (size_t)r->t_start;
    for (size_t k = 0; k < len;) {
        size_t k2 = k;
        while (k2 < len && ops[k2] == ops[k])
            k2++;
        w += (size_t)sprintf(r->cigar + w, "%zu%c", k2 - k, ops[k]);
        if (ops[k] == 'I' || ops[k] == 'D') {
            r->gap_opens++;
            r->gaps += k2 - k;
            if (ops[k] == 'I')
                i += k2 - k;
            else
                j += k2 - k;
        } else {
            for (size_t x = k; x < k2; x++, i++, j++) {
                if (ops[k] == '=')
                    r->matches++;
                else
                    r->mismatches++;
                if (s->matrix[q[i] * s->alpha + t[j]] > 0)
                    r->positives++;
            }
        }
        k = k2;
    }
    r->length = len;
    st = HAY_OK;
out:
    free(rq);
    free(rt);
    free(ops);
    return st;
}

static hay_status pair_run(const ctx *c, const void *prof, const uint8_t *q,
                           size_t m, const uint8_t *t, size_t n,
                           hay_align_result *r)
{
    memset(r, 0, sizeof *r);
    hay_status st = check_seq(c->s, q, m);
    if (st == HAY_OK)
        st = check_seq(c->s, t, n);
    if (st != HAY_OK)
        return st;
    int64_t top = c->s->max_score > 0 ? c->s->max_score : 1;
    if ((int64_t)(m < n ? m : n) > MAX_SCORE_BOUND / top)
        return HAY_ERR_TOO_LARGE;
    r->cells = (uint64_t)m * n;
    sw_end e;
    st = score_pass(c, prof, q, m, t, n, &e, &r->flags);
    if (st != HAY_OK) {
        memset(r, 0, sizeof *r);
        return st;
    }
    r->score = e.score;
    r->q_end = e.q_end;
    r->t_end = e.t_end;
    r->q_start = r->t_start = UINT64_MAX;
    if (c->o->score_only || e.score == 0)
        return HAY_OK;
    st = traceback(c, q, t, r);
    if (st != HAY_OK)
        hay_align_result_clear(r);
    return st;
}

/* A call's context; o NULL: the default options (c->o points into c). */
static hay_status ctx_init(ctx *c, const hay_align_scoring *s,
                           const hay_align_options *o)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    if (!o) {
        hay_align_options_init(&c->def);
        o = &c->def;
    }
    c->o = o;
    c->backend = o->backend == HAY_BACKEND_AUTO ? HAY_BACKEND_CPU : o->backend;
    if (c->backend == HAY_BACKEND_CPU) {
        hay_status st = hay_sw_wavefront_params_get(o->device_params, &c->wave);
        if (st != HAY_OK)
            return st;
        c->wave_ok = !o->variant || !strcmp(o->variant, "auto");
        c->pair_threads = (int)hay_thread_cap(o->threads > 0 ? (unsigned)o->threads : 0);
        return resolve(o->variant, &c->eng);
    }
    if (c->backend == HAY_BACKEND_CUDA) {
#ifndef HAY_HAVE_CUDA_SW
        return HAY_ERR_NO_BACKEND;
#endif
    } else if (c->backend == HAY_BACKEND_OPENCL) {
#ifndef HAY_HAVE_OPENCL_SW
        return HAY_ERR_NO_BACKEND;
#endif
    } else {
        return HAY_ERR_INVALID;
    }
    return HAY_OK;
}

hay_status hay_align_pair(const hay_align_scoring *s, const uint8_t *q,
                          size_t m, const uint8_t *t, size_t n,
                          const hay_align_options *o, hay_align_result *r)
{
    if (!r)
        return HAY_ERR_INVALID;
    memset(r, 0, sizeof *r);
    if (!s)
        return HAY_ERR_INVALID;
    ctx c;
    hay_status st = ctx_init(&c, s, o);
    if (st != HAY_OK)
        return st;
    return pair_run(&c, NULL, q, m, t, n, r);
}

hay_status hay_align_batch(const hay_align_scoring *s,
                           const hay_align_seq *queries, size_t nqueries,
                           const hay_align_seq *targets, size_t ntargets,
                           const hay_align_options *o,
                           hay_align_result *results)
{
    if (!s || (nqueries && !queries) || (ntargets && !targets) ||
        (nqueries && ntargets && !results))
        return HAY_ERR_INVALID;
    ctx c;
    hay_status st = ctx_init(&c, s, o);
    if (st != HAY_OK)
        return st;
    size_t npairs = nqueries * ntargets;
    if (npairs == 0)
        return HAY_OK;
    int threads = (int)hay_thread_cap(c.o->threads > 0 ? (unsigned)c.o->threads : 0);
    /* GPU score passes are issued one pair at a time: the device entry
     * points make no promise about concurrent callers. */
    if (c.backend != HAY_BACKEND_CPU)
        threads = 1;
    void **prof = calloc(nqueries, sizeof *prof);
    if (!prof)
        return HAY_ERR_NOMEM;
    hay_status first = HAY_OK;
    int cpu = c.backend == HAY_BACKEND_CPU;
    if (cpu) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (size_t qi = 0; qi < nqueries; qi++) {
            hay_status e = HAY_ERR_INVALID;
            if (queries[qi].len && check_seq(s, queries[qi].codes,
                                             queries[qi].len) == HAY_OK)
                e = c.eng.first->profile(s, queries[qi].codes,
                                         queries[qi].len, &prof[qi]);
            if (e != HAY_OK) {
#pragma omp critical(hay_align_err)
                if (first == HAY_OK)
                    first = e;
            }
        }
    }
    /* Fewer long pairs than threads: they go first, one at a time on all
     * the threads (sw_wavefront.c); then the others, one pair a thread. */
    size_t nlong = 0;
    for (size_t p = 0; c.pair_threads > 1 && p < npairs; p++)
        nlong += wave_size(&c, queries[p / ntargets].len,
                           targets[p % ntargets].len);
    int serial = nlong > 0 && nlong < (size_t)c.pair_threads;
    memset(results, 0, npairs * sizeof *results);
    for (size_t p = 0; serial && first == HAY_OK && p < npairs; p++) {
        const hay_align_seq *x = &queries[p / ntargets];
        const hay_align_seq *y = &targets[p % ntargets];
        if (wave_size(&c, x->len, y->len))
            first = pair_run(&c, prof[p / ntargets], x->codes, x->len,
                             y->codes, y->len, &results[p]);
    }
    c.pair_threads = 1;
    if (first == HAY_OK) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (size_t p = 0; p < npairs; p++) {
            size_t qi = p / ntargets, ti = p % ntargets;
            if (serial && wave_size(&c, queries[qi].len, targets[ti].len))
                continue;
            hay_status e = pair_run(&c, cpu ? prof[qi] : NULL,
                                    queries[qi].codes, queries[qi].len,
                                    targets[ti].codes, targets[ti].len,
                                    &results[p]);
            if (e != HAY_OK) {
#pragma omp critical(hay_align_err)
                if (first == HAY_OK)
                    first = e;
            }
        }
    }
    if (cpu)
        for (size_t qi = 0; qi < nqueries; qi++)
            c.eng.first->profile_free(prof[qi]);
    free(prof);
    if (first != HAY_OK)
        for (size_t p = 0; p < npairs; p++)
            hay_align_result_clear(&results[p]);
    return first;
}
