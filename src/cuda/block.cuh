// block.cuh - a job's outputs as the search kernels take them, and what
// their blocks hand over at their end, one atomic a block: the sum of their
// threads' match counts, and (HAY_ASK_FIRST, cuda_engine.h d_first) the
// least of their match keys.  Every thread of the block calls
// hay_block_sum and hay_block_least, once the block is done with s_red (32
// entries of shared memory).
#ifndef HAY_CUDA_BLOCK_CUH
#define HAY_CUDA_BLOCK_CUH

#include <stdint.h>

#include "cuda_engine.h"

// The outputs of a job (cuda_engine.h hay_cuda_job, under the same names
// less the d_ prefix), a member of the multi-pattern kernels' arguments.
struct hay_job_out {
    unsigned long long *count, *pcounts, *matches, *slots;
    uint64_t cap;
    unsigned *marks;
    unsigned long long *first;
};

static inline hay_job_out hay_job_outputs(const hay_cuda_job *job)
{
    hay_job_out o;
    o.count = job->d_count;
    o.pcounts = job->d_pattern_counts;
    o.matches = job->d_matches;
    o.slots = job->d_slots;
    o.cap = job->cap;
    o.marks = job->d_marks;
    o.first = job->d_first;
    return o;
}

__device__ __forceinline__ void hay_block_sum(unsigned long long cnt,
                                              unsigned long long *s_red,
                                              unsigned long long *dst)
{
    for (int o = 16; o > 0; o >>= 1)
        cnt += __shfl_down_sync(0xffffffffu, cnt, o);
    if ((threadIdx.x & 31) == 0)
        s_red[threadIdx.x >> 5] = cnt;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
            t += s_red[w];
        if (t)
            atomicAdd(dst, t);
    }
}

// least: the thread's least key, ~0 for none.
__device__ __forceinline__ void hay_block_least(unsigned long long least,
                                                unsigned long long *s_red,
                                                unsigned long long *dst)
{
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long k = __shfl_down_sync(0xffffffffu, least, o);
        least = k < least ? k : least;
    }
    if ((threadIdx.x & 31) == 0)
        s_red[threadIdx.x >> 5] = least;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = ~0ull;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
            t = s_red[w] < t ? s_red[w] : t;
        if (t != ~0ull)
            atomicMin(dst, t);
    }
}

#endif
