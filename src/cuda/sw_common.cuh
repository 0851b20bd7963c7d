// sw_common.cuh - what the CUDA Smith-Waterman files share: the validated
// problem on the device, launch parameters, CUDA-error mapping, the
// best-cell rule and the host clock.  Internal; included only by
// src/cuda/sw_*.cu.
#ifndef HAY_SW_COMMON_CUH
#define HAY_SW_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../include/haystack.h"
#include "../align/sw_device.h"
#include "cuda_engine.h"

// "Minus infinity" for E and F: far below any reachable score, far enough
// above INT32_MIN that subtracting a gap penalty cannot wrap (penalties
// are at most HAY_SW_MAX_PENALTY; see sw_api.cu).
#define HAY_SW_NEG_INF (-(1 << 29))
#define HAY_SW_MAX_PENALTY (1 << 24)

// A CUDA call inside a function returning int status: on failure jump to
// `fail` with `st` set.  No printing, no exit.
#define SW_CUDA(call)                                   \
    do {                                                \
        cudaError_t sw_e_ = (call);                     \
        if (sw_e_ != cudaSuccess) {                     \
            st = hay_cuda_status(sw_e_);             \
            goto fail;                                  \
        }                                               \
    } while (0)


// Launch parameters: 0 means "not given, choose".
typedef struct hay_sw_params {
    int blocks, threads, tile;
    int split;               // 1: measure the compute/sync split (default)
    int impl;                // fast: 1 version 1, 2 version 2 (byte profile only)
    int chunk;               // fast version 2: columns per hand-off, 8 or 16
} hay_sw_params;

// The problem, validated, with its sequences and matrix on the device.
typedef struct hay_sw_dev {
    const uint8_t *d_q, *d_t;   // m and n codes
    const int32_t *d_mat;       // alpha x alpha
    int m, n, alpha;
    int go, ge;
    const int32_t *h_mat;       // host copy of the matrix (the caller's)
    const uint8_t *h_q;
    int sms;                    // multiprocessors of the device
} hay_sw_dev;

// What a family reports back.  Best cell 0-based; score 0: none.
typedef struct hay_sw_out {
    int score;
    int qi, tj;
    double fill_s;          // matrix filling (kernels + launches), seconds
    double compute_s, sync_s;
    double copy_s;          // best-cell slots back to the host
    int blocks, threads;
} hay_sw_out;

// The best-cell rule: higher score, then smaller q_end, then smaller t_end.
static __host__ __device__ inline bool hay_sw_better(int s, int i, int j,
                                                     int bs, int bi, int bj)
{
    return s > bs || (s == bs && (i < bi || (i == bi && j < bj)));
}

#ifdef __CUDACC__
// The warp's best cell by the rule above, in lane 0 (all 32 lanes take part).
static __device__ inline int4 hay_sw_warp_best(int bs, int bi, int bj)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const int os = __shfl_down_sync(0xffffffffu, bs, o);
        const int oi = __shfl_down_sync(0xffffffffu, bi, o);
        const int oj = __shfl_down_sync(0xffffffffu, bj, o);
        if (hay_sw_better(os, oi, oj, bs, bi, bj)) {
            bs = os;
            bi = oi;
            bj = oj;
        }
    }
    return make_int4(bs, bi, bj, 0);
}
#endif

// A best cell as stored by kernels: x score, y q_end, z t_end.
static inline int4 hay_sw_no_best(void) { return make_int4(0, 0x7fffffff, 0x7fffffff, 0); }

// Reduces n kernel slots (host memory) into out.
static inline void hay_sw_reduce(const int4 *slots, size_t n, hay_sw_out *out)
{
    int bs = 0, bi = 0x7fffffff, bj = 0x7fffffff;
    for (size_t k = 0; k < n; k++)
        if (slots[k].x > 0 && hay_sw_better(slots[k].x, slots[k].y, slots[k].z, bs, bi, bj)) {
            bs = slots[k].x;
            bi = slots[k].y;
            bj = slots[k].z;
        }
    out->score = bs;
    out->qi = bs > 0 ? bi : 0;
    out->tj = bs > 0 ? bj : 0;
}

static inline double hay_sw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Acquire/release at device scope for flags and barrier counters.
static __device__ __forceinline__ unsigned long long hay_sw_ld_acquire(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ int hay_sw_ld_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ void hay_sw_st_release(int *p, int v)
{
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Copies n slots back and reduces them; adds the copy time to out->copy_s.
static inline int hay_sw_fetch_best(const int4 *d_slots, size_t n, hay_sw_out *out)
{
    double t0 = hay_sw_now();
    int4 *h = (int4 *)malloc(n * sizeof(int4));
    if (h == NULL)
        return HAY_ERR_NOMEM;
    cudaError_t e = cudaMemcpy(h, d_slots, n * sizeof(int4), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(h);
        return hay_cuda_status(e);
    }
    hay_sw_reduce(h, n, out);
    free(h);
    out->copy_s += hay_sw_now() - t0;
    return HAY_OK;
}

// Fills n slots with "no best yet".
static __global__ void hay_sw_init_slots(int4 *s, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x)
        s[k] = make_int4(0, 0x7fffffff, 0x7fffffff, 0);
}


// Family entry points (sw_paper.cu, sw_fast.cu).  `which` names the
// variant inside the family.  Return 0 or a negative hay_status.
int hay_sw_paper_run(const hay_sw_dev *p, int family, int gpu_sync,
                     const hay_sw_params *pa, hay_sw_out *out);
int hay_sw_fast_run(const hay_sw_dev *p, const hay_sw_params *pa, hay_sw_out *out);

// Paper families.
enum { HAY_SW_SIMPLE = 0, HAY_SW_COALESCED = 1, HAY_SW_TILED = 2 };

#endif
