// list_sort_test.cu - the sort of a piece's match keys (src/cuda/sort.cu,
// hay_cuda_sort_keys) on the device against std::sort on the host: the
// same keys in the same order, the input left unchanged.  Lists on both
// ways of sort.cu: short ones (the radix sort), large ones cut into
// regions at several densities, regions of every size around a block's
// (512, 1024, 2048 keys and one more) and far past it (the segmented sort
// of big regions), keys at the region's and the list's greatest (the
// padding's value), every id width, a list of one end, sparse lists whose
// regions would not fit 32 bits (back to the radix sort), and a list the
// temp storage was sized for at its largest, ends of about as many keys
// as the regions' counting way orders; each by default, with
// HAY_CUDA_SORT=all (every list of two keys or more by regions) and with
// HAY_CUDA_SORT=blocksort (every region by CUB's block radix sort).  Each
// list is also sorted in two steps (sort.h `later`): its regions straight
// into arrays (ids, starts, ends against the sorted keys, and the last end's
// words), then the same grouped keys in place.  Without
// a CUDA device it prints why and exits 77 (skipped).
#include <cuda_runtime.h>

#include <algorithm>
#include <random>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda_engine.h"

#include "sort.h"

namespace {

typedef unsigned long long u64;

std::mt19937_64 rng(12345);

// pipeline.c end_bits: every key of ends at most span below 2^bits.
int end_bits(u64 span)
{
    int b = HAY_CUDA_ID_BITS + 1;
    while (b < 64 && (span >> (b - HAY_CUDA_ID_BITS)) != 0)
        b++;
    return b;
}

struct dev {
    u64 *in = nullptr, *out = nullptr;
    void *tmp = nullptr;
    size_t cap = 0, tmp_bytes = 0;
    cudaStream_t st = nullptr;
    // A deferred sort's arrays (sort.h hay_cuda_sort_sink) and words.
    uint32_t *ids = nullptr, *plen = nullptr;
    uint64_t *starts = nullptr, *ends = nullptr;
    u64 *words = nullptr;
    std::vector<uint32_t> lens;   // plen on the host
};

enum { MAX_IDS = 1 << HAY_CUDA_ID_BITS };   // plen's entries: every id
const u64 BASE = ((u64)1 << 40) + 12345;   // the arrays' ends: base + the local end

int failures = 0, cases = 0;
size_t max_n = SIZE_MAX;   // lists longer are left out in this round
const char *mode = "";     // HAY_CUDA_SORT of this round

void fail(const char *name, const char *what, size_t at)
{
    printf("FAIL %s [%s]: %s (at %zu)\n", name, mode, what, at);
    failures++;
}

bool same_keys(const char *name, const char *how, const std::vector<u64> &got,
               const std::vector<u64> &want)
{
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i]) {
            printf("  key %zu%s: got end %llu id %u, want end %llu id %u\n", i, how,
                   (u64)HAY_CUDA_MATCH_END(got[i]), HAY_CUDA_MATCH_ID(got[i]),
                   (u64)HAY_CUDA_MATCH_END(want[i]), HAY_CUDA_MATCH_ID(want[i]));
            fail(name, "wrong key", i);
            return false;
        }
    return true;
}

// The keys check() left in d.in (unchanged: it checked) sorted again in
// two steps (hay_cuda_sort_keys with `later`):
// where the regions way served them, its last end, the regions sorted
// straight into arrays (ids, starts, ends against the sorted keys), then
// the same grouped keys sorted in place; else (the radix way) the keys
// sorted already and no arrays.
void deferred(dev &d, const char *name, const std::vector<u64> &want, u64 span, int id_bits)
{
    size_t n = want.size(), tb = d.tmp_bytes;
    cudaMemset(d.out, 0xab, n * sizeof(u64));
    hay_cuda_sort_later later;
    hay_cuda_sort_sink sink = { d.ids, d.starts, d.ends, d.plen, BASE };
    int e = hay_cuda_sort_keys(d.tmp, &tb, d.in, d.out, n, end_bits(span), span, id_bits, &later,
                               d.st);
    if (e == 0 && later.deferred) {
        e = hay_cuda_sort_last(&later, d.tmp, d.out, d.words, d.st);
        if (e == 0)
            e = hay_cuda_sort_finish(&later, d.tmp, d.out, &sink, d.st);
    } else if (e == 0 && hay_cuda_sort_finish(&later, d.tmp, d.out, &sink, d.st) == 0) {
        fail(name, "arrays from a sort not deferred", 0);
    }
    cudaError_t se = cudaStreamSynchronize(d.st);
    if (e != 0 || se != cudaSuccess) {
        printf("FAIL %s [%s] deferred: %s / %s\n", name, mode,
               cudaGetErrorString((cudaError_t)e), cudaGetErrorString(se));
        failures++;
        cudaGetLastError();
        return;
    }
    if (later.deferred) {
        std::vector<uint32_t> ids(n);
        std::vector<uint64_t> starts(n), ends(n);
        std::vector<u64> words(2);
        cudaMemcpy(ids.data(), d.ids, n * sizeof(uint32_t), cudaMemcpyDeviceToHost);
        cudaMemcpy(starts.data(), d.starts, n * sizeof(u64), cudaMemcpyDeviceToHost);
        cudaMemcpy(ends.data(), d.ends, n * sizeof(u64), cudaMemcpyDeviceToHost);
        cudaMemcpy(words.data(), d.words, 2 * sizeof(u64), cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < n; i++) {
            uint32_t id = HAY_CUDA_MATCH_ID(want[i]);
            u64 end = BASE + HAY_CUDA_MATCH_END(want[i]);
            if (ids[i] != id || ends[i] != end || starts[i] != end - d.lens[id]) {
                printf("  entry %zu: got id %u start %llu end %llu, want id %u end %llu\n", i,
                       ids[i], (u64)starts[i], (u64)ends[i], id, end);
                fail(name, "wrong array entry (deferred, into arrays)", i);
                return;
            }
        }
        u64 last = HAY_CUDA_MATCH_END(want[n - 1]);
        size_t first = n - 1;
        while (first && HAY_CUDA_MATCH_END(want[first - 1]) == last)
            first--;
        if (words[0] != first || words[1] != last) {
            printf("  last end: got %llu from %llu, want %llu from %zu\n", words[1], words[0],
                   last, first);
            fail(name, "wrong last end (deferred)", n - 1);
            return;
        }
        e = hay_cuda_sort_finish(&later, d.tmp, d.out, NULL, d.st);
        se = cudaStreamSynchronize(d.st);
        if (e != 0 || se != cudaSuccess) {
            fail(name, "deferred sort in place", 0);
            cudaGetLastError();
            return;
        }
    }
    std::vector<u64> got(n);
    cudaMemcpy(got.data(), d.out, n * sizeof(u64), cudaMemcpyDeviceToHost);
    same_keys(name, " (deferred, in place)", got, want);
}

// Sorts keys (unique, any order) on the device; checks the result.
void check(dev &d, const char *name, std::vector<u64> keys, u64 span, int id_bits)
{
    size_t n = keys.size();
    if (n > max_n)
        return;
    cases++;
    std::shuffle(keys.begin(), keys.end(), rng);
    if (n > d.cap) {
        fail(name, "test list larger than the device buffers", n);
        return;
    }
    cudaMemcpy(d.in, keys.data(), n * sizeof(u64), cudaMemcpyHostToDevice);
    cudaMemset(d.out, 0xab, n * sizeof(u64));
    size_t tb = d.tmp_bytes;
    int e = hay_cuda_sort_keys(d.tmp, &tb, d.in, d.out, n, end_bits(span), span, id_bits, NULL,
                               d.st);
    cudaError_t se = cudaStreamSynchronize(d.st);
    if (e != 0 || se != cudaSuccess) {
        printf("FAIL %s [%s]: %s / %s\n", name, mode, cudaGetErrorString((cudaError_t)e),
               cudaGetErrorString(se));
        failures++;
        cudaGetLastError();
        return;
    }
    std::vector<u64> got(n), in(n);
    cudaMemcpy(got.data(), d.out, n * sizeof(u64), cudaMemcpyDeviceToHost);
    cudaMemcpy(in.data(), d.in, n * sizeof(u64), cudaMemcpyDeviceToHost);
    if (in != keys)
        fail(name, "the input was changed", 0);
    std::vector<u64> want = keys;
    std::sort(want.begin(), want.end());
    if (!same_keys(name, "", got, want))
        return;
    deferred(d, name, want, span, id_bits);
}

// n unique keys with ends in [0, span], ids below 2^id_bits.
std::vector<u64> uniform(size_t n, u64 span, int id_bits)
{
    std::vector<u64> k;
    k.reserve(n + n / 8);
    while (k.size() < n) {
        size_t want = n - k.size();
        for (size_t i = 0; i < want + want / 16 + 16; i++)
            k.push_back(HAY_CUDA_MATCH(rng() % (span + 1), rng() & ((1ull << id_bits) - 1)));
        std::sort(k.begin(), k.end());
        k.erase(std::unique(k.begin(), k.end()), k.end());
        std::shuffle(k.begin(), k.end(), rng);
        if (k.size() > n)
            k.resize(n);
    }
    return k;
}

// m keys at one end (ids 0..m-1, which must fit id_bits), added to k
// unless already there.
void cluster(std::vector<u64> &k, u64 end, size_t m)
{
    for (size_t i = 0; i < m; i++)
        k.push_back(HAY_CUDA_MATCH(end, i));
    std::sort(k.begin(), k.end());
    k.erase(std::unique(k.begin(), k.end()), k.end());
}

}   // namespace

void all_cases(dev &d);

int main()
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIPPED: no CUDA device (%s)\n", cudaGetErrorString(cudaGetLastError()));
        return 77;
    }
    dev d;
    d.cap = (size_t)12 << 20;
    cudaStreamCreateWithFlags(&d.st, cudaStreamNonBlocking);
    if (cudaMalloc((void **)&d.in, d.cap * sizeof(u64)) ||
        cudaMalloc((void **)&d.out, d.cap * sizeof(u64)) ||
        hay_cuda_sort_keys(NULL, &d.tmp_bytes, d.in, d.out, d.cap, 64, 0, 0, NULL, d.st) ||
        cudaMalloc(&d.tmp, d.tmp_bytes) || cudaMalloc((void **)&d.ids, d.cap * 4) ||
        cudaMalloc((void **)&d.starts, d.cap * 8) || cudaMalloc((void **)&d.ends, d.cap * 8) ||
        cudaMalloc((void **)&d.words, 16) || cudaMalloc((void **)&d.plen, MAX_IDS * 4)) {
        printf("FAIL: device buffers (%s)\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    for (int i = 0; i < MAX_IDS; i++)
        d.lens.push_back(1 + (uint32_t)(rng() % 300));
    cudaMemcpy(d.plen, d.lens.data(), MAX_IDS * 4, cudaMemcpyHostToDevice);
    // The default, then the regions serving every list of two keys or more
    // (sort.cu HAY_CUDA_SORT).
    static const char *const modes[] = { "", "all", "blocksort" };
    for (const char *m : modes) {
        mode = m;
        max_n = *m && strstr(m, "all") ? (size_t)2 << 20 : SIZE_MAX;
        if (*m)
            setenv("HAY_CUDA_SORT", m, 1);
        else
            unsetenv("HAY_CUDA_SORT");
        int before = failures;
        all_cases(d);
        printf("HAY_CUDA_SORT=%s: %s\n", *m ? m : "(unset)", failures > before ? "FAILED" : "ok");
    }
    printf("%d cases, %d failures\n", cases, failures);
    cudaFree(d.in);
    cudaFree(d.out);
    cudaFree(d.tmp);
    cudaFree(d.ids);
    cudaFree(d.starts);
    cudaFree(d.ends);
    cudaFree(d.words);
    cudaFree(d.plen);
    cudaStreamDestroy(d.st);
    return failures ? 1 : 0;
}

void all_cases(dev &d)
{
    // Short lists: the radix sort.
    check(d, "empty", {}, 100, 4);
    check(d, "one key", { HAY_CUDA_MATCH(7, 3) }, 100, 4);
    check(d, "1000 keys", uniform(1000, 1 << 20, 13), 1 << 20, 13);
    check(d, "131071 keys", uniform(131071, 1 << 22, 13), 1 << 22, 13);
    // Regions at densities of snort (0.27 a byte), et-open (0.7) and more;
    // piece spans of 2^22 to 2^25 + 4095 (a 32 MiB piece and its look-back).
    if (max_n >= 11u << 20) {
        check(d, "snort-like", uniform(9u << 20, (32u << 20) + 4095, 13), (32u << 20) + 4095,
              13);
        check(d, "et-open-like", uniform(11u << 20, (16u << 20) + 300, 15), (16u << 20) + 300,
              15);
    }
    check(d, "dense 3 a byte", uniform(3u << 20, 1u << 20, 17), 1u << 20, 17);
    // Ends holding about as many keys as the counting way orders in a
    // bucket (sort.cu TIES: 16; more go to the block's radix sort).
    {
        u64 span = (u64)1 << 22;
        std::vector<u64> k = uniform(1u << 20, span, 13);
        u64 end = 777;
        for (size_t m : { 2, 15, 16, 17, 31, 32, 33 }) {
            cluster(k, end, m);
            end += span / 8;
        }
        check(d, "ends of 2 to 33 keys", k, span, 13);
        // Stretches denser than the list (regions of 513 to 2,048 keys:
        // a block's counting way rather than a warp's).
        std::vector<u64> k2 = uniform(1u << 20, span, 13);
        for (u64 e = 100000; e < 104096; e++) {
            k2.push_back(HAY_CUDA_MATCH(e, 8000));
            if (e % 2 == 0)
                k2.push_back(HAY_CUDA_MATCH(e, 8001));
            if (e % 4 == 0)
                k2.push_back(HAY_CUDA_MATCH(e + 2000000, 8002));
        }
        std::sort(k2.begin(), k2.end());
        k2.erase(std::unique(k2.begin(), k2.end()), k2.end());
        check(d, "dense stretches", k2, span, 13);
    }
    check(d, "131072 keys", uniform(131072, 1 << 22, 13), 1 << 22, 13);
    for (int idb = 1; idb <= HAY_CUDA_ID_BITS; idb += 3) {
        char name[64];
        snprintf(name, sizeof name, "id bits %d", idb);
        u64 span = (u64)1 << 23;
        size_t n = (size_t)std::min<u64>(span << idb, 1u << 20) / 2;
        check(d, name, uniform(n, span, idb), span, idb);
    }
    // Regions of every size around a block's: clusters at single ends.
    {
        u64 span = (u64)1 << 24;
        std::vector<u64> k = uniform(1u << 20, span, 17);
        static const size_t sizes[] = { 511, 512, 513, 1023, 1024, 1025, 2047, 2048,
                                        2049, 2500, 4097, 30000, 70000 };
        u64 end = 1000;
        for (size_t m : sizes) {
            cluster(k, end, m);
            end += span / 16;
        }
        check(d, "clusters", k, span, 17);
        // and two clusters in neighbouring ends of one region
        std::vector<u64> k2 = uniform(1u << 19, span, 17);
        cluster(k2, 5000, 3000);
        cluster(k2, 5001, 3000);
        cluster(k2, span, 4000);   // at the list's greatest end
        check(d, "clusters at neighbours and the greatest end", k2, span, 17);
    }
    // Keys at the greatest value a region's 32-bit key takes (id all ones
    // at the region's last end): equal to the padding.
    {
        u64 span = (u64)1 << 24;
        std::vector<u64> k = uniform(1u << 20, span, 20);
        for (u64 e = 4095; e <= span; e += 4096) {
            k.push_back(HAY_CUDA_MATCH(e, (1u << 20) - 1));
            k.push_back(HAY_CUDA_MATCH(e, (1u << 20) - 2));
        }
        k.push_back(HAY_CUDA_MATCH(span, (1u << 20) - 1));
        std::sort(k.begin(), k.end());
        k.erase(std::unique(k.begin(), k.end()), k.end());
        check(d, "keys equal to the padding", k, span, 20);
    }
    // Every end one region: a short span holding many keys.
    {
        std::vector<u64> k;
        for (u64 e = 0; e <= 40; e++)
            cluster(k, e, 5000);
        check(d, "41 ends of 5000 keys", k, 40, 13);
    }
    // Sparse: regions of 2^13 and more bytes with 20-bit ids do not fit
    // 32 bits (the radix sort).
    check(d, "sparse, 20-bit ids", uniform(200000, (u64)1 << 31, 20), (u64)1 << 31, 20);
    // A full buffer, as sized.
    if (d.cap <= max_n)
        check(d, "the sized list", uniform(d.cap, (64u << 20) + 9000, 15), (64u << 20) + 9000,
              15);
}
