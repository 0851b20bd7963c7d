// block.cuh - what the search kernels' blocks hand over at their end, one
// atomic a block: the sum of their threads' match counts, and (HAY_ASK_FIRST,
// cuda_engine.h d_first) the least of their match keys.  Every thread of the
// block calls them, once the block is done with s_red (32 entries of shared
// memory).
#ifndef HAY_CUDA_BLOCK_CUH
#define HAY_CUDA_BLOCK_CUH

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
