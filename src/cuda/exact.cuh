// exact.cuh - what the one-pattern CUDA engines share: the build's state,
// a job's arguments and the device helpers every kernel ends with.
// exact.cu holds brute-*, bm-gpu, the build and the launch; exact_fast.cu
// holds gpu-fast.  Included by those two .cu files only.
#ifndef HAY_CUDA_EXACT_CUH
#define HAY_CUDA_EXACT_CUH

#include <cuda_runtime.h>

#include <stdint.h>

#include "haystack.h"
#include "exact.h"

namespace hay_exact {

enum ex_kind { EX_BRUTE_GLOBAL, EX_BRUTE_REG, EX_BRUTE_FIRST, EX_BM, EX_FAST };

// Bytes of the key a kernel gets by value (the param bank, which the
// unrolled loops turn into register operands).
constexpr int EX_HEAD = 64;
// Middle bytes gpu-fast checks per lane before the warp takes over.
constexpr uint32_t EX_PRE = 16;
constexpr uint32_t EX_FULL = 0xffffffffu;

struct ex_state {
    int kind;
    int caseless;
    uint32_t m;
    uint8_t *d_key;     // the key, folded when caseless
    int32_t *d_bc;      // bm-gpu: bad-character table (256)
    int32_t *d_gs;      // bm-gpu: good-suffix table (m)
    size_t dmem;
    uint8_t head[EX_HEAD];
    uint8_t last;       // the key's last byte, folded
    int threads, blocks_per_sm, cascade, seg, unroll, filter;
    int sms;
    int smem_per_sm, smem_optin;
    int smem_dyn;       // bm-gpu: dynamic shared memory a block may take
    int resident;       // gpu-fast: blocks per SM the registers allow
};

struct ex_key {
    uint8_t b[EX_HEAD];
};

// Everything a kernel needs about one job.  Starts s (local) with
// s_lo <= s < s_end are the ones whose match end s + m lies in
// (min_end, len].
struct ex_args {
    const uint8_t *text;
    uint64_t len, s_lo, s_end;
    uint64_t end_off;   // added to reported ends (bm-gpu skips whole tiles)
    const uint8_t *key;
    uint32_t m;
    unsigned long long *d_count, *d_pc, *d_matches, *d_slots;
    uint64_t cap;
};

template <bool CI>
__device__ __forceinline__ uint8_t fold(uint8_t c)
{
    return (CI && (uint8_t)(c - 'A') < 26u) ? (uint8_t)(c | 0x20) : c;
}

// One match into the list, from any (divergent) set of threads: the active
// lanes of a warp take their slots with one atomic.
__device__ __forceinline__ void list_one(const ex_args &a, uint64_t end)
{
    unsigned act = __activemask();
    int lane = threadIdx.x & 31;
    int leader = __ffs(act) - 1;
    unsigned long long base = 0;
    if (lane == leader)
        base = atomicAdd(a.d_slots, (unsigned long long)__popc(act));
    base = __shfl_sync(act, base, leader) + __popc(act & ((1u << lane) - 1));
    if (base < a.cap)
        a.d_matches[base] = HAY_CUDA_MATCH(end + a.end_off, 0);
}

// Adds every thread's count to the job's totals: one atomic per block.
// All threads of the block must call it.
__device__ __forceinline__ void flush_count(const ex_args &a, unsigned long long cnt)
{
    __shared__ unsigned long long block_sum;
    for (int o = 16; o > 0; o >>= 1)
        cnt += __shfl_down_sync(EX_FULL, cnt, o);
    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && cnt)
        atomicAdd(&block_sum, cnt);
    __syncthreads();
    if (threadIdx.x == 0 && block_sum) {
        atomicAdd(a.d_count, block_sum);
        if (a.d_pc)
            atomicAdd(a.d_pc, block_sum);
    }
}

// gpu-fast (exact_fast.cu): the blocks per SM its registers allow, into
// st->resident; and its launch, once the job has starts here.
int fast_occupancy(ex_state *st);
int fast_launch(const ex_state *st, const hay_cuda_job *job, const ex_args &a, cudaStream_t s);

}  // namespace hay_exact

#endif
