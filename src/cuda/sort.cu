// sort.cu - the sort of a piece's match keys (cuda_engine.h HAY_CUDA_MATCH:
// local end above HAY_CUDA_ID_BITS, id below) by (end, id), behind one C
// entry point for the driver (pipeline.c enqueue_out).
//
// Two ways, the same order:
//  - radix: CUB's device radix sort on bits [0, end_bit): for a 32 MiB
//    piece 46 bits, six passes over the keys (8 bytes read and written
//    each), a third of them over the id's 20 bits of which a set uses
//    13-15.
//  - regions (large lists): the ends cut into 2^R-byte regions, R chosen
//    from the list's density so that a region holds a few hundred keys.
//    (1) CUB's radix sort on the region bits only [ID_BITS + R, end_bit)
//    (two passes for up to 16 region bits) from the kernel's keys into
//    `out`; (2) each region's first index by a binary search; (3) one
//    block per region loads its keys into registers as 32-bit keys (the
//    end's low R bits above the id's id_bits: 21-27 bits), sorts them in
//    shared memory (cub::BlockRadixSort) and writes them back in place,
//    full width.  A region with more keys than a block holds (duplicates,
//    bursts) is listed by the block and sorted after with CUB's segmented
//    radix sort.  So the keys cross the device's memory 7 times (read or
//    written) instead of 13.
// Keys are unique (one pattern id per end), so any sort by key gives the
// one order; both ways give exactly today's.
//
// HAY_CUDA_SORT=radix in the environment forces the first way (to measure
// one against the other: cuda_pfac_bench list --only), =regions the second
// for any list of two keys or more (tests: conformance_gpu's lists).
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime.h>

#include "cuda_engine.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

namespace {

enum {
    THREADS = 128,               // a region block
    SMALL = THREADS * 4,         // keys a block sorts in its three sizes
    MID = THREADS * 8,
    LARGE = THREADS * 16,
    AVG = 320,                   // keys a region should hold on average
    REGION_BITS_MAX = 16,        // at most 2^16 + 1 regions (the offsets)
    MIN_KEYS = 1 << 17,          // shorter lists: the radix sort
};

size_t align_up(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

// How a list of n keys is cut: region width R (bytes 2^R), regions.
struct plan {
    int r;          // 0: the radix sort
    u64 regions;    // (span >> r) + 1
    u64 maxbig;     // regions with more than LARGE keys, at most
};

plan plan_of(size_t n, int end_bit, uint64_t span, int id_bits, int force)
{
    plan p = { 0, 0, 0 };
    if (force == 'r' || n < (force == 'g' ? 2 : MIN_KEYS) || n > 0x7fffffffu || id_bits < 1 ||
        id_bits > HAY_CUDA_ID_BITS)
        return p;
    // The widest region with at most AVG keys on average ...
    int r = 1;
    while (r < 31 && (double)n * (double)((u64)1 << (r + 1)) <= (double)AVG * ((double)span + 1))
        r++;
    if (force == 'g' && r > 4)
        r = 4;   // tests: many regions in short inputs
    // ... but no more than 2^16 + 1 regions,
    while (r < 40 && (span >> r) > ((u64)1 << REGION_BITS_MAX) - 1)
        r++;
    // its keys in 32 bits, and at least one region bit to sort on.
    if (r + id_bits > 32 || HAY_CUDA_ID_BITS + r >= end_bit)
        return p;
    p.r = r;
    p.regions = (span >> r) + 1;
    p.maxbig = n / (LARGE + 1);
    return p;
}

// HAY_CUDA_SORT: 'r' radix, 'g' regions (any list of 2 keys or more), else
// 0 (the default); read for each list (a benchmark switches).
int forced(void)
{
    const char *e = getenv("HAY_CUDA_SORT");
    return !e ? 0 : !strcmp(e, "radix") ? 'r' : !strcmp(e, "regions") ? 'g' : 0;
}

// off[j] = the first index whose key lies in region j or above, j in
// [0, regions] (off[regions] = n).
__global__ void region_starts(const u64 *keys, int n, int shift, u64 regions, int *off)
{
    u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j > regions)
        return;
    u64 x = j << shift;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (keys[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    off[j] = lo;
}

// The region's c keys at keys[0, c): 32-bit keys (the end's low r bits
// above the id) sorted in the block, written back full width.
template <int IPT>
__device__ void sort_region(u64 *keys, int c, u64 region, int r, int id_bits, void *smem)
{
    typedef cub::BlockRadixSort<unsigned, THREADS, IPT> sorter;
    const int bits = r + id_bits;
    const unsigned pad = bits == 32 ? ~0u : (unsigned)(((u64)1 << bits) - 1);
    const u64 emask = ((u64)1 << r) - 1, idmask = ((u64)1 << id_bits) - 1;
    unsigned k[IPT];
#pragma unroll
    for (int i = 0; i < IPT; i++) {
        int x = i * THREADS + (int)threadIdx.x;
        if (x < c) {
            u64 key = keys[x];
            k[i] = (unsigned)(((HAY_CUDA_MATCH_END(key) & emask) << id_bits) |
                              (HAY_CUDA_MATCH_ID(key) & idmask));
        } else {
            k[i] = pad;   // the greatest key: sorts last (an equal real key is the same)
        }
    }
    sorter(*(typename sorter::TempStorage *)smem).SortBlockedToStriped(k, 0, bits);
#pragma unroll
    for (int i = 0; i < IPT; i++) {
        int x = i * THREADS + (int)threadIdx.x;
        if (x < c)
            keys[x] = HAY_CUDA_MATCH((region << r) | (k[i] >> id_bits), k[i] & idmask);
    }
}

// One block a region of keys (sorted by region, stable): sorted within
// it in place; a region too large for a block goes to big[] (begin, end
// pairs) for the segmented sort.
__global__ void __launch_bounds__(THREADS, 8)
    region_sort(u64 *keys, const int *off, int r, int id_bits, int *big, int *nbig, int maxbig)
{
    typedef cub::BlockRadixSort<unsigned, THREADS, SMALL / THREADS> s_small;
    typedef cub::BlockRadixSort<unsigned, THREADS, MID / THREADS> s_mid;
    typedef cub::BlockRadixSort<unsigned, THREADS, LARGE / THREADS> s_large;
    __shared__ union {
        typename s_small::TempStorage a;
        typename s_mid::TempStorage b;
        typename s_large::TempStorage c;
    } tmp;
    u64 region = blockIdx.x;
    int lo = off[region], c = off[region + 1] - lo;
    if (c <= 1)
        return;
    if (c <= SMALL)
        sort_region<SMALL / THREADS>(keys + lo, c, region, r, id_bits, &tmp);
    else if (c <= MID)
        sort_region<MID / THREADS>(keys + lo, c, region, r, id_bits, &tmp);
    else if (c <= LARGE)
        sort_region<LARGE / THREADS>(keys + lo, c, region, r, id_bits, &tmp);
    else if (threadIdx.x == 0) {
        int k = atomicAdd(nbig, 1);
        if (k < maxbig) {   // always (each holds more than LARGE of n keys)
            big[k] = lo;
            big[maxbig + k] = lo + c;
        }
    }
}

// The big regions' keys sorted into alt (the segmented sort's other
// buffer) back to keys.
__global__ void copy_big(u64 *keys, const u64 *alt, const int *big, int maxbig)
{
    for (int s = blockIdx.x; s < maxbig; s += gridDim.x)
        for (int i = big[s] + (int)threadIdx.x; i < big[maxbig + s]; i += blockDim.x)
            keys[i] = alt[i];
}

// Where the regions way keeps its parts in the temp storage.
struct layout {
    size_t off, big, nbig, area, coarse, seg, total;
};

cudaError_t layout_of(const plan &p, size_t n, int coarse_lo, int end_bit, u64 *in, u64 *out,
                      cudaStream_t st, layout *l)
{
    l->coarse = l->seg = 0;
    cudaError_t e = cub::DeviceRadixSort::SortKeys(NULL, l->coarse, (const u64 *)in, out,
                                                   (long long)n, coarse_lo, end_bit, st);
    if (e != cudaSuccess)
        return e;
    if (p.maxbig) {
        cub::DoubleBuffer<u64> db(out, in);
        e = cub::DeviceSegmentedRadixSort::SortKeys(NULL, l->seg, db, (int)n, (int)p.maxbig,
                                                    (const int *)NULL, (const int *)NULL, 0,
                                                    coarse_lo, st);
        if (e != cudaSuccess)
            return e;
    }
    l->off = 0;
    l->big = align_up((size_t)(p.regions + 1) * sizeof(int));
    l->nbig = l->big + align_up(2 * (size_t)p.maxbig * sizeof(int) + 1);
    l->area = l->nbig + 256;
    size_t alt = align_up(n * sizeof(u64));
    size_t a = l->coarse > alt + l->seg ? l->coarse : alt + l->seg;
    l->total = l->area + align_up(a);
    return cudaSuccess;
}

cudaError_t sort_regions(const plan &p, const layout &l, char *tmp, const u64 *in, u64 *out,
                         size_t n, int end_bit, int id_bits, cudaStream_t st)
{
    int *off = (int *)(tmp + l.off), *big = (int *)(tmp + l.big), *nbig = (int *)(tmp + l.nbig);
    void *area = tmp + l.area;
    size_t bytes = l.coarse;
    const int shift = HAY_CUDA_ID_BITS + p.r;
    cudaError_t e = cub::DeviceRadixSort::SortKeys(area, bytes, in, out, (long long)n, shift,
                                                   end_bit, st);
    if (e != cudaSuccess)
        return e;
    unsigned blocks = (unsigned)((p.regions + 1 + 255) / 256);
    region_starts<<<blocks, 256, 0, st>>>(out, (int)n, shift, p.regions, off);
    if (p.maxbig) {
        e = cudaMemsetAsync(big, 0, l.area - l.big, st);   // big pairs (0, 0), nbig 0
        if (e != cudaSuccess)
            return e;
    }
    region_sort<<<(unsigned)p.regions, THREADS, 0, st>>>(out, off, p.r, id_bits, big, nbig,
                                                         (int)p.maxbig);
    if ((e = cudaGetLastError()) != cudaSuccess || !p.maxbig)
        return e;
    // The big regions (unused pairs are empty): sorted between out and the
    // area's first n keys; wherever CUB leaves them, back into out.
    u64 *alt = (u64 *)area;
    cub::DoubleBuffer<u64> db(out, alt);
    bytes = l.seg;
    e = cub::DeviceSegmentedRadixSort::SortKeys((char *)area + align_up(n * sizeof(u64)), bytes,
                                                db, (int)n, (int)p.maxbig, big,
                                                big + p.maxbig, 0, shift, st);
    if (e != cudaSuccess)
        return e;
    if (db.Current() != out) {
        copy_big<<<(unsigned)(p.maxbig < 1024 ? p.maxbig : 1024), 256, 0, st>>>(out, alt, big,
                                                                           (int)p.maxbig);
        e = cudaGetLastError();
    }
    return e;
}

}   // namespace

// Sorts the n keys of `in` (left unchanged) into `out` by (end, id): ends
// at most span, ids below 2^id_bits, every key below 2^end_bit.  With
// d_temp NULL only sets *temp_bytes: enough for any list of at most n keys
// (end_bit, span and id_bits are then ignored).  Returns a cudaError_t as
// int (0 on success).
extern "C" int hay_cuda_sort_keys(void *d_temp, size_t *temp_bytes,
                                  const unsigned long long *in, unsigned long long *out,
                                  size_t n, int end_bit, uint64_t span, int id_bits,
                                  void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    u64 *min = (u64 *)in;   // for the size queries only: `in` is never written
    if (!d_temp) {
        size_t radix = 0;
        cudaError_t e = cub::DeviceRadixSort::SortKeys(NULL, radix, in, out, (long long)n, 0,
                                                       64, st);
        if (e != cudaSuccess)
            return (int)e;
        *temp_bytes = radix;
        // The regions way at its largest: the most regions and big ones.
        plan p = { 1, ((u64)1 << REGION_BITS_MAX) + 1, n / (LARGE + 1) };
        layout l;
        if (n >= 2 && n <= 0x7fffffffu &&
            layout_of(p, n, HAY_CUDA_ID_BITS, 64, min, out, st, &l) == cudaSuccess &&
            l.total > radix)
            *temp_bytes = l.total;
        cudaGetLastError();
        return 0;
    }
    plan p = plan_of(n, end_bit, span, id_bits, forced());
    layout l;
    if (p.r && layout_of(p, n, HAY_CUDA_ID_BITS + p.r, end_bit, min, out, st, &l) ==
                   cudaSuccess && l.total <= *temp_bytes)
        return (int)sort_regions(p, l, (char *)d_temp, in, out, n, end_bit, id_bits, st);
    cudaGetLastError();
    return (int)cub::DeviceRadixSort::SortKeys(d_temp, *temp_bytes, in, out, (long long)n, 0,
                                               end_bit, st);
}
