// sw_db_kernels.cu - the database-search score kernels (src/cuda/sw_db.cuh
// says how they split the work; docs/DESIGN.md "Database search on the GPU").
//
// Recurrences (Gotoh, sw_device.h's gap rule), per cell of row i, column j:
//   H = max(Hdiag + s(q_i, t_j), E, F, 0)
//   E' = max(E - ge, H - go)   (the next column's E of row i)
//   F' = max(F - ge, H - go)   (the F of row i + 1, column j)
// E and F start at -go, the value the boundary H = 0 gives them.
//
// 16-bit lanes cannot overflow below (scores >= -128, gaps <= 16000); they
// can only wrap above 32767, and a wrap needs an Hdiag above 32767 -
// max(s): every lane that reaches thr = 32767 - max(s) is reported as -1
// and rescored in 32 bits by the host driver.  Padding (query rows past m,
// target columns past n) scores below every real neighbour, so it never
// raises a maximum.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sw_db.cuh"

static __device__ __forceinline__ uint32_t swdb_prmt(uint32_t a, uint32_t b, uint32_t sel)
{
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}

// Byte k of a (low half) and of b (high half), each sign-extended to 16 bits.
template <int K>
static __device__ __forceinline__ uint32_t swdb_pair(uint32_t a, uint32_t b)
{
    constexpr uint32_t sel = (uint32_t)K | ((uint32_t)(K | 8) << 4) |
                             ((uint32_t)(K + 4) << 8) | ((uint32_t)((K + 4) | 8) << 12);
    return swdb_prmt(a, b, sel);
}

template <bool P16>
struct swdb_lane;

template <>
struct swdb_lane<true> {
    typedef int8_t prof_t;
    static __device__ __forceinline__ uint32_t splat(int v)
    {
        uint32_t h = (uint32_t)v & 0xffffu;
        return h | (h << 16);
    }
};

template <>
struct swdb_lane<false> {
    typedef int32_t prof_t;
    static __device__ __forceinline__ uint32_t splat(int v) { return (uint32_t)v; }
};

template <bool P16, int G>
__global__ void __launch_bounds__(SWDB_THREADS)
swdb_kernel(const swdb_kargs a)
{
    constexpr int R = SWDB_ROWS;
    constexpr int T = G * R;                 // rows per pass
    constexpr int UPW = 32 / G;              // units per warp
    constexpr int UPB = SWDB_WARPS * UPW;    // units per block
    typedef typename swdb_lane<P16>::prof_t prof_t;
    constexpr int ROWB = T * (int)sizeof(prof_t);   // profile bytes per residue, one pass

    __shared__ __align__(16) prof_t sp[SWDB_MAX_ROWS_PROF * T];
    __shared__ int s_task;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int t = lane % G, gi = lane / G;
    const int uib = warp * UPW + gi;         // unit in block
    const int ntasks = a.nq * a.nblk;
    const uint32_t go2 = swdb_lane<P16>::splat(a.go);
    const uint32_t nge2 = swdb_lane<P16>::splat(-a.ge);
    const uint32_t ngo2 = swdb_lane<P16>::splat(-a.go);
    const uint32_t padw = 0x01010101u * (uint32_t)a.alpha;
    uint2 *temp = a.temp + (size_t)blockIdx.x * (size_t)a.tmax * UPB;

    for (;;) {
        __syncthreads();                     // the last task's readers are done
        if (threadIdx.x == 0)
            s_task = atomicAdd(a.counter, 1);
        __syncthreads();
        const int task = s_task;
        if (task >= ntasks)
            return;
        const int blk = a.blk0 + task / a.nq;
        const int row = a.qrow[task % a.nq];
        const int u = blk * UPB + uib;
        int ta = -1, tb = -1;
        if (u < a.nunits) {
            if (P16) {
                ta = 2 * u;
                tb = 2 * u + 1 < a.ntargets ? 2 * u + 1 : -1;
            } else {
                ta = a.ulist ? a.ulist[u] : u;
            }
        }
        const int la = ta >= 0 ? a.len[ta] : 0;
        const int lb = tb >= 0 ? a.len[tb] : 0;
        int nw = max(la, lb);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            nw = max(nw, __shfl_xor_sync(0xffffffffu, nw, o));
        const uint8_t *pa = a.codes + (ta >= 0 ? a.off[ta] : 0);
        const uint8_t *pb = a.codes + (tb >= 0 ? a.off[tb] : 0);
        const int mpad = a.qmpad[row];
        const int npass = mpad / T;
        const prof_t *prof = (const prof_t *)a.prof + a.qprof[row];
        uint32_t maxv = 0;

        for (int p = 0; p < npass; p++) {
            __syncthreads();
            {
                const int per_row = ROWB / 16;
                const int total = (a.alpha + 1) * per_row;
                for (int i = threadIdx.x; i < total; i += SWDB_THREADS) {
                    const int c = i / per_row, w = i % per_row;
                    const uint4 *src = (const uint4 *)(prof + (size_t)c * mpad + (size_t)p * T);
                    ((uint4 *)(sp + c * T))[w] = src[w];
                }
            }
            __syncthreads();
            if (nw == 0)
                continue;

            uint32_t H[R], E[R];
#pragma unroll
            for (int k = 0; k < R; k++) {
                H[k] = 0;
                E[k] = ngo2;
            }
            uint32_t hbot = 0, fbot = ngo2, rcur = 0, hdiag = 0;
            uint32_t wa = 0, wb = 0;
            const bool last = p == npass - 1;
            const int steps = nw + G - 1;
            for (int s = 0; s < steps; s++) {
                const int j = s - t;
                uint32_t hin = __shfl_up_sync(0xffffffffu, hbot, 1, G);
                uint32_t fin = __shfl_up_sync(0xffffffffu, fbot, 1, G);
                uint32_t rin = __shfl_up_sync(0xffffffffu, rcur, 1, G);
                if (t == 0 && j < nw) {
                    if ((s & 3) == 0) {
                        wa = s < la ? *(const uint32_t *)(pa + s) : padw;
                        if (P16)
                            wb = s < lb ? *(const uint32_t *)(pb + s) : padw;
                    }
                    const int sh = (s & 3) * 8;
                    rin = ((wa >> sh) & 0xffu) | (P16 ? ((wb >> sh) & 0xffu) << 16 : 0u);
                    if (p == 0) {
                        hin = 0;
                        fin = ngo2;
                    } else {
                        const uint2 v = temp[(size_t)j * UPB + uib];
                        hin = v.x;
                        fin = v.y;
                    }
                }
                if (j >= 0 && j < nw) {
                    uint32_t diag = hdiag, F = fin;
                    if (P16) {
                        const uint4 A = *(const uint4 *)(sp + (rin & 0xffffu) * T + t * R);
                        const uint4 B = *(const uint4 *)(sp + (rin >> 16) * T + t * R);
                        const uint32_t aw[4] = {A.x, A.y, A.z, A.w};
                        const uint32_t bw[4] = {B.x, B.y, B.z, B.w};
#pragma unroll
                        for (int k = 0; k < R; k += 4) {
                            uint32_t sc[4];
                            sc[0] = swdb_pair<0>(aw[k / 4], bw[k / 4]);
                            sc[1] = swdb_pair<1>(aw[k / 4], bw[k / 4]);
                            sc[2] = swdb_pair<2>(aw[k / 4], bw[k / 4]);
                            sc[3] = swdb_pair<3>(aw[k / 4], bw[k / 4]);
#pragma unroll
                            for (int x = 0; x < 4; x += 2) {
                                uint32_t h0 = __vimax3_s16x2_relu(__vadd2(diag, sc[x]), E[k + x], F);
                                diag = H[k + x];
                                H[k + x] = h0;
                                uint32_t hgo = __vsub2(h0, go2);
                                E[k + x] = __viaddmax_s16x2(E[k + x], nge2, hgo);
                                F = __viaddmax_s16x2(F, nge2, hgo);
                                uint32_t h1 = __vimax3_s16x2_relu(__vadd2(diag, sc[x + 1]), E[k + x + 1], F);
                                diag = H[k + x + 1];
                                H[k + x + 1] = h1;
                                hgo = __vsub2(h1, go2);
                                E[k + x + 1] = __viaddmax_s16x2(E[k + x + 1], nge2, hgo);
                                F = __viaddmax_s16x2(F, nge2, hgo);
                                maxv = __vimax3_s16x2_relu(maxv, h0, h1);
                            }
                        }
                    } else {
                        const int4 *src = (const int4 *)(sp + rin * T + t * R);
#pragma unroll
                        for (int k = 0; k < R; k += 4) {
                            const int4 v = src[k / 4];
                            const int sc[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                            for (int x = 0; x < 4; x++) {
                                int h = __vimax3_s32_relu((int)diag + sc[x], (int)E[k + x], (int)F);
                                diag = H[k + x];
                                H[k + x] = (uint32_t)h;
                                const int hgo = h - a.go;
                                E[k + x] = (uint32_t)__viaddmax_s32((int)E[k + x], -a.ge, hgo);
                                F = (uint32_t)__viaddmax_s32((int)F, -a.ge, hgo);
                                maxv = (uint32_t)max((int)maxv, h);
                            }
                        }
                    }
                    hbot = H[R - 1];
                    fbot = F;
                    if (t == G - 1 && !last)
                        temp[(size_t)j * UPB + uib] = make_uint2(hbot, fbot);
                }
                hdiag = hin;
                rcur = rin;
            }
        }

        // The group's maximum, written by its first thread.
#pragma unroll
        for (int o = G / 2; o > 0; o >>= 1) {
            const uint32_t v = __shfl_xor_sync(0xffffffffu, maxv, o, G);
            maxv = P16 ? __vimax_s16x2_relu(maxv, v) : (uint32_t)max((int)maxv, (int)v);
        }
        if (t == 0) {
            int32_t *out = a.scores + (size_t)row * (size_t)a.ntargets;
            if (P16) {
                const int lo = (int)(int16_t)(maxv & 0xffffu), hi = (int)(int16_t)(maxv >> 16);
                if (ta >= 0)
                    out[ta] = lo >= a.thr ? -1 : lo;
                if (tb >= 0)
                    out[tb] = hi >= a.thr ? -1 : hi;
            } else if (ta >= 0) {
                out[ta] = (int32_t)maxv;
            }
        }
    }
}

#define SWDB_KERNEL(bits, g) swdb_kernel<(bits) == 16, g>

int swdb_launch(int bits, int g, int grid, const swdb_kargs *a, cudaStream_t s)
{
    void (*k)(const swdb_kargs) = NULL;
    switch (g) {
    case 1: k = bits == 16 ? SWDB_KERNEL(16, 1) : SWDB_KERNEL(32, 1); break;
    case 2: k = bits == 16 ? SWDB_KERNEL(16, 2) : SWDB_KERNEL(32, 2); break;
    case 4: k = bits == 16 ? SWDB_KERNEL(16, 4) : SWDB_KERNEL(32, 4); break;
    case 8: k = bits == 16 ? SWDB_KERNEL(16, 8) : SWDB_KERNEL(32, 8); break;
    default: return (int)cudaErrorInvalidValue;
    }
    k<<<grid, SWDB_THREADS, 0, s>>>(*a);
    return (int)cudaGetLastError();
}

int swdb_occupancy(int bits, int g, int *blocks_per_sm)
{
    void (*k)(const swdb_kargs) = NULL;
    switch (g) {
    case 1: k = bits == 16 ? SWDB_KERNEL(16, 1) : SWDB_KERNEL(32, 1); break;
    case 2: k = bits == 16 ? SWDB_KERNEL(16, 2) : SWDB_KERNEL(32, 2); break;
    case 4: k = bits == 16 ? SWDB_KERNEL(16, 4) : SWDB_KERNEL(32, 4); break;
    case 8: k = bits == 16 ? SWDB_KERNEL(16, 8) : SWDB_KERNEL(32, 8); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, SWDB_THREADS, 0);
}
