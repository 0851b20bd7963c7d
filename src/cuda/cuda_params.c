/* cuda_params.c - the keys of the CUDA side (see cuda_params.h).  The
 * defaults are the measured tunings; docs/PERF.md has the measurements. */
#include "cuda_params.h"
#include "../cpu/cpu.h"

#include <string.h>

#define BIG UINT64_MAX

static const char *const transfer_words[] = { "pinned", "pageable", "register", NULL };

static const hay_param driver_keys[] = {
    HAY_PARAM_U(hay_cuda_driver_params, device, "device", 0, HAY_CUDA_MAX_DEVICES - 1, 0,
                NULL,
                "CUDA device index (default: env HAY_CUDA_DEVICE, else 0)"),
    HAY_PARAM_E(hay_cuda_driver_params, transfer, "transfer", transfer_words, "pinned",
                "host input through pinned staging, from pageable memory, or "
                "pinned in place block by block (shared mappings only)"),
    /* reg_threads: the driver serializes them (docs/PERF.md) */
    HAY_PARAM_U(hay_cuda_driver_params, reg_threads, "reg_threads", 1, 8, 0, "1",
                "transfer=register: threads pinning blocks (more did not help)"),
    HAY_PARAM_U(hay_cuda_driver_params, stage_threads, "stage_threads", 1, 256, 0, NULL,
                "threads copying input into pinned staging (default 16; fewer "
                "beside a split)"),
    HAY_PARAM_U(hay_cuda_driver_params, streams, "streams", 1, HAY_CUDA_MAX_STREAMS, 0, "3",
                "pipeline depth"),
    /* chunk: the best of a sweep on the H200 host (docs/PERF.md "page cache") */
    HAY_PARAM_SZ(hay_cuda_driver_params, chunk, "chunk", 1, BIG, "32M",
                 "bytes per pipeline piece (hay_scan_opts.chunk_size overrides)"),
    HAY_PARAM_SZ(hay_cuda_driver_params, result_cap, "result_cap", 1, (uint64_t)1 << 32, "16M",
                 "match slots per piece; a piece with more is searched again in parts "
                 "that fit, a round trip with the device per list (small values are slow)"),
    HAY_PARAM_SZ(hay_cuda_driver_params, gpu_min, "gpu_min", 0, BIG, NULL,
                 "backend auto: inputs below this stay on the CPU (default: "
                 "measured, by kind of set; env HAY_AUTO_GPU_MIN)"),
    HAY_PARAM_SZ(hay_cuda_driver_params, dense_max, "dense_max", 0, BIG, NULL,
                 "largest dense PFAC table (default min(2G, free device memory / 4))"),
};
const hay_param_table hay_cuda_driver_param_table =
    HAY_PARAM_TABLE("cuda driver", hay_cuda_driver_params, driver_keys);

static const char *const split_words[] = { "auto", "on", "off", "emulate", "heavy", NULL };

static const hay_param auto_keys[] = {
    HAY_PARAM_E(hay_auto_params, split, "split", split_words, "auto",
                "share one input between CPU threads and the GPU (split.h)"),
    HAY_PARAM_SZ(hay_auto_params, split_piece, "split_piece", 1, BIG, "32M",
                 "bytes the CPU side claims at a time"),   /* 4M: 3-4x slower */
    HAY_PARAM_SZ(hay_auto_params, split_buffer, "split_buffer", 0, BIG, "256M",
                 "GPU list matches held until the CPU's part is delivered"),
    HAY_PARAM_U(hay_auto_params, split_keep, "split_keep", 1, 4096, 0, NULL,
                "CPU threads searching beside the GPU side (default cores/5 "
                "for heavy and auto, else all)"),
};
const hay_param_table hay_auto_param_table =
    HAY_PARAM_TABLE("auto", hay_auto_params, auto_keys);

static const char *const table_words[] = { "ldg", "tex", "compact", NULL };
static const char *const root_words[] = { "shared", "global", NULL };
static const char *const loop_words[] = { "round", "flat", NULL };

static const hay_param pfac_keys[] = {
    HAY_PARAM_E(hay_cuda_pfac_params, table, "table", table_words, "ldg",
                "dense table through the read-only cache, a texture, or the "
                "compact form (always when over dense_max)"),
    HAY_PARAM_E(hay_cuda_pfac_params, root, "root", root_words, "shared",
                "root row in shared or global memory"),
    HAY_PARAM_B(hay_cuda_pfac_params, stage, "stage", "0",
                "input tile staged through shared memory (measured slower than the L1)"),
    HAY_PARAM_U(hay_cuda_pfac_params, block, "block", 32, 1024, 32, "256", "threads per block"),
    HAY_PARAM_U(hay_cuda_pfac_params, bpt, "bpt", 1, 64, 0, "16", "start positions per thread"),
    HAY_PARAM_E(hay_cuda_pfac_params, loop, "loop", loop_words, "round",
                "counts: a round per position (measured faster) or one flat loop"),
};
const hay_param_table hay_cuda_pfac_param_table =
    HAY_PARAM_TABLE("pfac", hay_cuda_pfac_params, pfac_keys);

/* fdr-gpu's keys have names of their own: with no --algo, backend cuda
 * accepts PFAC's and fdr-gpu's together and picks the engine later. */
static const hay_param fdr_keys[] = {
    HAY_PARAM_U(hay_cuda_fdr_params, domain, "domain", 10, 15, 0, NULL,
                "filter key bits (a table of 4 << domain bytes in shared memory; "
                "default: two keys a long literal, 11 to 15)"),
    /* 32768: et-open (30,528 literals) in one group */
    HAY_PARAM_U(hay_cuda_fdr_params, group_max, "group_max", 1, (uint64_t)1 << 20, 0, "32768",
                "long literals per filter table; more are split into groups, "
                "the input read once per group"),
    HAY_PARAM_U(hay_cuda_fdr_params, run, "run", 16, 1024, 16, "64",
                "contiguous bytes per thread"),
    /* 1024: on the H100, 7% (snort-community) and 21% (et-open) over 512 */
    HAY_PARAM_U(hay_cuda_fdr_params, threads, "threads", 64, 1024, 32, "1024",
                "threads per block"),
};
const hay_param_table hay_cuda_fdr_param_table =
    HAY_PARAM_TABLE("fdr-gpu", hay_cuda_fdr_params, fdr_keys);

static const hay_param brute_keys[] = {
    HAY_PARAM_U(hay_cuda_exact_params, threads, "threads", 32, 1024, 32, "256",
                "threads per block"),
};
static const hay_param bm_keys[] = {
    HAY_PARAM_U(hay_cuda_exact_params, threads, "threads", 32, 1024, 32, "128",
                "threads per block"),
    HAY_PARAM_U(hay_cuda_exact_params, blocks_per_sm, "blocks_per_sm", 1, 32, 0, "16",
                "resident blocks per SM (through the shared memory each claims)"),
    HAY_PARAM_U(hay_cuda_exact_params, cascade, "cascade", 1, 1024, 0, "64",
                "consecutive tiles per block"),
    HAY_PARAM_U(hay_cuda_exact_params, seg, "seg", 1, 4096, 0, "24", "bytes per thread per tile"),
};
static const hay_param fast_keys[] = {
    HAY_PARAM_U(hay_cuda_exact_params, threads, "threads", 64, 1024, 32, "1024",
                "threads per block"),
    HAY_PARAM_U(hay_cuda_exact_params, blocks_per_sm, "blocks_per_sm", 1, 32, 0, "8",
                "resident blocks per SM (fewer when registers allow fewer)"),
    HAY_PARAM_U(hay_cuda_exact_params, unroll, "unroll", 1, 4, HAY_PARAM_POW2, "4",
                "vectors per lane per step"),
    HAY_PARAM_U(hay_cuda_exact_params, filter, "filter", 2, 3, 0, "2",
                "key bytes in the filter: first and last, or also the second"),
};
const hay_param_table hay_cuda_brute_param_table =
    HAY_PARAM_TABLE("brute", hay_cuda_exact_params, brute_keys);
const hay_param_table hay_cuda_bm_param_table =
    HAY_PARAM_TABLE("bm-gpu", hay_cuda_exact_params, bm_keys);
const hay_param_table hay_cuda_fast_param_table =
    HAY_PARAM_TABLE("gpu-fast", hay_cuda_exact_params, fast_keys);

static const hay_param sw_keys[] = {
    HAY_PARAM_U(hay_cuda_sw_params, blocks, "blocks", 1, (uint64_t)1 << 24, 0, NULL,
                "blocks (default: the variant's, from the device's SMs)"),
    HAY_PARAM_U(hay_cuda_sw_params, threads, "threads", 1, 1024, 0, NULL,
                "threads per block (default: the variant's)"),
    HAY_PARAM_U(hay_cuda_sw_params, tile, "tile", 1, (uint64_t)1 << 24, 0, NULL,
                "tile side (tiled) or strip rows (fast: 128..1024, 32 x 4, 8, 16 or 32)"),
    HAY_PARAM_B(hay_cuda_sw_params, split, "split", "1",
                "measure the compute / synchronisation split"),
    HAY_PARAM_U(hay_cuda_sw_params, impl, "impl", 1, 2, 0, NULL,
                "fast: version 1, or 2 (byte profile only; the default when it applies)"),
    HAY_PARAM_U(hay_cuda_sw_params, chunk, "chunk", 8, 16, 8, NULL,
                "fast version 2: columns per hand-off (default 8 for 32-row strips, else 16)"),
};
const hay_param_table hay_cuda_sw_param_table =
    HAY_PARAM_TABLE("cuda sw", hay_cuda_sw_params, sw_keys);

static const char *const swdb_bits_words[] = { "16", "32", NULL };
static const hay_param swdb_keys[] = {
    HAY_PARAM_U(hay_cuda_swdb_params, device, "device", 0, HAY_CUDA_MAX_DEVICES - 1, 0, NULL,
                "CUDA device index (default: the current device)"),
    HAY_PARAM_E(hay_cuda_swdb_params, bits, "bits", swdb_bits_words, "16",
                "16: the 16-bit kernel where the scoring fits it, rescoring "
                "overflows in 32 bits; 32: every target in 32 bits"),
    HAY_PARAM_U(hay_cuda_swdb_params, rows, "rows", 16, 32, 16, NULL,
                "query rows a thread for long queries in the 16-bit kernel "
                "(default: 32 unless that pads much more)"),
    HAY_PARAM_SZ(hay_cuda_swdb_params, scratch, "scratch", (uint64_t)1 << 20, BIG, NULL,
                 "device memory for the multi-pass scratch (default min(1G, free / 8))"),
    HAY_PARAM_SZ(hay_cuda_swdb_params, batch, "batch", 1024, BIG, NULL,
                 "device memory for one batch of queries' scores and sort keys "
                 "(default min(4G, free / 4))"),
    HAY_PARAM_SZ(hay_cuda_swdb_params, db_max, "db_max", 1, BIG, NULL,
                 "largest database part held on the device: a larger database is "
                 "searched in parts (default: what the free memory holds)"),
};
const hay_param_table hay_cuda_swdb_param_table =
    HAY_PARAM_TABLE("cuda swdb", hay_cuda_swdb_params, swdb_keys);

/* The engines by --algo name; keep in step with backend.c's engine
 * table (the first that takes a set is the default). */
static const struct {
    const char *name;
    const hay_param_table *table;
} engine_tables[] = {
    { "gpu-fast", &hay_cuda_fast_param_table },
    { "pfac", &hay_cuda_pfac_param_table },
    { "fdr-gpu", &hay_cuda_fdr_param_table },
    { "bm-gpu", &hay_cuda_bm_param_table },
    { "brute-global", &hay_cuda_brute_param_table },
    { "brute-reg", &hay_cuda_brute_param_table },
    { "brute-first", &hay_cuda_brute_param_table },
};

/* With no --algo, a multi-pattern set runs PFAC or fdr-gpu (set.c
 * chooses): the keys of both are accepted.  Returns the tables written. */
static size_t default_engines(size_t npatterns, const hay_param_table **out)
{
    if (npatterns <= 1) {
        out[0] = &hay_cuda_fast_param_table;
        return 1;
    }
    out[0] = &hay_cuda_pfac_param_table;
    out[1] = &hay_cuda_fdr_param_table;
    return 2;
}

size_t hay_cuda_param_tables(const char *algo, size_t npatterns,
                             const hay_param_table **out)
{
    size_t n = 0;
    out[n++] = &hay_cuda_driver_param_table;
    if (!algo)
        return n + default_engines(npatterns, out + n);
    for (size_t i = 0; i < sizeof engine_tables / sizeof engine_tables[0]; i++)
        if (strcmp(algo, engine_tables[i].name) == 0)
            out[n++] = engine_tables[i].table;
    return n;
}

size_t hay_auto_param_tables(size_t npatterns, const hay_param_table **out)
{
    out[0] = &hay_cuda_driver_param_table;
    out[1] = &hay_auto_param_table;
    return 2 + default_engines(npatterns, out + 2);
}

hay_status hay_cuda_engine_params(const char *text, const hay_param_table *own,
                                  void *values)
{
    const hay_param_table *const tables[] = {
        own, &hay_cpu_param_table, &hay_cuda_driver_param_table, &hay_auto_param_table,
    };
    void *const vals[] = { values, NULL, NULL, NULL };
    return hay_params_parse(text, tables, 4, vals, false, NULL);
}
