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
//    (1) the keys into `out` grouped by region: a count of each region's
//    keys, their prefix sum (each region's first index) and a scatter
//    (atomics per warp and region: the kernel's keys come in runs of
//    nearby ends), 3 crossings of the keys; (2) one block per region
//    loads its keys into registers as 32-bit keys (the end's low R bits
//    above the id's id_bits: 23-24 bits for snort and et-open, at most
//    32), sorts them in shared memory and writes them back in place,
//    full width: by a count of the keys in each of 256 buckets of
//    neighbouring ends and a compare of the few keys of one bucket
//    (count_region: in blocks of 16 an SM for regions of at most SMALL
//    keys, small_sort, and of 8 an SM for larger ones, region_sort), where
//    cub::BlockRadixSort's six 4-bit rounds took 276-304 us for a piece of
//    snort or et-open on the H100 (it serves buckets holding more than
//    TIES keys).  A region with more keys than a block holds (duplicates,
//    bursts) is listed by the block and sorted after with CUB's segmented
//    radix sort.
//    So the keys cross the device's memory 5 times instead of 13.  (Also
//    tried: grouping by CUB's radix sort on the region bits, two passes,
//    5 crossings in step (1): slower; docs/notes/2026-11-26-listfast.md.)
//    Step (2) can wait (sort.h `later`) until the list is delivered, and
//    then write each sorted key straight into a list's arrays (sink_dev):
//    for a list taken whole into device-reachable arrays, the sorted keys
//    are never written nor read again for list_convert.cu's conversion
//    (list_dev.c whole).
// Keys are unique (one pattern id per end), so any sort by key gives the
// one order, whatever order a region's keys came in; every way gives
// exactly today's.
//
// HAY_CUDA_SORT in the environment, to measure the ways against each other
// (cuda_pfac_bench list --only) and test them: "radix" forces the radix
// sort; "all" has the regions serve any list of two keys or more, in
// regions of at most 16 bytes (tests: conformance_gpu's lists);
// "blocksort" has every region sorted by cub::BlockRadixSort.  (Round 2
// also measured 6-bit digits in the regions' block sort: 4 rounds for 24
// bits instead of 6, but slower on every row.)
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime.h>

#include "cuda_engine.h"
#include "sort.h"

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
    BUCKET_BITS = 8,             // the counting way's buckets a region: 2^8, of 2^(R-8) ends
    TIES = 16,                   // keys a bucket the counting way orders (more: radix)
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
    int counting;   // the regions' blocks sort by counting (else CUB's radix)
};

// HAY_CUDA_SORT (above), read for each list (a benchmark switches).
enum { F_RADIX = 1, F_ALL = 2, F_BLOCK = 4 };

int forced(void)
{
    const char *e = getenv("HAY_CUDA_SORT");
    if (!e)
        return 0;
    return (strstr(e, "radix") ? F_RADIX : 0) | (strstr(e, "all") ? F_ALL : 0) |
           (strstr(e, "blocksort") ? F_BLOCK : 0);
}

plan plan_of(size_t n, int end_bit, uint64_t span, int id_bits, int force)
{
    plan p = { 0, 0, 0, 0 };
    if ((force & F_RADIX) || n < ((force & F_ALL) ? 2 : MIN_KEYS) || n > 0x7fffffffu ||
        id_bits < 1 || id_bits > HAY_CUDA_ID_BITS)
        return p;
    // The widest region with at most AVG keys on average ...
    int r = 1;
    while (r < 31 && (double)n * (double)((u64)1 << (r + 1)) <= (double)AVG * ((double)span + 1))
        r++;
    if ((force & F_ALL) && r > 4)
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
    p.counting = !(force & F_BLOCK);
    return p;
}

// A region's keys as 32-bit keys (the end's low r bits above the id's
// id_bits), and back to full keys of region `region`.
struct rkeys {
    int r, id_bits;
    u64 emask, idmask;
    __device__ rkeys(int r_, int id_bits_)
        : r(r_), id_bits(id_bits_), emask(((u64)1 << r_) - 1), idmask(((u64)1 << id_bits_) - 1)
    {
    }
    __device__ unsigned pack(u64 key) const
    {
        return (unsigned)(((HAY_CUDA_MATCH_END(key) & emask) << id_bits) |
                          (HAY_CUDA_MATCH_ID(key) & idmask));
    }
    __device__ u64 unpack(u64 region, unsigned k) const
    {
        return HAY_CUDA_MATCH((region << r) | (k >> id_bits), k & idmask);
    }
};

// Where a sorted key goes: back into keys, or with arr.ids set converted
// into a list's arrays (sort.h hay_sink_put: list_convert.cu's
// conversion, without its pass over the keys).
struct sink_dev {
    u64 *keys;
    hay_cuda_sort_sink arr;
    __device__ __forceinline__ void put(size_t i, u64 key) const
    {
        if (arr.ids)
            hay_sink_put(arr, i, key);
        else
            keys[i] = key;
    }
};

// The region's c keys at keys[0, c): 32-bit keys (the end's low r bits
// above the id) sorted in the block, written full width to `to` at lo on.
template <int IPT>
__device__ void sort_region(const u64 *keys, int c, u64 region, int r, int id_bits, void *smem,
                            const sink_dev &to, int lo)
{
    typedef cub::BlockRadixSort<unsigned, THREADS, IPT> sorter;
    const int bits = r + id_bits;
    const unsigned pad = bits == 32 ? ~0u : (unsigned)(((u64)1 << bits) - 1);
    const rkeys rk(r, id_bits);
    unsigned k[IPT];
#pragma unroll
    for (int i = 0; i < IPT; i++) {
        int x = i * THREADS + (int)threadIdx.x;
        if (x < c) {
            k[i] = rk.pack(keys[x]);
        } else {
            k[i] = pad;   // the greatest key: sorts last (an equal real key is the same)
        }
    }
    sorter(*(typename sorter::TempStorage *)smem).SortBlockedToStriped(k, 0, bits);
#pragma unroll
    for (int i = 0; i < IPT; i++) {
        int x = i * THREADS + (int)threadIdx.x;
        if (x < c)
            to.put((size_t)lo + x, rk.unpack(region, k[i]));
    }
}

// The counting way's shared memory: the keys of each bucket (then each
// bucket's first index), the region's 32-bit keys placed by bucket, the
// scan's storage.
template <int CAP>
struct count_smem_of {
    unsigned cnt[(1 << BUCKET_BITS) + 1];
    unsigned key[CAP];
    typename cub::BlockScan<unsigned, THREADS>::TempStorage scan;
    int ties;
};
typedef count_smem_of<LARGE> count_smem;

// The region's c keys at keys[0, c) sorted by a count of each bucket's
// keys (a bucket: 2^(r - BUCKET_BITS) neighbouring ends, or one end in
// regions of at most 2^BUCKET_BITS bytes; a region holds about one key a
// bucket): each key's rank in its bucket by an atomic on the bucket's
// count, the counts' prefix sum, the keys placed by bucket, then the few
// keys of one bucket ordered by comparing each with the others of its
// bucket; written full width to `to` at lo on.  Where a bucket holds more
// than TIES keys (a burst of patterns ending at one byte) the comparisons
// would grow as the square: false, nothing written (the radix way then).
// (Buckets of one end each, 2^r of them, took 218 us a 32 MiB piece of
// snort against the radix way's 276: the counts outnumbered the keys 4 to
// 1.)
template <int IPT, class SMEM>
__device__ bool count_region(const u64 *keys, int c, u64 region, int r, int id_bits, SMEM &s,
                             const sink_dev &to, int lo)
{
    const int sh = r > BUCKET_BITS ? r - BUCKET_BITS : 0, buckets = 1 << (r - sh);
    const rkeys rk(r, id_bits);
    for (int i = (int)threadIdx.x; i <= buckets; i += THREADS)
        s.cnt[i] = 0;
    if (threadIdx.x == 0)
        s.ties = 0;
    __syncthreads();
    unsigned k[IPT], at[IPT];
#pragma unroll
    for (int i = 0; i < IPT; i++) {
        int x = i * THREADS + (int)threadIdx.x;
        if (x < c) {
            k[i] = rk.pack(keys[x]);
            at[i] = atomicAdd(&s.cnt[k[i] >> (id_bits + sh)], 1u);   // its rank in its bucket
            if (at[i] >= TIES)
                s.ties = 1;
        }
    }
    __syncthreads();
    const bool ties = s.ties != 0;
    if (ties) {
        __syncthreads();   // (every thread has read it: the radix way reuses the memory)
        return false;
    }
    // Each bucket's first index: each thread scans a run of the counts.
    {
        const int per = (buckets + THREADS - 1) / THREADS, lo = (int)threadIdx.x * per;
        const int hi = lo + per < buckets ? lo + per : buckets;
        unsigned sum = 0;
        for (int j = lo; j < hi; j++)
            sum += s.cnt[j];
        cub::BlockScan<unsigned, THREADS>(s.scan).ExclusiveSum(sum, sum);
        for (int j = lo; j < hi; j++) {
            unsigned t = s.cnt[j];
            s.cnt[j] = sum;
            sum += t;
        }
        if (threadIdx.x == 0)
            s.cnt[buckets] = (unsigned)c;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < IPT; i++)
        if (i * THREADS + (int)threadIdx.x < c) {
            unsigned e = k[i] >> (id_bits + sh);
            at[i] += s.cnt[e];
            s.key[at[i]] = k[i];
        }
    __syncthreads();
    // The bucket's keys in order: the final index is the bucket's first
    // plus the keys of the bucket below this one (equal keys, which a list
    // never holds, keep their places' order).
#pragma unroll
    for (int i = 0; i < IPT; i++)
        if (i * THREADS + (int)threadIdx.x < c) {
            unsigned e = k[i] >> (id_bits + sh), b = s.cnt[e], n = s.cnt[e + 1] - b;
            if (n > 1) {
                unsigned f = b;
                for (unsigned j = b; j < b + n; j++) {
                    unsigned o = s.key[j];
                    f += o < k[i] || (o == k[i] && j < at[i]);
                }
                at[i] = f;
            }
        }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < IPT; i++)
        if (i * THREADS + (int)threadIdx.x < c)
            s.key[at[i]] = k[i];
    __syncthreads();
    for (int x = (int)threadIdx.x; x < c; x += THREADS)
        to.put((size_t)lo + x, rk.unpack(region, s.key[x]));
    return true;
}

// A block's shared memory: CUB's radix sort at a block's three sizes, or
// the counting way's.
typedef cub::BlockRadixSort<unsigned, THREADS, SMALL / THREADS> s_small;
typedef cub::BlockRadixSort<unsigned, THREADS, MID / THREADS> s_mid;
typedef cub::BlockRadixSort<unsigned, THREADS, LARGE / THREADS> s_large;
union block_smem {
    s_small::TempStorage a;
    s_mid::TempStorage b;
    s_large::TempStorage c;
    count_smem d;
};

// A region of c keys (c at most IPT a thread) sorted by the block: by
// counting where `counting` and its buckets allow, else by the radix sort.
template <int IPT>
__device__ void sort_block(const u64 *keys, int c, u64 region, int r, int id_bits,
                           bool counting, block_smem &tmp, const sink_dev &to, int lo)
{
    if (!counting || !count_region<IPT>(keys, c, region, r, id_bits, tmp.d, to, lo))
        sort_region<IPT>(keys, c, region, r, id_bits, &tmp, to, lo);
}

// region_sort's work on one region (every thread of the block).
__device__ void one_region(const u64 *keys, int lo, int c, u64 region, int r, int id_bits,
                           int *big, int *nbig, int maxbig, bool counting, block_smem &tmp,
                           const sink_dev &to)
{
    if (c <= SMALL)
        sort_block<SMALL / THREADS>(keys + lo, c, region, r, id_bits, counting, tmp, to, lo);
    else if (c <= MID)
        sort_block<MID / THREADS>(keys + lo, c, region, r, id_bits, counting, tmp, to, lo);
    else if (c <= LARGE)
        sort_block<LARGE / THREADS>(keys + lo, c, region, r, id_bits, counting, tmp, to, lo);
    else if (threadIdx.x == 0) {
        int k = atomicAdd(nbig, 1);
        if (k < maxbig) {   // always (each holds more than LARGE of n keys)
            big[k] = lo;
            big[maxbig + k] = lo + c;
        }
    }
}

// A block a region of keys (grouped by region, stable): sorted within
// it in place, by the counting way where `counting` and its buckets
// allow, else by CUB's block radix sort; a region too large for a block
// goes to big[] (begin, end pairs) for the segmented sort.  Block i takes
// the region left[i] of the nleft listed (those small_sort left; the blocks
// past them exit at once), or with left NULL region i.  A listed region of
// at most SMALL keys is one whose bucket held more than TIES: the radix
// way.  Sorted keys go to `to`; into arrays, a region of one key too (left
// NULL: no small_sort before).  (Blocks stepping through the regions in a
// loop spilled 968 bytes a thread; 644 with one_region not inlined.)
__global__ void __launch_bounds__(THREADS, 8)
    region_sort(const u64 *keys, const int *off, u64 regions, const int *left, const int *nleft,
                int r, int id_bits, int *big, int *nbig, int maxbig, int counting, sink_dev to)
{
    __shared__ block_smem tmp;
    const u64 total = left ? (u64)*nleft : regions;
    if (blockIdx.x >= total)
        return;
    const u64 region = left ? (u64)left[blockIdx.x] : blockIdx.x;
    const int lo = off[region], c = off[region + 1] - lo;
    if (c > 1)
        one_region(keys, lo, c, region, r, id_bits, big, nbig, maxbig,
                   counting && (!left || c > SMALL), tmp, to);
    else if (c == 1 && to.arr.ids && threadIdx.x == 0)
        to.put((size_t)lo, keys[lo]);
}

// The counting way for regions of at most SMALL keys in blocks small
// enough for 16 an SM (32 registers a thread, 3 KiB of shared memory):
// region_sort's blocks (64 registers, 8 an SM) load their keys and then
// only compute, so the memory idles between regions.  Regions it leaves
// (more keys, or a bucket of more than TIES) are listed for region_sort.
// Sorted keys go to `to`; into arrays, a region of one key too.
__global__ void __launch_bounds__(THREADS, 16)
    small_sort(const u64 *keys, const int *off, int r, int id_bits, int *left, int *nleft,
               sink_dev to)
{
    __shared__ count_smem_of<SMALL> s;
    const u64 region = blockIdx.x;
    const int lo = off[region], c = off[region + 1] - lo;
    if (c <= 1) {
        if (c == 1 && to.arr.ids && threadIdx.x == 0)
            to.put((size_t)lo, keys[lo]);
        return;
    }
    if (c > SMALL ||
        !count_region<SMALL / THREADS>(keys + lo, c, region, r, id_bits, s, to, lo)) {
        if (threadIdx.x == 0)
            left[atomicAdd(nleft, 1)] = (int)region;
    }
}

// The big regions' sorted keys in src (the segmented sort's other buffer,
// or the keys themselves) to `to`.
__global__ void put_big(const u64 *src, const int *big, int maxbig, sink_dev to)
{
    for (int s = blockIdx.x; s < maxbig; s += gridDim.x)
        for (int i = big[s] + (int)threadIdx.x; i < big[maxbig + s]; i += blockDim.x)
            to.put((size_t)i, src[i]);
}

struct greater_of {
    __device__ u64 operator()(u64 a, u64 b) const { return a > b ? a : b; }
};

// sort.h hay_cuda_sort_last for grouped keys (one block): the region of
// the last key, its greatest end, and the keys of that region below it.
__global__ void __launch_bounds__(256) last_end(const u64 *keys, const int *off, u64 regions,
                                                int n, u64 *out)
{
    typedef cub::BlockReduce<u64, 256> reduce;
    __shared__ typename reduce::TempStorage tmp;
    __shared__ int s_lo;
    __shared__ u64 s_last;
    if (threadIdx.x == 0) {
        u64 a = 0, b = regions - 1;   // the last region whose first index is below n
        while (a < b) {
            u64 m = (a + b + 1) / 2;
            if (off[m] < n)
                a = m;
            else
                b = m - 1;
        }
        s_lo = off[a];
    }
    __syncthreads();
    const int lo = s_lo;
    u64 most = 0;
    for (int i = lo + (int)threadIdx.x; i < n; i += 256) {
        u64 e = HAY_CUDA_MATCH_END(keys[i]);
        most = e > most ? e : most;
    }
    most = reduce(tmp).Reduce(most, greater_of());
    if (threadIdx.x == 0)
        s_last = most;
    __syncthreads();
    const u64 last = s_last;
    u64 below = 0;
    for (int i = lo + (int)threadIdx.x; i < n; i += 256)
        below += HAY_CUDA_MATCH_END(keys[i]) < last;
    below = reduce(tmp).Sum(below);
    if (threadIdx.x == 0) {
        out[0] = (u64)lo + below;
        out[1] = last;
    }
}

// One pass over the keys, one atomic per warp and region (the kernel's
// keys come in runs of nearby ends): without PLACE each region's keys
// counted into cnt[region]; with PLACE each key written to the next free
// index of its region (off: the regions' first indexes; cnt: the keys
// placed).  Both zeroed before.  The warps of a block step through the
// keys together (a warp's lanes are all in or all past its last step).
template <bool PLACE>
__global__ void region_pass(const u64 *keys, int n, int shift, const int *off, int *cnt,
                            u64 *out)
{
    const unsigned lane = threadIdx.x & 31;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x - lane; w < n; w += step) {
        bool in = w + lane < n;
        unsigned mask = __ballot_sync(~0u, in);
        if (in) {
            u64 key = keys[w + lane];
            unsigned b = (unsigned)(key >> shift);
            unsigned peers = __match_any_sync(mask, b);
            int leader = __ffs(peers) - 1, at = 0;
            if ((int)lane == leader)
                at = (PLACE ? off[b] : 0) + atomicAdd(cnt + b, __popc(peers));
            if (PLACE) {
                at = __shfl_sync(peers, at, leader);
                out[at + __popc(peers & ((1u << lane) - 1))] = key;
            }
        }
    }
}

// Where the regions way keeps its parts in the temp storage: the regions'
// first indexes (off), the big regions (big, nbig), the counts (cnt, then
// the keys the scatter placed) and the scan's storage; then the area: the
// big regions' other buffer (n keys) and the segmented sort's storage.
struct layout {
    size_t off, big, nbig, cnt, scan, area, total;
    size_t scan_bytes, seg_bytes;
};

// The storage CUB's scan and segmented sort need at their largest here
// (2^16 + 2 counts; 2^20 segments of 64 bits, more than any list's big
// regions), asked once per device, not per piece (each question costs the
// calling thread several driver calls).
cudaError_t cub_sizes(cudaStream_t st, size_t *scan, size_t *seg)
{
    enum { DEVICES = 64 };
    static size_t known[DEVICES][2];   // 0: not asked yet (threads asking at once agree)
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    if (dev >= 0 && dev < DEVICES && __atomic_load_n(&known[dev][1], __ATOMIC_ACQUIRE)) {
        *scan = __atomic_load_n(&known[dev][0], __ATOMIC_RELAXED);
        *seg = __atomic_load_n(&known[dev][1], __ATOMIC_RELAXED);
        return cudaSuccess;
    }
    *scan = *seg = 0;
    e = cub::DeviceScan::ExclusiveSum(NULL, *scan, (int *)NULL, (int *)NULL,
                                      (1 << REGION_BITS_MAX) + 2, st);
    cub::DoubleBuffer<u64> db(NULL, NULL);
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedRadixSort::SortKeys(NULL, *seg, db, 1 << 30, 1 << 20,
                                                    (const int *)NULL, (const int *)NULL, 0, 64,
                                                    st);
    if (e != cudaSuccess)
        return e;
    if (*seg == 0)
        *seg = 1;
    if (dev >= 0 && dev < DEVICES) {
        __atomic_store_n(&known[dev][0], *scan, __ATOMIC_RELAXED);
        __atomic_store_n(&known[dev][1], *seg, __ATOMIC_RELEASE);
    }
    return cudaSuccess;
}

cudaError_t layout_of(const plan &p, size_t n, cudaStream_t st, layout *l)
{
    cudaError_t e = cub_sizes(st, &l->scan_bytes, &l->seg_bytes);
    if (e != cudaSuccess)
        return e;
    size_t ints = align_up((size_t)(p.regions + 1) * sizeof(int));
    l->off = 0;
    l->big = ints;
    l->nbig = l->big + align_up(2 * (size_t)p.maxbig * sizeof(int) + 1);
    l->cnt = l->nbig + 256;
    l->scan = l->cnt + ints;
    l->area = l->scan + align_up(l->scan_bytes);
    l->total = l->area + (p.maxbig ? align_up(n * sizeof(u64)) + align_up(l->seg_bytes) : 0);
    return cudaSuccess;
}

// Step (1): the keys of `in` into `out` grouped by region, off[j] the
// first index of region j (j in [0, regions]).
cudaError_t group(const plan &p, const layout &l, char *tmp, const u64 *in, u64 *out, size_t n,
                  int shift, cudaStream_t st)
{
    int *off = (int *)(tmp + l.off), *cnt = (int *)(tmp + l.cnt);
    size_t ints = (size_t)(p.regions + 1) * sizeof(int), bytes = l.scan_bytes;
    unsigned blocks = (unsigned)((n + 255) / 256 < 8192 ? (n + 255) / 256 : 8192);
    cudaError_t e = cudaMemsetAsync(cnt, 0, ints, st);
    if (e != cudaSuccess)
        return e;
    region_pass<false><<<blocks, 256, 0, st>>>(in, (int)n, shift, off, cnt, out);
    if ((e = cub::DeviceScan::ExclusiveSum(tmp + l.scan, bytes, cnt, off, (int)p.regions + 1,
                                           st)) != cudaSuccess ||
        (e = cudaMemsetAsync(cnt, 0, ints, st)) != cudaSuccess)   // the keys placed
        return e;
    region_pass<true><<<blocks, 256, 0, st>>>(in, (int)n, shift, off, cnt, out);
    return cudaGetLastError();
}

// Step (2), on keys grouped by step (1): each region sorted into `to`.
cudaError_t finish_regions(const plan &p, const layout &l, char *tmp, u64 *out, size_t n,
                           int id_bits, const sink_dev &to, cudaStream_t st)
{
    int *off = (int *)(tmp + l.off), *big = (int *)(tmp + l.big), *nbig = (int *)(tmp + l.nbig);
    // The regions small_sort leaves, listed where group() counted (done with).
    int *left = (int *)(tmp + l.cnt), *nleft = nbig + 1;
    const int shift = HAY_CUDA_ID_BITS + p.r;
    cudaError_t e = cudaMemsetAsync(big, 0, l.cnt - l.big, st);
    if (e != cudaSuccess)
        return e;   // (the big pairs (0, 0), nbig and nleft 0)
    if (p.counting) {
        small_sort<<<(unsigned)p.regions, THREADS, 0, st>>>(out, off, p.r, id_bits, left, nleft,
                                                            to);
        region_sort<<<(unsigned)p.regions, THREADS, 0, st>>>(out, off, p.regions, left, nleft,
                                                             p.r, id_bits, big, nbig,
                                                             (int)p.maxbig, 1, to);
    } else {
        region_sort<<<(unsigned)p.regions, THREADS, 0, st>>>(out, off, p.regions, NULL, NULL, p.r,
                                                             id_bits, big, nbig, (int)p.maxbig, 0,
                                                             to);
    }
    if ((e = cudaGetLastError()) != cudaSuccess || !p.maxbig)
        return e;
    // The big regions (unused pairs are empty): sorted between out and the
    // area's first n keys; from wherever CUB leaves them, to `to` (back
    // into out: only from the other buffer).
    u64 *alt = (u64 *)(tmp + l.area);
    cub::DoubleBuffer<u64> db(out, alt);
    size_t bytes = l.seg_bytes;
    e = cub::DeviceSegmentedRadixSort::SortKeys(tmp + l.area + align_up(n * sizeof(u64)), bytes,
                                                db, (int)n, (int)p.maxbig, big,
                                                big + p.maxbig, 0, shift, st);
    if (e != cudaSuccess)
        return e;
    if (db.Current() != out || to.arr.ids) {
        put_big<<<(unsigned)(p.maxbig < 1024 ? p.maxbig : 1024), 256, 0, st>>>(
            db.Current(), big, (int)p.maxbig, to);
        e = cudaGetLastError();
    }
    return e;
}

}   // namespace

// sort.h.
extern "C" int hay_cuda_sort_keys(void *d_temp, size_t *temp_bytes,
                                  const unsigned long long *in, unsigned long long *out,
                                  size_t n, int end_bit, uint64_t span, int id_bits,
                                  hay_cuda_sort_later *later, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (later)
        memset(later, 0, sizeof *later);
    if (!d_temp) {
        size_t radix = 0;
        cudaError_t e = cub::DeviceRadixSort::SortKeys(NULL, radix, in, out, (long long)n, 0,
                                                       64, st);
        if (e != cudaSuccess)
            return (int)e;
        *temp_bytes = radix;
        // The regions way at its largest: the most regions and big ones.
        plan p = { 1, ((u64)1 << REGION_BITS_MAX) + 1, n / (LARGE + 1), 1 };
        layout l;
        if (n >= 2 && n <= 0x7fffffffu && layout_of(p, n, st, &l) == cudaSuccess &&
            l.total > radix)
            *temp_bytes = l.total;
        cudaGetLastError();
        return 0;
    }
    plan p = plan_of(n, end_bit, span, id_bits, forced());
    layout l;
    if (p.r && layout_of(p, n, st, &l) == cudaSuccess && l.total <= *temp_bytes) {
        char *tmp = (char *)d_temp;
        cudaError_t e = group(p, l, tmp, in, out, n, HAY_CUDA_ID_BITS + p.r, st);
        if (e != cudaSuccess || later) {
            if (later && e == cudaSuccess)
                *later = hay_cuda_sort_later{ 1, p.r, p.counting, id_bits, p.regions, p.maxbig,
                                              (uint64_t)n };
            return (int)e;
        }
        const sink_dev to = { out, { NULL, NULL, NULL, NULL, 0 } };
        return (int)finish_regions(p, l, tmp, out, n, id_bits, to, st);
    }
    cudaGetLastError();
    return (int)cub::DeviceRadixSort::SortKeys(d_temp, *temp_bytes, in, out, (long long)n, 0,
                                               end_bit, st);
}

// sort.h.
extern "C" int hay_cuda_sort_finish(const hay_cuda_sort_later *later, void *d_temp,
                                    unsigned long long *keys, const hay_cuda_sort_sink *sink,
                                    void *stream)
{
    if (!later->deferred)
        return sink ? (int)cudaErrorInvalidValue : 0;
    cudaStream_t st = (cudaStream_t)stream;
    const plan p = { later->r, later->regions, later->maxbig, later->counting };
    layout l;
    cudaError_t e = layout_of(p, (size_t)later->n, st, &l);
    if (e != cudaSuccess)
        return (int)e;
    sink_dev to = { keys, { NULL, NULL, NULL, NULL, 0 } };
    if (sink)
        to.arr = *sink;
    return (int)finish_regions(p, l, (char *)d_temp, keys, (size_t)later->n, later->id_bits, to,
                               st);
}

// sort.h.
extern "C" int hay_cuda_sort_last(const hay_cuda_sort_later *later, void *d_temp,
                                  const unsigned long long *keys, unsigned long long *out,
                                  void *stream)
{
    if (!later->deferred || !later->n)
        return (int)cudaErrorInvalidValue;
    // The regions' first indexes open the temp storage (layout_of: off 0).
    last_end<<<1, 256, 0, (cudaStream_t)stream>>>(keys, (const int *)d_temp, later->regions,
                                                  (int)later->n, out);
    return (int)cudaGetLastError();
}
