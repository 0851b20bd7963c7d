/*
 * db_device.h - the contract between the database search (src/align/,
 * many queries against many targets, keeping the best hits of each query)
 * and its GPU kernels (src/cuda/sw_db*.cu).  Plain C, included from C and
 * from .cu files.
 *
 * Scoring is that of sw_device.h: local alignment, affine gaps (a gap of
 * length k costs gap_open + (k - 1) * gap_extend, both positive), residue
 * codes 0 .. alpha - 1, matrix[a * alpha + b] scores query code a against
 * target code b.  Scores are exact: a kernel that computes in 16 bits
 * recomputes in 32 bits every target whose score could have saturated.
 *
 * Hits of one query are ordered by score (highest first), then by target
 * index (lowest first; its id where the search was created with ids), on
 * every backend, so that CPU and GPU results can be compared exactly.  A query keeps at most top_k hits, and only hits with
 * score >= min_score (min_score <= 0 keeps every score above 0; a score of 0
 * is never a hit).
 *
 * The GPU build defines HAY_HAVE_CUDA_SWDB where these functions exist.
 */
#ifndef HAY_DB_DEVICE_H
#define HAY_DB_DEVICE_H

#include "haystack_align.h"   /* hay_align_phase */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The targets, in host memory: target i is codes[offset[i] .. offset[i + 1]).
 * Targets may come in any order; a database sorts them by length so that
 * kernels can be chosen per length partition, and gives that order here. */
typedef struct hay_swdb_targets {
    const uint8_t *codes;
    const uint64_t *offset;       /* ntargets + 1 entries */
    size_t ntargets;
} hay_swdb_targets;

typedef struct hay_swdb_scoring {
    const int32_t *matrix;        /* alpha x alpha */
    int alpha;                    /* 1 .. 32 */
    int32_t gap_open, gap_extend;
} hay_swdb_scoring;

/* A timeline of a call's phases (hay_align_phase of haystack_align.h: a
 * name, first start and last end on the monotonic clock, the seconds spent
 * inside and how many times it was entered).  A phase entered again (a
 * loop) is summed into its entry; phases past HAY_SWDB_MAX_PHASES are
 * dropped. */
#define HAY_SWDB_MAX_PHASES 40
typedef struct hay_swdb_timeline {
    hay_align_phase p[HAY_SWDB_MAX_PHASES];
    int n;
} hay_swdb_timeline;

/* Phase `name` of tl, made (empty, starting at t) when new; NULL when tl
 * is full. */
static inline hay_align_phase *hay_swdb_phase_get(hay_swdb_timeline *tl, const char *name,
                                                  double t)
{
    for (int i = 0; i < tl->n; i++)
        if (tl->p[i].name == name || !strcmp(tl->p[i].name, name))
            return &tl->p[i];
    if (tl->n >= HAY_SWDB_MAX_PHASES)
        return NULL;
    hay_align_phase *p = &tl->p[tl->n++];
    p->name = name;
    p->start = p->end = t;
    p->seconds = 0;
    p->count = 0;
    return p;
}

/* Adds q (seconds and count included) to tl's phase of its name; tl may be
 * NULL. */
static inline void hay_swdb_phase_merge(hay_swdb_timeline *tl, const hay_align_phase *q)
{
    hay_align_phase *p = tl ? hay_swdb_phase_get(tl, q->name, q->start) : NULL;
    if (!p)
        return;
    if (q->start < p->start)
        p->start = q->start;
    if (q->end > p->end)
        p->end = q->end;
    p->seconds += q->seconds;
    p->count += q->count;
}

/* Adds [t0, t1] (CLOCK_MONOTONIC seconds) to phase `name` (a static
 * string) of tl; tl may be NULL. */
static inline void hay_swdb_phase_add(hay_swdb_timeline *tl, const char *name,
                                      double t0, double t1)
{
    hay_align_phase q = { name, t0, t1, t1 - t0, 1 };
    hay_swdb_phase_merge(tl, &q);
}

typedef struct hay_swdb_hit {
    uint32_t target;              /* index into hay_swdb_targets, or its id */
    int32_t score;
} hay_swdb_hit;

/* What one search call did (seconds are wall time of the call's phases). */
typedef struct hay_swdb_stats {
    uint64_t cells;               /* sum over queries of m * residues */
    uint64_t rescored;            /* targets recomputed in 32 bits */
    double seconds_total;
    double seconds_kernels;       /* score kernels, all partitions */
    double seconds_copy;          /* host <-> device, database streaming */
    double seconds_select;        /* top-k selection on the device */
    int streamed;                 /* 1: the database did not fit and was
                                     streamed in batches */
    hay_swdb_timeline tl;         /* the call's host phases, and the
                                     device's own (names "device:..."),
                                     placed to end where the host saw them
                                     end */
} hay_swdb_stats;

typedef struct hay_swdb_gpu hay_swdb_gpu;

/*
 * Prepares a database search on a GPU (device -1: the params' device key,
 * else the current device): uploads the targets once.  params:
 * "key=value,..." (hay_cuda_swdb_param_table, src/cuda/cuda_params.c) or
 * NULL.  Returns 0 or a negative hay_status (HAY_ERR_NO_BACKEND,
 * HAY_ERR_NO_DEVICE, HAY_ERR_DEVICE, HAY_ERR_NOMEM, HAY_ERR_INVALID, and
 * HAY_ERR_TOO_LARGE for a database larger than the device's memory or
 * than the params' db_max: the caller searches it in parts).
 */
int hay_cuda_swdb_create(const hay_swdb_targets *db, const hay_swdb_scoring *sc,
                         int device, const char *params, hay_swdb_gpu **out);
/* The same, where hits name target i by ids[i] (NULL: by i; else ntargets
 * distinct ids) and rank equal scores by it, lowest first: a database
 * gives its sorted-to-input permutation, so that the device's hits are
 * those of the input order, ties included (the scores of
 * hay_cuda_swdb_scores stay indexed by i).  Adds its phases (host layout,
 * driver and context, device memory, upload) to tl (may be NULL). */
int hay_cuda_swdb_create_traced(const hay_swdb_targets *db, const uint32_t *ids,
                                const hay_swdb_scoring *sc, int device,
                                const char *params, hay_swdb_timeline *tl,
                                hay_swdb_gpu **out);

/*
 * Does now, from any thread, what a first search on the device (params'
 * device key, else device 0) would pay on its way: the driver's start
 * (cuInit), the device's context (both once per process, through the CUDA
 * backend's context.c, which the pattern search's warm-up uses too) and
 * the loading of every kernel the search may launch (the runtime loads a
 * kernel lazily, at its first launch).  Adds its phases to tl (may be
 * NULL).  Returns 0 or a negative hay_status; a failure here shows again,
 * and is reported, on the search's own calls.
 */
int hay_cuda_swdb_warm_up(const char *params, hay_swdb_timeline *tl);

/*
 * Searches nq queries (query j is queries[j][0 .. qlens[j])) against the
 * database.  hits has nq * top_k entries: query j's hits are
 * hits[j * top_k .. j * top_k + nhits[j]), ordered as above.  top_k >= 1.
 * The selection of each query's best hits happens on the device.
 */
int hay_cuda_swdb_search(hay_swdb_gpu *g, const uint8_t *const *queries,
                         const size_t *qlens, size_t nq, size_t top_k,
                         int32_t min_score, hay_swdb_hit *hits, size_t *nhits,
                         hay_swdb_stats *st);

/*
 * Every score of every query against every target (nq * ntargets entries,
 * query-major), for tests and for callers that want the full list.
 */
int hay_cuda_swdb_scores(hay_swdb_gpu *g, const uint8_t *const *queries,
                         const size_t *qlens, size_t nq, int32_t *scores,
                         hay_swdb_stats *st);

void hay_cuda_swdb_free(hay_swdb_gpu *g);

/*
 * What one part of a database held on the device may take, for a search of
 * a larger database in parts planned ahead (db_search_gpu.c): *bytes of
 * residues, each target padded to 4 (0: no limit), and *targets (0: no
 * limit).  The params' db_max, else a quarter of the device's free memory:
 * two parts are held at once (the next uploads while one is searched),
 * each with its search's buffers.  Enters the device's context.  Returns 0
 * or a negative hay_status.
 */
int hay_cuda_swdb_part_room(const char *params, uint64_t *bytes, uint64_t *targets);

/* The device g lives on. */
int hay_cuda_swdb_device(const hay_swdb_gpu *g);

/*
 * Ends this process's use of `device`: destroys its context (the runtime's
 * primary context, cudaDeviceReset) and with it everything on it, so that
 * the process's exit has no context left to tear down (0.05-0.1 s on the
 * H100 host).  From any thread; the caller promises that nothing on the
 * device is used after (or during) the call.  Adds its phase to tl (may be
 * NULL).  Returns 0 or a negative hay_status.
 */
int hay_cuda_swdb_release(int device, hay_swdb_timeline *tl);

#ifdef __cplusplus
}
#endif

#endif
