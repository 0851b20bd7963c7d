/*
 * cuda_engine.h - the contract between the CUDA backend's host driver
 * (driver.h: set.c, pipeline.c) and the search kernels (one .cu file per
 * engine).  Plain C: included from C and from .cu files.
 *
 * The driver owns the context, streams, staging buffers, chunking, result
 * buffers and ordering.  An engine owns its device tables and kernels and
 * does one thing: search one piece of text that is already on the device.
 *
 * A job is one piece d_text[0, len) of the haystack.  The engine reports
 * every match whose end (local, exclusive) lies in (min_end, len]; the
 * driver puts the look-back bytes (longest pattern - 1) below min_end, so
 * every match is found in exactly one job (the chunk rule of core/chunks.c).
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
 *   d_marks          HAY_ASK_MARK (engines with `outs`): for each match of
 *                    local end e, bit (e - 1 - min_end) % 32 of word
 *                    (e - 1 - min_end) / 32 is set with atomicOr (the bits
 *                    of the piece's own bytes from min_end on; zeroed by
 *                    the driver); the list and per-pattern counts are not
 *                    wanted then
 *   d_first          HAY_ASK_FIRST (engines with `outs`): the least
 *                    HAY_CUDA_MATCH(e, id) of the piece's matches, by
 *                    atomicMin (the driver sets it to all ones first)
 *   d_scratch        for engines with `scratch`: device memory of
 *                    scratch_bytes (at least what scratch() asked for),
 *                    the pipeline slot's own, free for the job to use on
 *                    its stream, contents undefined (NULL: the engine does
 *                    without).  fdr-gpu keeps there the counters from
 *                    which its warps take chunks of the piece.
 * Engines must not allocate device memory per job; per-set tables are
 * made in build().
 *
 * Padding (added by the CUDA driver): every d_text the driver hands out
 * lies in an allocation that extends at least HAY_CUDA_PAD bytes past
 * d_text + len and starts at or below the 16-byte boundary under d_text,
 * so kernels may read whole aligned 16-byte words that cover the piece.
 * Bytes outside [0, len) are garbage and must never decide a match.
 *
 * Parameters: every key below is declared, with its range and default, in
 * cuda_params.c (core/params.h), and hay_patterns_compile checks the string
 * against the tables of the set's backend.  hay_compile_opts.params is
 * handed to build() unchanged; an engine reads its own keys with
 * hay_cuda_engine_params.  The driver (set.c) and backend auto
 * (src/auto/auto.c) read the values parsed at compile time
 * (hay_cuda_driver_params, hay_auto_params).  The helpers at the end of
 * this header serve the device params of sw_db.cu.
 *
 * Driver keys (set.c; docs/DESIGN.md "CUDA backend"), with backend auto's
 * (src/auto/auto.c: gpu_min and split*):
 *   device=N            CUDA device index (default: env HAY_CUDA_DEVICE, else 0)
 *   transfer=pinned|pageable|register   host inputs: copied through
 *                       pinned staging buffers (default), cudaMemcpyAsync
 *                       from the caller's pageable memory, or copied where
 *                       they lie after pinning them block by block
 *                       (hostreg.h; shared mappings only, else staged)
 *   reg_threads=N       transfer=register: threads pinning blocks (1..8,
 *                       default 1); with hay_scan_opts.log set, each scan
 *                       logs the time spent pinning and unpinning (hay
 *                       find: env HAY_CUDA_REG_DEBUG)
 *   streams=N           pipeline depth, 1..8 (default 3)
 *   chunk=BYTES         bytes per pipeline piece (default 32 MiB; K/M/G
 *                       suffixes); hay_scan_opts.chunk_size overrides it
 *   result_cap=N        match slots per piece (default 16M); a piece with
 *                       more matches is searched again in parts that fit
 *                       (overflow.h), and the pieces after it are cut to
 *                       fit (pipeline.c take): a list of M matches costs
 *                       about M / N round trips with the device, so small
 *                       values are for tests and tight device memory
 *   gpu_min=BYTES       backend auto: inputs below this stay on the CPU
 *   dense_max=BYTES     largest dense PFAC table (default min(2 GiB, a
 *                       quarter of free device memory))
 *   stage_threads=N     threads copying host input into the pinned staging
 *                       buffers (default 16; 4 on a split=on GPU side,
 *                       cores - cores/5 - 1 on a split=heavy one; a list
 *                       copies on at most 8, beside its delivery)
 *   split=auto|on|off|heavy|emulate   backend auto: share one input
 *                       between the CPU threads and the GPU (split.h).
 *                       auto (default): the heavy split in the count
 *                       modes when the probe of the CPU's rate sends the
 *                       set to the GPU (default threshold only) and the
 *                       kept CPU threads would add 4% of the GPU's rate;
 *                       else, and for the list, the GPU alone.  off: never.
 *                       heavy: the GPU side stages on most cores, as it
 *                       would alone, and split_keep CPU threads (default
 *                       cores/5) search from the front, also while the GPU
 *                       starts; the other threads only if the GPU fails
 *                       (docs/PERF.md "The split that adds up"); with
 *                       hay_scan_opts.log set, a split logs its timeline
 *                       (hay find: env HAY_SPLIT_DEBUG).
 *                       on: whenever a GPU is usable, the GPU side
 *                       pinning a shared mapping in place (unless
 *                       transfer= is given) on reg_threads threads, the CPU
 *                       side on cores - 1 - reg_threads threads (else
 *                       cores - 5); measured slower than the better side
 *                       alone on the H200 host.  emulate: a
 *                       host thread in the GPU's place (tests the split
 *                       without a GPU)
 *   split_keep=N        the count modes' CPU threads that search beside
 *                       the GPU side (1..4096; auto's and heavy's default
 *                       cores/5, else all)
 *   split_piece=BYTES   bytes the CPU side claims at a time (default 32M)
 *   split_buffer=BYTES  GPU list matches held until the CPU's part is
 *                       delivered (default 256M); a piece over it is
 *                       searched again by the CPU
 * PFAC engine keys (pfac.cu):
 *   table=ldg|tex|compact   dense table read through the read-only cache
 *                       (default), a texture object, or the compact CSR
 *                       form (binary search per step; always when the
 *                       dense table is over dense_max)
 *   root=shared|global  root row in shared memory (default) or global
 *   stage=1|0           input tile staged through shared memory (default 0:
 *                       measured slower than the L1 on the H200; a tile
 *                       over 40 KiB is never staged)
 *   block=N             threads per block, 32..1024, multiple of 32 (256)
 *   bpt=N               start positions per thread, 1..64 (default 16)
 *   loop=round|flat     counts: one round per position with the warp
 *                       waiting for its longest walk (default; measured
 *                       faster), or one loop over positions and steps
 *                       (lists always use rounds)
 * fdr-gpu engine keys (fdr_gpu.cu; fdr_gpu.h explains the tables):
 *   domain=N            filter key bits, 10..15 (default: two keys a long
 *                       literal, 11 to 15; a table of 4 << N bytes in
 *                       shared memory)
 *   group_max=N         long literals per filter table (default 32768);
 *                       larger sets are split, the input read once a group
 *   run=BYTES           contiguous bytes per thread, 16..1024, multiple of
 *                       16 (default 64)
 *   threads=N           threads per block, 64..1024, multiple of 32 (1024)
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
    unsigned *d_marks;                     /* or NULL (see Results) */
    unsigned long long *d_first;           /* or NULL (see Results) */
    void *d_scratch;                       /* or NULL (see Results) */
    size_t scratch_bytes;
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
    /* Whether launch() takes d_marks and d_first (else the driver answers
     * those asks from the list). */
    int outs;
    /* Device bytes a job's d_scratch should hold, or NULL (none). */
    size_t (*scratch)(const void *dstate);
} hay_cuda_engine;

/* Bytes readable past the end of every piece (see Padding above). */
#define HAY_CUDA_PAD 64

/* The engines. */
extern const hay_cuda_engine hay_cuda_engine_pfac;
extern const hay_cuda_engine hay_cuda_engine_fdr_gpu;   /* fdr_gpu.cu */

/* A cudaError_t as a hay_status (probe.cu): 0 for success, else NOMEM for
 * an allocation failure, NO_DEVICE for a missing or unusable device,
 * INVALID for a cooperative launch larger than the device can hold,
 * DEVICE otherwise.  Clears a non-sticky error so the next call starts
 * clean. */
int hay_cuda_status(int cuda_error);

#ifdef __cplusplus
}
#endif

#endif
