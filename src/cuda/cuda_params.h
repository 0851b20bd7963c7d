/*
 * cuda_params.h - the parameter keys of the CUDA side (params.h): the host
 * driver's, backend auto's, each search engine's and the Smith-Waterman
 * kernels'.  Declared in C (cuda_params.c) and built with or without CUDA,
 * so that backend auto accepts the same keys in every build; .cu files
 * read their values through extern "C".
 */
#ifndef HAY_CUDA_PARAMS_H
#define HAY_CUDA_PARAMS_H

#include "../core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The host driver (src/cuda/set.c; backend auto, src/auto/auto.c, reads
 * transfer, reg_threads, chunk and gpu_min).  Keys without a declared
 * default are 0 when not given and the reader works the value out
 * (hay_params_given).  The limits below are the driver's array sizes
 * (driver.h) and the keys' ranges. */
#define HAY_CUDA_MAX_DEVICES 16
#define HAY_CUDA_MAX_STREAMS 8
enum { HAY_CUDA_TRANSFER_PINNED, HAY_CUDA_TRANSFER_PAGEABLE, HAY_CUDA_TRANSFER_REGISTER };
typedef struct hay_cuda_driver_params {
    uint64_t given;
    uint64_t device;          /* default: env HAY_CUDA_DEVICE, else 0 */
    int transfer;             /* HAY_CUDA_TRANSFER_* */
    uint64_t reg_threads, stage_threads, streams, chunk, result_cap;
    uint64_t gpu_min;         /* default: by kind of set (auto's policy) */
    uint64_t dense_max;       /* default: min(2 GiB, free device memory / 4) */
} hay_cuda_driver_params;
extern const hay_param_table hay_cuda_driver_param_table;

/* Backend auto's own keys (it also reads the driver's transfer,
 * reg_threads and chunk). */
/* The split= key's words in order (src/auto/auto.c's SPLIT_* are these) */
enum { HAY_SPLIT_MODE_AUTO, HAY_SPLIT_MODE_ON, HAY_SPLIT_MODE_OFF,
       HAY_SPLIT_MODE_EMULATE, HAY_SPLIT_MODE_HEAVY };
typedef struct hay_auto_params {
    uint64_t given;
    int split;                /* HAY_SPLIT_MODE_* */
    uint64_t split_piece, split_buffer;
    uint64_t split_keep;      /* default: cores / 5 (heavy, auto), else all */
} hay_auto_params;
extern const hay_param_table hay_auto_param_table;

/* The PFAC engine (pfac.cu). */
enum { HAY_PFAC_TABLE_LDG, HAY_PFAC_TABLE_TEX, HAY_PFAC_TABLE_COMPACT };
enum { HAY_PFAC_ROOT_SHARED, HAY_PFAC_ROOT_GLOBAL };
enum { HAY_PFAC_LOOP_ROUND, HAY_PFAC_LOOP_FLAT };
typedef struct hay_cuda_pfac_params {
    uint64_t given;
    int table, root, loop;
    bool stage;
    uint64_t block, bpt;
} hay_cuda_pfac_params;
extern const hay_param_table hay_cuda_pfac_param_table;

/* The filter-first literal engine (fdr_gpu.cu; fdr_gpu.h). */
typedef struct hay_cuda_fdr_params {
    uint64_t given;
    uint64_t domain, group_max, run, threads;
} hay_cuda_fdr_params;
extern const hay_param_table hay_cuda_fdr_param_table;

/* The one-pattern engines (exact.cu): one struct, a table per kind. */
typedef struct hay_cuda_exact_params {
    uint64_t given;
    uint64_t threads, blocks_per_sm, cascade, seg, unroll, filter;
} hay_cuda_exact_params;
extern const hay_param_table hay_cuda_brute_param_table;   /* brute-* */
extern const hay_param_table hay_cuda_bm_param_table;      /* bm-gpu */
extern const hay_param_table hay_cuda_fast_param_table;    /* gpu-fast */

/* Smith-Waterman on one long pair (sw_api.cu; hay_align_opts.device_params). */
typedef struct hay_cuda_sw_params {
    uint64_t given;
    uint64_t blocks, threads, tile;   /* 0 when not given: the variant's own */
    bool split;
    uint64_t impl, chunk;             /* 0 when not given: fast's own choice */
} hay_cuda_sw_params;
extern const hay_param_table hay_cuda_sw_param_table;

/* Database search (sw_db.cu; hay_align_db_opts' device params).  `device`
 * is read by the caller (src/align/db_search.c) and only accepted here. */
enum { HAY_SWDB_BITS_16, HAY_SWDB_BITS_32 };
typedef struct hay_cuda_swdb_params {
    uint64_t given;
    uint64_t device;
    int bits;                 /* HAY_SWDB_BITS_*: 16 where the scoring fits */
    uint64_t rows;            /* 0 when not given: by the queries' lengths */
    uint64_t scratch, batch;  /* 0 when not given: from free device memory */
    uint64_t db_max;          /* 0 when not given: what the memory holds */
} hay_cuda_swdb_params;
extern const hay_param_table hay_cuda_swdb_param_table;

/*
 * The tables a set's params are checked against (core/patterns.c), at most
 * 4 written to out:
 *   backend cuda: the driver's, and the engine's that `algo` names (none
 *   when no engine has that name), or with no algo the default engines'
 *   (pfac and fdr-gpu for several patterns, gpu-fast for one);
 *   backend auto: the driver's, auto's, and the default engines' (the CPU
 *   backend's table is the caller's to add).
 */
size_t hay_cuda_param_tables(const char *algo, size_t npatterns,
                             const hay_param_table **out);
size_t hay_auto_param_tables(size_t npatterns, const hay_param_table **out);

/*
 * An engine's keys out of the params string that the driver hands to
 * build(): checked and stored into `values` (table `own`), the keys of the
 * CPU, the driver and backend auto accepted and left to them, anything
 * else refused.  Until the driver hands engines parsed values, each
 * build() parses once with this.
 */
hay_status hay_cuda_engine_params(const char *text, const hay_param_table *own,
                                  void *values);

#ifdef __cplusplus
}
#endif

#endif
