/*
 * exact.h - the one-pattern CUDA engines (src/cuda/exact.cu; gpu-fast's
 * kernel in exact_fast.cu), each an implementation of the engine contract
 * in cuda_engine.h (multi = 0).
 *
 *   brute-global  the poster's kernel, one thread per text position, key
 *                 bytes read from global memory
 *   brute-reg     the same with the key's first 64 bytes in registers
 *                 (the rest, for longer keys, from global memory)
 *   brute-first   the same with only the first key byte in a register
 *   bm-gpu        Boyer-Moore as in the many-core paper: each block stages
 *                 tiles of threads * seg bytes (plus m - 1 overlap) in
 *                 shared memory, each thread runs Boyer-Moore over its seg
 *                 bytes; a block handles `cascade` consecutive tiles
 *                 (algorithmic cascading)
 *   gpu-fast      the fast default: grid-stride over spans of 16-byte
 *                 vectors, a first-byte/last-byte filter on 32-bit words
 *                 (no per-byte branches); a warp with a candidate checks
 *                 the first 16 middle bytes per lane, the rest with the
 *                 whole warp
 *
 * Parameters ("key=value,..." in hay_cuda_patterns.params; any other key or
 * a value out of range makes build() return HAY_ERR_INVALID):
 *   brute-*   threads=32..1024 (multiple of 32; default 256)
 *   bm-gpu    threads=32..1024 (default 128), blocks_per_sm=1..32
 *             (default 16; resident blocks per SM, enforced through the
 *             shared memory each block claims), cascade=1..1024 (default
 *             64), seg=1..4096 bytes per thread per tile (default 24)
 *   gpu-fast  threads=64..1024 (default 1024), blocks_per_sm=1..32 (default
 *             8; fewer when the registers allow fewer), unroll=1|2|4 vectors
 *             per lane per step (default 4), filter=2|3 (first and last key
 *             byte, or also the second; default 2)
 *
 * Every engine takes patterns of 1 .. HAY_MAX_PATTERN_LEN bytes, ASCII
 * caseless sets, and exactly one pattern (n = 1; id 0).
 */
#ifndef HAY_CUDA_EXACT_H
#define HAY_CUDA_EXACT_H

#include "cuda_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const hay_cuda_engine hay_cuda_engine_brute_global;
extern const hay_cuda_engine hay_cuda_engine_brute_reg;
extern const hay_cuda_engine hay_cuda_engine_brute_first;
extern const hay_cuda_engine hay_cuda_engine_bm;
extern const hay_cuda_engine hay_cuda_engine_fast;

#ifdef __cplusplus
}
#endif

#endif
