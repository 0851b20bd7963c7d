/*
 * sort.h - the sort of a piece's match keys (sort.cu; cuda_engine.h
 * HAY_CUDA_MATCH: local end above HAY_CUDA_ID_BITS, id below) by (end, id),
 * for the driver (pipeline.c enqueue_out, list_dev.c) and its tests.
 *
 * All three calls only enqueue on `stream` and return a cudaError_t as int
 * (0 on success).
 */
#ifndef HAY_CUDA_SORT_H
#define HAY_CUDA_SORT_H

#include "cuda_engine.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A sort left half done (hay_cuda_sort_keys with `later`): the keys are in
 * `out` grouped by region, the regions' offsets in the temp storage, and
 * hay_cuda_sort_finish sorts each region, in place or straight into a
 * list's arrays.  deferred 0: the keys are sorted already (the radix way:
 * short lists). */
typedef struct hay_cuda_sort_later {
    int deferred;
    int r, counting, id_bits;
    uint64_t regions, maxbig, n;
} hay_cuda_sort_later;

/* A list's arrays on the device, where key i of a sorted list goes:
 * ids[i], starts[i] (end - plen[id]; NULL: not asked) and ends[i] (base +
 * the local end; NULL: not asked).  hay_cuda_sort_finish writes them
 * while it sorts; list_convert.cu's conversion from sorted keys. */
typedef struct hay_cuda_sort_sink {
    uint32_t *ids;
    uint64_t *starts, *ends;
    const uint32_t *plen;
    uint64_t base;
} hay_cuda_sort_sink;

/* Sorts the n keys of `in` (left unchanged) into `out`: ends at most span,
 * ids below 2^id_bits, every key below 2^end_bit.  With d_temp NULL only
 * sets *temp_bytes: enough for any list of at most n keys (end_bit, span
 * and id_bits are then ignored).  With `later` non-NULL the regions way
 * stops after grouping the keys (later->deferred 1); the temp storage and
 * `out` must then be left alone until hay_cuda_sort_finish. */
int hay_cuda_sort_keys(void *d_temp, size_t *temp_bytes, const unsigned long long *in,
                       unsigned long long *out, size_t n, int end_bit, uint64_t span,
                       int id_bits, hay_cuda_sort_later *later, void *stream);

/* The rest of a deferred sort: each region of `keys` (the `out` of
 * hay_cuda_sort_keys) sorted, back into keys (sink NULL) or written
 * converted into the sink's arrays (keys then left grouped, not sorted).
 * Nothing to do where later->deferred is 0 (the keys are sorted: sink
 * NULL only). */
int hay_cuda_sort_finish(const hay_cuda_sort_later *later, void *d_temp,
                         unsigned long long *keys, const hay_cuda_sort_sink *sink,
                         void *stream);

/* For a deferred sort (later->deferred 1, before or after finish): out[0]
 * the index of the first key at the list's last end, out[1] that end
 * (list_convert.cu's cut words 2 and 3 of a list taken whole). */
int hay_cuda_sort_last(const hay_cuda_sort_later *later, void *d_temp,
                       const unsigned long long *keys, unsigned long long *out, void *stream);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* Key `key` (HAY_CUDA_MATCH) converted into entry i of s's arrays. */
__device__ __forceinline__ void hay_sink_put(const hay_cuda_sort_sink &s, size_t i,
                                             unsigned long long key)
{
    const uint64_t end = s.base + HAY_CUDA_MATCH_END(key);
    const uint32_t id = HAY_CUDA_MATCH_ID(key);
    s.ids[i] = id;
    if (s.starts)
        s.starts[i] = end - s.plen[id];
    if (s.ends)
        s.ends[i] = end;
}
#endif

#endif
