/*
 * db_search.h - what the database search's two halves share: db_search.c
 * (the search, its top-k and CPU score pass, the hits' alignments) and
 * db_search_gpu.c (the GPU score pass behind db_device.h, the database's
 * kept device copy, the device's start ahead of a search).
 */
#ifndef HAY_DB_SEARCH_H
#define HAY_DB_SEARCH_H

#include "db_internal.h"
#include "align_internal.h"
#include "db_device.h"          /* the GPU search; the timeline everywhere */

#include <stdbool.h>

/* A candidate hit: its score, target (input order) and end cells. */
typedef struct cand {
    int32_t score;
    uint32_t target;          /* input order */
    uint64_t q_end, t_end;
    uint32_t flags;
} cand;

/* The k best candidates: a heap with the worst kept at the root (score,
 * then input order: a higher index ranks lower). */
typedef struct topk {
    cand *h;
    size_t n, k;
} topk;

void hay_db_topk_add(topk *t, const cand *c);

/* One search's settings and counters. */
typedef struct search {
    hay_swdb_timeline *tl;      /* the search's phases */
    const hay_align_db *db;
    const hay_align_scoring *s;
    const sw_engine *first, *fallback;
    const struct sw_inter *inter;   /* the CPU pass's kernel, NULL: first */
    bool inter_forced;              /* db_kernel=inter: whatever the sizes */
    int threads;
    size_t k;
    int32_t min_score;
    uint64_t rescored;
    uint64_t parts;             /* GPU: database parts searched */
} search;

/* The GPU score pass (HAY_HAVE_CUDA_SWDB): each query's top-k into tops
 * (their heaps made, of sc->k), through the database's kept device copy,
 * or in parts when it does not fit the device. */
hay_status hay_db_gpu_search(search *sc, const char *params,
                             const hay_align_seq *queries, size_t nq, topk *tops);

/* Waits for the device's start (once); adds its phases to tl (may be NULL)
 * the first time. */
void hay_db_warm_join(hay_align_db_warm *w, hay_swdb_timeline *tl);

/* Whether ending the device now (hay_db_gpu_release_device) pays: the
 * CPU work left (the hits' end cells or alignments, tops[0 .. nq)) is
 * long enough to hide the context's teardown. */
bool hay_db_gpu_release_pays(const search *sc, const hay_align_seq *queries,
                             size_t nq, const topk *tops, int score_only);

/* The search's scores are in and nothing uses the device after
 * (hay_align_db_options.release_device): drops the database's device copy
 * and ends the device's context on a thread that w holds. */
void hay_db_gpu_release_device(search *sc, hay_align_db_warm *w);

#endif
