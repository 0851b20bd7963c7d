// list_convert.cu - a piece's sorted match keys (cuda_engine.h
// HAY_CUDA_MATCH: local end above, id below) into hay_scan_list's arrays on
// the device (src/cuda/list_dev.h): where the list is cut, then ids,
// starts and ends written at their final index.  Two extern "C" entry
// points for the host driver; both only enqueue on the given stream.
#include "cuda_engine.h"
#include "sort.h"

#include <cuda_runtime.h>

#include <stdint.h>

typedef unsigned long long u64;

// The first index in [lo, hi) whose key is >= x (hi when none), found by
// the 32 lanes of one warp together: each round probes 32 evenly spaced
// keys and keeps the gap between the last below x and the first not, so a
// list of 16M keys takes five rounds of dependent loads, not 24.
__device__ static uint64_t warp_lower_bound(const u64 *keys, uint64_t lo, uint64_t hi, u64 x)
{
    const unsigned lane = threadIdx.x & 31;
    while (hi - lo > 32) {
        uint64_t step = (hi - lo + 31) / 32;
        uint64_t p = lo + (uint64_t)(lane + 1) * step - 1;
        if (p >= hi)
            p = hi - 1;
        unsigned below = __ballot_sync(~0u, keys[p] < x);
        unsigned c = __popc(below);   // the probes below x are a prefix (sorted keys)
        uint64_t nlo = c ? lo + (uint64_t)c * step : lo;   // just past probe c - 1
        uint64_t nhi = c < 32 ? lo + (uint64_t)(c + 1) * step - 1 : hi;   // probe c
        if (nhi > hi)
            nhi = hi;
        if (nlo > nhi)
            nlo = nhi;
        lo = nlo;
        hi = nhi;
    }
    uint64_t p = lo + lane;
    unsigned below = __ballot_sync(~0u, p < hi && keys[p] < x);
    return lo + __popc(below);
}

// One warp: out[0] the keys skipped (ends <= below), out[1] the keys taken
// (at most room, never splitting the keys of one end), out[2] the first
// taken key at the last taken end (relative to the skip), out[3] that end,
// out[4] the end of the first key that did not fit (0: all fit).
__global__ static void cut_kernel(const u64 *keys, uint64_t n, uint64_t below, uint64_t room,
                                  u64 *out)
{
    uint64_t skip = below ? warp_lower_bound(keys, 0, n, HAY_CUDA_MATCH(below + 1, 0)) : 0;
    uint64_t m = n - skip, take = m, over = 0, first = 0, last = 0;
    const u64 *k = keys + skip;
    if (m > room) {
        over = HAY_CUDA_MATCH_END(k[room]);
        take = warp_lower_bound(k, 0, room, HAY_CUDA_MATCH(over, 0));
    }
    if (take) {
        last = HAY_CUDA_MATCH_END(k[take - 1]);
        // The keys of the last end are few (at most the patterns): look
        // back from the end before searching.
        uint64_t lo = take > 32 ? take - 32 : 0;
        first = HAY_CUDA_MATCH_END(k[lo]) < last || lo == 0
                    ? warp_lower_bound(k, lo, take, HAY_CUDA_MATCH(last, 0))
                    : warp_lower_bound(k, 0, take, HAY_CUDA_MATCH(last, 0));
    }
    if (threadIdx.x == 0) {
        out[0] = skip;
        out[1] = take;
        out[2] = first;
        out[3] = last;
        out[4] = over;
    }
}

// keys[i] into entry i of the arrays (sort.h hay_sink_put).  Consecutive
// threads write consecutive entries (coalesced).
__global__ static void convert_kernel(const u64 *keys, uint64_t n, hay_cuda_sort_sink to)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        hay_sink_put(to, i, keys[i]);
}

extern "C" int hay_cuda_list_cut(const unsigned long long *d_keys, uint64_t n, uint64_t below,
                                 uint64_t room, unsigned long long *d_out, void *stream)
{
    cut_kernel<<<1, 32, 0, (cudaStream_t)stream>>>(d_keys, n, below, room, d_out);
    return (int)cudaGetLastError();
}

extern "C" int hay_cuda_list_convert(const unsigned long long *d_keys, uint64_t n,
                                     const hay_cuda_sort_sink *to, void *stream)
{
    if (n == 0)
        return 0;
    const unsigned threads = 256;
    uint64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65536)
        blocks = 65536;
    convert_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(d_keys, n, *to);
    return (int)cudaGetLastError();
}
