/*
 * db_search_gpu.c - the database search's GPU side (db_search.c has the
 * rest): the score pass on the device behind db_device.h, scores and
 * top-k there, the database's device copy kept from one search to the
 * next (or, when it does not fit, parts planned ahead, the next made while
 * one is searched), the device's
 * start ahead of a search (hay_align_db_warm_up) and backend auto's size
 * rule.
 */
#include "db_search.h"
#include "../core/internal.h"   /* hay_thread_cap, hay_now */

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Backend auto sends a search to the GPU from this many cells per CPU
 * thread on.  On the H100 host (issue 16's rounds) a GPU search's whole
 * command costs 0.30-0.37 s beyond its kernels (driver and context 0.19-0.21
 * s, the exit's teardown 0.05-0.1 s), in which a CPU thread does 1.6e9-2.6e9
 * cells (5-8 GCUPS striped16; the 31 queries x E. coli, 6e10 cells: cpu -j
 * 16 0.49-0.76 s, cuda 0.35-0.40 s); 2.5e9 is about where both end
 * together. */
#define AUTO_GPU_CELLS_PER_THREAD 2500000000ull

/* ------------------------------------------------------------------------
 * GPU score pass: scores and top-k on the device, end cells on the CPU
 * ---------------------------------------------------------------------- */
#ifdef HAY_HAVE_CUDA_SWDB
/*
 * The sorted targets [first, first + count) of the database, on the device
 * (g): each query's top-k there.  The device names and ranks its targets by
 * the input order (the ids of gpu_create), so its top-k is the search's
 * (ties included) and goes into tops as it is; the parts of a database too
 * large for the device (gpu_search_range) merge as one search.
 */
static hay_status gpu_search_part(search *sc, const hay_align_seq *queries,
                                  size_t nq, topk *tops, uint64_t count,
                                  hay_swdb_gpu *g)
{
    const hay_align_db *db = sc->db;
    hay_status st = HAY_ERR_NOMEM;
    const uint8_t **qp = calloc(nq ? nq : 1, sizeof *qp);
    size_t *ql = calloc(nq ? nq : 1, sizeof *ql);
    size_t *nh = malloc((nq ? nq : 1) * sizeof *nh);
    size_t room = sc->k < count ? sc->k : (size_t)count;
    hay_swdb_hit *hits = malloc((nq ? nq : 1) * (room ? room : 1) * sizeof *hits);
    if (!qp || !ql || !nh || !hits)
        goto out;
    for (size_t j = 0; j < nq; j++) {
        qp[j] = queries[j].codes;
        ql[j] = queries[j].len;
    }
    if (room == 0) {
        st = HAY_OK;
        goto out;
    }
    hay_swdb_stats gst;
    int rc = hay_cuda_swdb_search(g, qp, ql, nq, room, sc->min_score, hits,
                                  nh, &gst);
    if (rc != 0) {
        st = (hay_status)rc;
        goto out;
    }
    for (int i = 0; i < gst.tl.n; i++)
        hay_swdb_phase_merge(sc->tl, &gst.tl.p[i]);
    sc->rescored += gst.rescored;
    for (size_t j = 0; j < nq; j++) {
        const hay_swdb_hit *hj = hits + j * room;
        if (nh[j] > room) {
            st = HAY_ERR_DEVICE;
            goto out;
        }
        for (size_t h = 0; h < nh[j]; h++) {
            if (hj[h].target >= db->nseq || hj[h].score <= 0) {
                st = HAY_ERR_DEVICE;
                goto out;
            }
            cand c = { hj[h].score, hj[h].target, 0, 0, 0 };
            hay_db_topk_add(&tops[j], &c);
        }
    }
    st = HAY_OK;
out:
    free(qp);
    free(ql);
    free(nh);
    free(hits);
    return st;
}

/* The device copy of the sorted targets [first, first + count); its
 * phases go to tl. */
static int gpu_create(const search *sc, const char *params, uint64_t first,
                      uint64_t count, hay_swdb_timeline *tl, hay_swdb_gpu **g)
{
    const hay_align_db *db = sc->db;
    hay_swdb_targets tg = { db->codes, db->offsets + first, (size_t)count };
    hay_swdb_scoring scg = { sc->s->matrix, sc->s->alpha, sc->s->open,
                             sc->s->extend };
    return hay_cuda_swdb_create_traced(&tg, db->order + first, &scg, -1, params,
                                       tl, g);
}

/*
 * The device copy of a whole database, kept in the database from one search
 * to the next (the CLI searches in blocks of queries, and DNA once per
 * strand): remade when a search asks with other scoring or params.
 */
struct hay_db_gpu_cache {
    hay_swdb_gpu *g;
    int alpha, open, extend;
    int32_t *matrix;            /* alpha x alpha */
    char *params;               /* NULL or a copy */
};

static void cache_clear(struct hay_db_gpu_cache *c)
{
    hay_cuda_swdb_free(c->g);
    free(c->matrix);
    free(c->params);
    memset(c, 0, sizeof *c);
}

static bool cache_fits(const struct hay_db_gpu_cache *c, const hay_swdb_scoring *sc,
                       const char *params)
{
    size_t na = (size_t)sc->alpha * (size_t)sc->alpha;
    return c->g && c->alpha == sc->alpha && c->open == sc->gap_open &&
           c->extend == sc->gap_extend &&
           !memcmp(c->matrix, sc->matrix, na * sizeof *c->matrix) &&
           (c->params == NULL) == (params == NULL) &&
           (!params || !strcmp(c->params, params));
}

/* Keeps g as the database's device copy (else frees it). */
static void cache_keep(struct hay_db_gpu_cache *c, hay_swdb_gpu *g,
                       const hay_swdb_scoring *sc, const char *params)
{
    size_t na = (size_t)sc->alpha * (size_t)sc->alpha;
    cache_clear(c);
    c->matrix = malloc(na * sizeof *c->matrix);
    c->params = params ? strdup(params) : NULL;
    if (!c->matrix || (params && !c->params)) {
        hay_cuda_swdb_free(g);
        cache_clear(c);
        return;
    }
    memcpy(c->matrix, sc->matrix, na * sizeof *c->matrix);
    c->g = g;
    c->alpha = sc->alpha;
    c->open = sc->gap_open;
    c->extend = sc->gap_extend;
}

/*
 * The sorted targets [first, first + count) on the device, or, when they do
 * not fit in its memory (HAY_ERR_TOO_LARGE), each half in turn: a database
 * larger than the device's memory is searched in parts that each fit, one
 * part resident at a time.  A single target that does not fit (or scoring
 * the device cannot take) ends the search with HAY_ERR_TOO_LARGE; the
 * halving then tried at most log2(count) + 1 creates.
 */
static hay_status gpu_search_range(search *sc, const char *params,
                                   const hay_align_seq *queries, size_t nq,
                                   topk *tops, uint64_t first, uint64_t count)
{
    if (count == 0)
        return HAY_OK;
    hay_swdb_gpu *g = NULL;
    int rc = gpu_create(sc, params, first, count, sc->tl, &g);
    if (rc == HAY_ERR_TOO_LARGE && count > 1) {
        uint64_t half = count / 2;
        hay_status st = gpu_search_range(sc, params, queries, nq, tops, first, half);
        if (st == HAY_OK) {
            sc->parts++;
            st = gpu_search_range(sc, params, queries, nq, tops, first + half,
                                  count - half);
        }
        return st;
    }
    if (rc != 0)
        return (hay_status)rc;
    hay_status st = gpu_search_part(sc, queries, nq, tops, count, g);
    hay_cuda_swdb_free(g);
    return st;
}

/*
 * A database larger than the device, in parts planned ahead from what one
 * part may hold (hay_cuda_swdb_part_room): part i + 1 is laid out and
 * uploaded on a thread while part i is searched, so the host's layout and
 * the copy hide behind the kernels.  A part the device still refuses is
 * searched by halving (gpu_search_range).
 */
typedef struct part_job {
    const search *sc;
    const char *params;
    uint64_t first, count;
    hay_swdb_timeline tl;       /* the thread's phases, merged after it */
    hay_swdb_gpu *g;
    int rc;
    pthread_t thread;
    bool threaded;
} part_job;

static void *part_make(void *arg)
{
    part_job *j = arg;
    j->rc = gpu_create(j->sc, j->params, j->first, j->count, &j->tl, &j->g);
    return NULL;
}

/* Starts making the part of [first, end) that fits the room, on a thread
 * (inline when no thread can be had). */
static void part_start(part_job *j, search *sc, const char *params, uint64_t first,
                       uint64_t end, uint64_t room_bytes, uint64_t room_targets)
{
    const uint64_t *off = sc->db->offsets;
    uint64_t k = first, bytes = 0;
    while (k < end) {
        uint64_t b = (off[k + 1] - off[k] + 3) & ~(uint64_t)3;
        if (k > first && ((room_bytes && bytes + b > room_bytes) ||
                          (room_targets && k - first >= room_targets)))
            break;
        bytes += b;
        k++;
    }
    memset(j, 0, sizeof *j);
    j->sc = sc;
    j->params = params;
    j->first = first;
    j->count = k - first;
    j->threaded = pthread_create(&j->thread, NULL, part_make, j) == 0;
    if (!j->threaded)
        part_make(j);
}

/* Waits for a part; its phases join the search's. */
static int part_wait(part_job *j, search *sc)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    j->threaded = false;
    for (int i = 0; i < j->tl.n; i++)
        hay_swdb_phase_merge(sc->tl, &j->tl.p[i]);
    j->tl.n = 0;
    return j->rc;
}

static hay_status gpu_search_parts(search *sc, const char *params,
                                   const hay_align_seq *queries, size_t nq,
                                   topk *tops)
{
    const uint64_t end = sc->db->nseq;
    uint64_t room_bytes = 0, room_targets = 0, n = 0;
    int rc = hay_cuda_swdb_part_room(params, &room_bytes, &room_targets);
    if (rc != 0)
        return (hay_status)rc;
    if (end == 0)
        return HAY_OK;
    part_job jobs[2];
    int cur = 0;
    part_start(&jobs[0], sc, params, 0, end, room_bytes, room_targets);
    for (;;) {
        part_job *j = &jobs[cur], *next = &jobs[cur ^ 1];
        rc = part_wait(j, sc);
        uint64_t after = j->first + j->count;
        bool more = after < end;
        hay_status st;
        if (rc == 0) {
            if (more)
                part_start(next, sc, params, after, end, room_bytes, room_targets);
            st = gpu_search_part(sc, queries, nq, tops, j->count, j->g);
            hay_cuda_swdb_free(j->g);
            if (st != HAY_OK) {
                if (more && part_wait(next, sc) == 0)
                    hay_cuda_swdb_free(next->g);
                return st;
            }
            cur ^= 1;
        } else if (rc == HAY_ERR_TOO_LARGE && j->count > 1) {
            /* the room was too hopeful: this part by halving (which
             * counts its own splits in sc->parts), then on */
            st = gpu_search_range(sc, params, queries, nq, tops, j->first, j->count);
            if (st != HAY_OK)
                return st;
            if (more)
                part_start(j, sc, params, after, end, room_bytes, room_targets);
        } else {
            return (hay_status)rc;
        }
        n++;
        if (!more)
            break;
    }
    sc->parts += n - 1;   /* sc->parts starts at 1, the whole database */
    return HAY_OK;
}

/* The whole database through its kept device copy (made, or remade for
 * other scoring or params, under the database's lock); in parts when it
 * does not fit. */
hay_status hay_db_gpu_search(search *sc, const char *params,
                             const hay_align_seq *queries, size_t nq, topk *tops)
{
    hay_align_db *db = (hay_align_db *)sc->db;   /* only its kept copy changes */
    struct hay_db_gpu_cache *c = db->gpu;
    if (!c)   /* no room for the cache itself */
        return gpu_search_range(sc, params, queries, nq, tops, 0, db->nseq);
    hay_swdb_scoring scg = { sc->s->matrix, sc->s->alpha, sc->s->open,
                             sc->s->extend };
    hay_status st;
    bool too_large = false;
    pthread_mutex_lock(&db->gpu_lock);
    if (cache_fits(c, &scg, params)) {
        st = gpu_search_part(sc, queries, nq, tops, db->nseq, c->g);
    } else {
        cache_clear(c);
        hay_swdb_gpu *g = NULL;
        int rc = gpu_create(sc, params, 0, db->nseq, sc->tl, &g);
        too_large = rc == HAY_ERR_TOO_LARGE;
        st = (hay_status)rc;
        if (rc == 0) {
            st = gpu_search_part(sc, queries, nq, tops, db->nseq, g);
            cache_keep(c, g, &scg, params);   /* keeps g, or frees it */
        }
    }
    pthread_mutex_unlock(&db->gpu_lock);
    if (too_large && db->nseq > 1)
        st = gpu_search_parts(sc, params, queries, nq, tops);
    return st;
}
#endif

void hay_db_gpu_init(hay_align_db *db)
{
    pthread_mutex_init(&db->gpu_lock, NULL);
#ifdef HAY_HAVE_CUDA_SWDB
    db->gpu = calloc(1, sizeof *db->gpu);   /* NULL: no device copy kept */
#else
    db->gpu = NULL;
#endif
}

void hay_db_gpu_release(hay_align_db *db)
{
#ifdef HAY_HAVE_CUDA_SWDB
    if (db->gpu)
        cache_clear(db->gpu);
#endif
    free(db->gpu);
    db->gpu = NULL;
    pthread_mutex_destroy(&db->gpu_lock);
}

/* ------------------------------------------------------------------------
 * The device's start, ahead of the search (hay_align_db_warm_up)
 * ---------------------------------------------------------------------- */
int hay_align_db_auto_gpu(uint64_t cells, int threads)
{
    uint64_t t = threads > 0 ? (uint64_t)threads : 1;
    return cells >= t * AUTO_GPU_CELLS_PER_THREAD;
}

struct hay_align_db_warm {
    pthread_t thread;
    pthread_mutex_t lock;
    bool joined, reported;      /* under lock */
    char *params;               /* NULL or a copy */
    hay_swdb_timeline tl;       /* the thread's phases */
    pthread_t release;          /* the device's release (release_device) */
    bool releasing;             /* under lock: release runs or ran */
    int release_dev;
};

#ifdef HAY_HAVE_CUDA_SWDB
static void *warm_main(void *arg)
{
    hay_align_db_warm *w = arg;
    hay_cuda_swdb_warm_up(w->params, &w->tl);   /* a failure shows again on use */
    return NULL;
}
#endif

hay_status hay_align_db_warm_up(const hay_align_db_options *o, uint64_t cells,
                                hay_align_db_warm **out)
{
    if (!out)
        return HAY_ERR_INVALID;
    *out = NULL;
    hay_align_db_options def;
    if (!o) {
        hay_align_db_options_init(&def);
        o = &def;
    }
    hay_backend be = o->align.backend;
    int threads = (int)hay_thread_cap(o->align.threads > 0 ? (unsigned)o->align.threads : 0);
    if (be == HAY_BACKEND_AUTO && !hay_align_db_auto_gpu(cells, threads))
        return HAY_OK;
    if (be != HAY_BACKEND_CUDA && be != HAY_BACKEND_AUTO)
        return HAY_OK;
#ifndef HAY_HAVE_CUDA_SWDB
    return be == HAY_BACKEND_CUDA ? HAY_ERR_NO_BACKEND : HAY_OK;
#else
    hay_align_db_warm *w = calloc(1, sizeof *w);
    if (!w)
        return HAY_ERR_NOMEM;
    const char *params = o->align.device_params;
    w->params = params ? strdup(params) : NULL;
    if ((params && !w->params) || pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w->params);
        free(w);
        return HAY_ERR_NOMEM;
    }
    if (pthread_create(&w->thread, NULL, warm_main, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        free(w->params);
        free(w);
        return HAY_ERR_NOMEM;
    }
    *out = w;
    return HAY_OK;
#endif
}

/* Waits for w's thread (once); adds its phases to tl the first time. */
void hay_db_warm_join(hay_align_db_warm *w, hay_swdb_timeline *tl)
{
    double t0 = hay_now();
    pthread_mutex_lock(&w->lock);
    if (!w->joined) {
        pthread_join(w->thread, NULL);
        w->joined = true;
    }
    if (tl && !w->reported) {
        for (int i = 0; i < w->tl.n; i++)
            hay_swdb_phase_merge(tl, &w->tl.p[i]);
        w->reported = true;
        hay_swdb_phase_add(tl, "search:device_wait", t0, hay_now());
    }
    pthread_mutex_unlock(&w->lock);
}

/* Ending the device's context on a thread (release_device) costs 0.06-0.08 s
 * there and takes 0.04-0.06 s off the exit after a large search, none after
 * a small one (H100 host, RESULT-2 of issue 16: 31 queries x E. coli, the
 * exit 0.11 s without, 0.044-0.07 s after; a 10-residue query, 0.053 s
 * without, 0.064 s after a 0.08 s reset).  It pays where the CPU has at
 * least RELEASE_MIN_SECONDS of work left after the scores: the alignments
 * of the 31 queries' 1,550 hits (1.3e9 cells, 0.057-0.075 s on 16 threads,
 * measured 0.03-0.06 s faster with it), not their end cells alone
 * (0.022-0.030 s, no faster).  Cells a CPU thread does in a second: */
#define RELEASE_MIN_SECONDS 0.04
#define RELEASE_TRACEBACK_RATE 1.2e9
#define RELEASE_END_CELLS_RATE 3e9

bool hay_db_gpu_release_pays(const search *sc, const hay_align_seq *queries,
                             size_t nq, const topk *tops, int score_only)
{
    double cells = 0;
    for (size_t j = 0; j < nq; j++)
        for (size_t h = 0; h < tops[j].n; h++) {
            size_t n = 0;
            hay_align_db_seq(sc->db, tops[j].h[h].target, NULL, NULL, &n);
            cells += (double)queries[j].len * (double)n;
        }
    double rate = score_only ? RELEASE_END_CELLS_RATE : RELEASE_TRACEBACK_RATE;
    return cells / (rate * (sc->threads > 0 ? sc->threads : 1)) >= RELEASE_MIN_SECONDS;
}

#ifdef HAY_HAVE_CUDA_SWDB
static void *release_main(void *arg)
{
    const hay_align_db_warm *w = arg;
    hay_cuda_swdb_release(w->release_dev, NULL);   /* the exit would pay it */
    return NULL;
}

void hay_db_gpu_release_device(search *sc, hay_align_db_warm *w)
{
    hay_align_db *db = (hay_align_db *)sc->db;   /* only its kept copy changes */
    double t0 = hay_now();
    int dev = -1;
    pthread_mutex_lock(&db->gpu_lock);
    if (db->gpu && db->gpu->g) {
        dev = hay_cuda_swdb_device(db->gpu->g);
        cache_clear(db->gpu);
    }
    pthread_mutex_unlock(&db->gpu_lock);
    pthread_mutex_lock(&w->lock);
    if (dev >= 0 && !w->releasing) {
        w->release_dev = dev;
        w->releasing = pthread_create(&w->release, NULL, release_main, w) == 0;
    }
    pthread_mutex_unlock(&w->lock);
    hay_swdb_phase_add(sc->tl, "search:device_release_start", t0, hay_now());
}
#endif

void hay_align_db_warm_free(hay_align_db_warm *w)
{
    if (!w)
        return;
    hay_db_warm_join(w, NULL);
    if (w->releasing)
        pthread_join(w->release, NULL);
    pthread_mutex_destroy(&w->lock);
    free(w->params);
    free(w);
}
