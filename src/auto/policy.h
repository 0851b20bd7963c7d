/*
 * policy.h - backend auto's tuning as data: when a scan moves from the CPU
 * to a GPU, and how a split shares one input between them.  One struct of
 * named values, as CUB keeps its tuning in policies, so that another
 * machine's values are one more initializer, not edits across files.
 *
 * The values below were measured on the H200 host (16 cores, PCIe 5); the
 * measurements are in docs/PERF.md ("auto by measured rate", "The split
 * that adds up").
 */
#ifndef HAY_AUTO_POLICY_H
#define HAY_AUTO_POLICY_H

#include <stdint.h>

typedef struct hay_auto_policy {
    /* Inputs below this stay on the CPU, by kind of set (env
     * HAY_AUTO_GPU_MIN or params gpu_min= override both, and then the
     * measured choice below is skipped).  One pattern: never, the CPU's
     * SIMD engine being faster than the PCIe link.  Several: below 256
     * MiB the context start-up (0.1-0.3 s) and the first pipeline cost
     * more than the CPU's 16 threads take. */
    uint64_t gpu_min_multi;
    uint64_t gpu_min_single;
    /* Sets the CPU searches with a SIMD literal filter (teddy, fdr: 12-60
     * GB/s on 16 threads) stay on the CPU below this without measuring
     * its rate: eight literals took 0.295 s on the CPU and 0.476 s on the
     * GPU at 4 GiB, 0.70 s on both at 8 GiB (docs/PERF.md). */
    uint64_t gpu_min_literal;

    /* The cost model.  The CPU's rate on a set is measured once, on
     * probe_bytes a thread after the first probe_warmup a thread (16
     * threads: 64 MiB after 16); the GPU is used when
     *   len / cpu_rate > fixed + len / gpu_rate,
     * fixed = gpu_cold_seconds + states x gpu_state_seconds before the
     * set's GPU state exists (context, tables, pipeline and teardown of a
     * whole command; less what the warm-up thread has done of
     * gpu_start_seconds), gpu_warm_seconds after.  Snort's 4,550 (2.9
     * GB/s on 16 threads) go to the GPU from ~1.5 GB, ET Open's 30,528
     * (1.6 GB/s) from ~0.6 GB (H200 host, 2026-11-26). */
    uint64_t probe_warmup;        /* a thread: counted before the timed part */
    uint64_t probe_bytes;         /* a thread: the timed part */
    double gpu_cold_seconds;
    /* Per automaton state of the CPU's engine, added to gpu_cold_seconds:
     * the GPU tables are made from its trie and uploaded (whole commands,
     * H200 host: ~0.1 s more for ET Open's 396,398 states than for
     * Snort's 56,569). */
    double gpu_state_seconds;
    /* The part of gpu_cold_seconds that starting the device and its
     * context takes (cuInit and the primary context: 0.2 s on the H200
     * host), which the warm-up thread pays while the CPU engine is built
     * when the caller's size hint says the input may go to the GPU. */
    double gpu_start_seconds;
    /* The warm-up runs for sets of at least warm_min_patterns (the CPU's
     * DFA then runs at 1.5 GB/s or less on 16 threads: ET Open, 50,000
     * words) or inputs of at least warm_min_bytes: a start-up the CPU's
     * run leaves unused cost Snort's 1 GiB whole command 0.36 -> 0.47 s
     * (the context's start beside the scan, its teardown at exit). */
    uint64_t warm_min_patterns;
    uint64_t warm_min_bytes;
    double gpu_warm_seconds;
    double gpu_rate;              /* bytes per second */

    /* The heavy split (split=auto in the count modes) runs only when the
     * CPU threads it keeps would add this share of the GPU's rate: below
     * it they cost the GPU side's staging more than they add (et-open, 0.3
     * GB/s on 3 threads, slowed the GPU side from 21 to 12-15 GB/s). */
    double split_min_share;
    /* CPU threads kept searching beside the GPU side: cores / keep_divisor
     * with at least keep_min_cores cores, else 1 (3 of 16; split_keep=
     * overrides). */
    unsigned keep_divisor;
    unsigned keep_min_cores;
    /* Cores a split=on leaves to the GPU side: its driving thread and 4
     * copy threads (CPU threads sharing their cores ran over 20x slower),
     * or with the input pinned in place the driving thread and its
     * registering threads. */
    unsigned split_gpu_cores;
    unsigned split_gpu_cores_pinned;

    /* The CPU side's pieces (split_piece=, default 32M) and the GPU list
     * matches held until the CPU's part is delivered (split_buffer=,
     * default 256M; a piece over it is searched again by the CPU) are
     * the key table's defaults, in src/cuda/cuda_params.c. */
    /* split=emulate: the host worker's pieces (chunk= overrides). */
    uint64_t emulate_piece;

    /* Guided piece sizes (split.c): both sides' pieces shrink as the
     * cursors close in, never below these. */
    uint64_t guide_min_cpu;
    uint64_t guide_min_worker;
    /* A CPU thread of the count modes sizes its pieces to this much work
     * at its own rate (32 MiB pieces took 0.27 s at Snort's rate per
     * thread and the GPU side waited at the meeting); its first piece is
     * first_piece bytes. */
    double piece_seconds;
    uint64_t first_piece;
    /* Per-thread counts per pattern up to this many bytes in all, else
     * shared atomic ones. */
    uint64_t own_counts_budget;
} hay_auto_policy;

static const hay_auto_policy hay_auto_policy_default = {
    .gpu_min_multi = (uint64_t)256 << 20,
    .gpu_min_single = (uint64_t)1 << 40,
    .gpu_min_literal = (uint64_t)4 << 30,
    .probe_warmup = (uint64_t)1 << 20,
    .probe_bytes = (uint64_t)4 << 20,
    .gpu_cold_seconds = 0.47,
    .gpu_state_seconds = 0.25e-6,
    .gpu_start_seconds = 0.2,
    .warm_min_patterns = 10000,
    .warm_min_bytes = (uint64_t)2 << 30,
    .gpu_warm_seconds = 0.02,
    .gpu_rate = 40e9,
    .split_min_share = 0.04,
    .keep_divisor = 5,
    .keep_min_cores = 8,
    .split_gpu_cores = 5,
    .split_gpu_cores_pinned = 1,
    .emulate_piece = (uint64_t)64 << 20,
    .guide_min_cpu = (uint64_t)256 << 10,
    .guide_min_worker = (uint64_t)4 << 20,
    .piece_seconds = 0.008,
    .first_piece = (uint64_t)1 << 20,
    .own_counts_budget = (uint64_t)64 << 20,
};

#endif
