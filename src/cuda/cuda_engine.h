/*
 * cuda_engine.h - the contract between the CUDA backend's host driver
 * (cuda_backend.c and its pipeline) and the search kernels (one .cu file
 * per engine).  Plain C: included from C and from .cu files.
 *
 * The driver owns the context, streams, staging buffers, chunking, result
 * buffers and ordering.  An engine owns its device tables and kernels and
 * does one thing: search one piece of text that is already on the device.
 *
 * A job is one piece d_text[0, len) of the haystack.  The engine reports
 * every match whose end (local, exclusive) lies in (min_end, len]; the
 * driver puts the look-back bytes (longest pattern - 1) below min_end, so
 * every match is found in exactly one job (the chunk rule of scan.c).
 *
 * Results, all optional but d_count:
 *   d_count          total matches found, added to (one atomic per block)
 *   d_pattern_counts per pattern id, added to (NULL: not wanted)
 *   d_matches, cap   the match list: each match takes a slot
 *                    k = atomicAdd(d_slots, 1) and is written there when
 *                    k < cap (as HAY_CUDA_MATCH(end, id), end local); the
 *                    driver compares *d_slots with cap afterwards and, when
 *                    it overflowed, splits the job and runs it again, so no
 *                    match is ever lost and memory stays bounded.  The
 *                    order of slots is arbitrary; the driver sorts.
 * Engines must not allocate device memory per job; per-set tables are
 * made in build().
 */
#ifndef HAY_CUDA_ENGINE_H
#define HAY_CUDA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A match in the list: local end in the high 44 bits, pattern id (below
 * 2^20 = HAY_MAX_PATTERNS rounded up) in the low 20, so sorting the
 * 64-bit keys orders matches by end, then id. */
#define HAY_CUDA_ID_BITS 20
#define HAY_CUDA_MATCH(end, id) (((uint64_t)(end) << HAY_CUDA_ID_BITS) | (uint64_t)(id))
#define HAY_CUDA_MATCH_END(m) ((uint64_t)(m) >> HAY_CUDA_ID_BITS)
#define HAY_CUDA_MATCH_ID(m) ((uint32_t)((m) & ((1u << HAY_CUDA_ID_BITS) - 1)))

typedef struct hay_cuda_job {
    const uint8_t *d_text;   /* device pointer to the piece */
    uint64_t len;            /* bytes in the piece, look-back included */
    uint64_t min_end;        /* report matches with local end > min_end */
    unsigned long long *d_count;           /* required */
    unsigned long long *d_pattern_counts;  /* or NULL */
    unsigned long long *d_matches;         /* or NULL */
    unsigned long long *d_slots;           /* with d_matches */
    uint64_t cap;                          /* slots in d_matches */
    void *stream;            /* cudaStream_t */
} hay_cuda_job;

/* The host-side pattern data an engine's build() gets. */
typedef struct hay_cuda_patterns {
    size_t n;
    const uint8_t *bytes;    /* pattern i is bytes[off[i], off[i] + len[i]) */
    const size_t *off, *len;
    size_t min_len, max_len;
    int caseless;
    const struct hay_pfac *pfac;   /* PFAC tables (NULL for one-pattern engines) */
    const char *params;            /* "key=value,..." or NULL */
} hay_cuda_patterns;

/*
 * An engine.  Every function returns 0 or a negative hay_status; none
 * prints or exits.  launch() only enqueues work on job->stream.
 */
typedef struct hay_cuda_engine {
    const char *name;        /* the --algo name */
    int multi;               /* handles more than one pattern */
    int (*build)(const hay_cuda_patterns *p, void **dstate);
    void (*destroy)(void *dstate);
    int (*launch)(const void *dstate, const hay_cuda_job *job);
    size_t (*memory)(const void *dstate);   /* device bytes held */
} hay_cuda_engine;

#ifdef __cplusplus
}
#endif

#endif
