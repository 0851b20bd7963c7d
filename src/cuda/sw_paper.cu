// sw_paper.cu - the six one-pair Smith-Waterman variants of Xiao, Aji and
// Feng, "On the Robust Mapping of Dynamic Programming onto a GPU" (2009):
//
//   simple     the matrix in diagonal-major order, anti-diagonals packed one
//              after the other (so each starts at an arbitrary alignment);
//              one thread per cell of the current anti-diagonal.
//   coalesced  the same with every anti-diagonal starting on a 128-byte
//              boundary, so the stores of a warp are one transaction.
//   tiled      tile x tile cells per thread block, computed in shared memory
//              along the tile's own anti-diagonals (__syncthreads between
//              them); the grid takes one diagonal of tiles at a time.
//
// each with CPU synchronization (a kernel launch per anti-diagonal or tile
// diagonal) or GPU synchronization (one persistent kernel launched with
// cudaLaunchCooperativeKernel, so every block is resident and the barrier
// cannot deadlock; the barrier is the paper's: a monotonic atomic counter
// and a goal that grows by the grid size each time, with fences).
//
// Unlike the paper, memory is linear in m + n: the diagonal variants keep
// the last three anti-diagonals of H and two of E and F (the "window" of
// the diagonal-major matrix the recurrence can still read), the tiled
// variants keep one boundary row (H, F), one boundary column (H, E) and one
// corner per tile column.  Cross-block reads go through L2 (__ldcg).
//
// The compute/sync split follows the paper's idea of timing the two apart:
// after the fill, the synchronization alone is replayed with the same grid
// (the same number of empty kernel launches for "-cpu", the same number of
// grid barriers in a persistent kernel that computes nothing for "-gpu");
// sync = that time, compute = fill - sync.
#include <string.h>

#include "sw_common.cuh"

#define NEG HAY_SW_NEG_INF

struct SwBest {
    int s, i, j;
};

static __device__ __forceinline__ void best_init(SwBest &b)
{
    b.s = 0;
    b.i = 0x7fffffff;
    b.j = 0x7fffffff;
}

static __device__ __forceinline__ void best_take(SwBest &b, int h, int i, int j)
{
    if (h > 0 && hay_sw_better(h, i, j, b.s, b.i, b.j)) {
        b.s = h;
        b.i = i;
        b.j = j;
    }
}

// Merges a thread's best into its slot (one slot per thread of the grid).
static __device__ __forceinline__ void best_merge(const SwBest &b, int4 *slots)
{
    if (b.s <= 0)
        return;
    size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int4 o = slots[g];
    if (hay_sw_better(b.s, b.i, b.j, o.x, o.y, o.z))
        slots[g] = make_int4(b.s, b.i, b.j, 0);
}

// The paper's GPU barrier (its Figure 7), with an acquire load for the spin.
static __device__ __forceinline__ void grid_barrier(unsigned long long *ctr,
                                                    unsigned long long &goal)
{
    __syncthreads();
    goal += gridDim.x;
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(ctr, 1ULL);
        while (hay_sw_ld_acquire(ctr) < goal) {
        }
        __threadfence();
    }
    __syncthreads();
}

static __global__ void empty_kernel(void) {}

static __global__ void barrier_only_kernel(unsigned long long *ctr, long long count)
{
    unsigned long long goal = 0;
    for (long long k = 0; k < count; k++)
        grid_barrier(ctr, goal);
}

// ---------------------------------------------------------------- diagonals

struct DiagArgs {
    const uint8_t *q, *t;
    const int32_t *mat;
    int alpha, go, ge, m, n;
    int *H[3], *E[2], *F[2];
    int4 *slots;
};

static __host__ __device__ __forceinline__ int diag_lo(int d, int n) { return d > n ? d - n : 0; }
static __host__ __device__ __forceinline__ int diag_len(int d, int m, int n)
{
    return (d < m ? d : m) - diag_lo(d, n) + 1;
}

// Cells of anti-diagonal d (cells (i, j), i + j = d, of the (m+1) x (n+1)
// matrix with its zero row and column), thread g of gs.  Cell (i, j) of
// diagonal e is stored at off(e) + i - lo(e) in that diagonal's buffer.
static __device__ __forceinline__ void diag_cells(const DiagArgs &a, int d, int lo0, int off0,
                                                  int lo1, int off1, int lo2, int off2,
                                                  int g, int gs, SwBest &b)
{
    const int L = diag_len(d, a.m, a.n);
    // Selects, not indexing: an indexed kernel parameter goes to local memory.
    const int r3 = d % 3, odd = d & 1;
    int *H0 = r3 == 0 ? a.H[0] : r3 == 1 ? a.H[1] : a.H[2];
    const int *H1 = r3 == 0 ? a.H[2] : r3 == 1 ? a.H[0] : a.H[1];
    const int *H2 = r3 == 0 ? a.H[1] : r3 == 1 ? a.H[2] : a.H[0];
    int *E0 = odd ? a.E[1] : a.E[0], *F0 = odd ? a.F[1] : a.F[0];
    const int *E1 = odd ? a.E[0] : a.E[1], *F1 = odd ? a.F[0] : a.F[1];
    for (int k = g; k < L; k += gs) {
        const int i = lo0 + k, j = d - i;
        int h, e, f;
        if (i == 0 || j == 0) {
            h = 0;
            e = NEG;
            f = NEG;
        } else {
            const int up = off1 + (i - 1 - lo1), left = off1 + (i - lo1);
            const int dg = off2 + (i - 1 - lo2);
            e = max(__ldcg(H1 + left) - a.go, __ldcg(E1 + left) - a.ge);
            f = max(__ldcg(H1 + up) - a.go, __ldcg(F1 + up) - a.ge);
            const int s = __ldg(a.mat + __ldg(a.q + i - 1) * a.alpha + __ldg(a.t + j - 1));
            h = max(max(__ldcg(H2 + dg) + s, 0), max(e, f));
            best_take(b, h, i - 1, j - 1);
        }
        H0[off0 + k] = h;
        E0[off0 + k] = e;
        F0[off0 + k] = f;
    }
}

static __global__ void diag_cpu_kernel(DiagArgs a, int d, int lo0, int off0, int lo1, int off1,
                                       int lo2, int off2)
{
    SwBest b;
    best_init(b);
    diag_cells(a, d, lo0, off0, lo1, off1, lo2, off2, blockIdx.x * blockDim.x + threadIdx.x,
               gridDim.x * blockDim.x, b);
    best_merge(b, a.slots);
}

template <bool PACKED>
static __global__ void diag_gpu_kernel(DiagArgs a, unsigned long long *ctr)
{
    SwBest b;
    best_init(b);
    unsigned long long goal = 0;
    const int g = blockIdx.x * blockDim.x + threadIdx.x, gs = gridDim.x * blockDim.x;
    int lo1 = 0, off1 = 0, lo2 = 0, off2 = 0;
    unsigned packed = 0;   // start of diagonal d in the packed layout, mod 2^32
    const int last = a.m + a.n;
    for (int d = 0; d <= last; d++) {
        const int lo0 = diag_lo(d, a.n), off0 = PACKED ? (int)(packed & 31u) : 0;
        diag_cells(a, d, lo0, off0, lo1, off1, lo2, off2, g, gs, b);
        packed += (unsigned)diag_len(d, a.m, a.n);
        lo2 = lo1;
        off2 = off1;
        lo1 = lo0;
        off1 = off0;
        if (d < last)
            grid_barrier(ctr, goal);
    }
    best_merge(b, a.slots);
}

// ---------------------------------------------------------------- tiles

struct TileArgs {
    const uint8_t *q, *t;
    const int32_t *mat;
    int alpha, go, ge, m, n, T, TR, TC;
    int *rowH, *rowF, *colH, *colE, *corner;
    int4 *slots;
};

static size_t tile_smem(int T, int alpha)
{
    size_t W = (size_t)T + 1;
    return (3 * W * W + (size_t)alpha * alpha) * sizeof(int) + 2 * (size_t)T;
}

// One tile, by the whole block, in shared memory.
static __device__ void tile_do(const TileArgs &a, int I, int J, int *sm, SwBest &b)
{
    const int T = a.T, W = T + 1, tid = threadIdx.x, bd = blockDim.x;
    int *sH = sm, *sE = sm + W * W, *sF = sm + 2 * W * W;
    const int *smat = sm + 3 * W * W;
    uint8_t *sq = (uint8_t *)(sm + 3 * W * W + a.alpha * a.alpha), *st = sq + T;
    const int i0 = I * T, j0 = J * T;
    const int h = min(T, a.m - i0), w = min(T, a.n - j0);
    for (int x = tid; x < w; x += bd) {
        sH[x + 1] = __ldcg(a.rowH + j0 + x);
        sF[x + 1] = __ldcg(a.rowF + j0 + x);
        st[x] = a.t[j0 + x];
    }
    for (int x = tid; x < h; x += bd) {
        sH[(x + 1) * W] = __ldcg(a.colH + i0 + x);
        sE[(x + 1) * W] = __ldcg(a.colE + i0 + x);
        sq[x] = a.q[i0 + x];
    }
    if (tid == 0)
        sH[0] = (I == 0 || J == 0) ? 0 : __ldcg(a.corner + J);
    __syncthreads();
    for (int dd = 0; dd < h + w - 1; dd++) {
        const int rlo = max(0, dd - w + 1), rhi = min(h - 1, dd);
        for (int r = rlo + tid; r <= rhi; r += bd) {
            const int c = dd - r, idx = (r + 1) * W + c + 1;
            const int e = max(sH[idx - 1] - a.go, sE[idx - 1] - a.ge);
            const int f = max(sH[idx - W] - a.go, sF[idx - W] - a.ge);
            const int hv = max(max(sH[idx - W - 1] + smat[sq[r] * a.alpha + st[c]], 0), max(e, f));
            sH[idx] = hv;
            sE[idx] = e;
            sF[idx] = f;
            best_take(b, hv, i0 + r, j0 + c);
        }
        __syncthreads();
    }
    if (I + 1 < a.TR) {   // then this tile is T rows high
        for (int x = tid; x < w; x += bd) {
            a.rowH[j0 + x] = sH[h * W + x + 1];
            a.rowF[j0 + x] = sF[h * W + x + 1];
        }
        if (tid == 0)
            a.corner[J] = sH[h * W];
    }
    if (J + 1 < a.TC) {
        for (int x = tid; x < h; x += bd) {
            a.colH[i0 + x] = sH[(x + 1) * W + w];
            a.colE[i0 + x] = sE[(x + 1) * W + w];
        }
    }
    __syncthreads();
}

static __device__ void tile_load_matrix(const TileArgs &a, int *sm)
{
    int *smat = sm + 3 * (a.T + 1) * (a.T + 1);
    for (int x = threadIdx.x; x < a.alpha * a.alpha; x += blockDim.x)
        smat[x] = a.mat[x];
    __syncthreads();
}

static __device__ __forceinline__ void tile_diagonal(const TileArgs &a, int D, int *sm, SwBest &b)
{
    const int ilo = max(0, D - a.TC + 1), ihi = min(a.TR - 1, D);
    for (int I = ilo + blockIdx.x; I <= ihi; I += gridDim.x)
        tile_do(a, I, D - I, sm, b);
}

static __global__ void tile_cpu_kernel(TileArgs a, int D)
{
    extern __shared__ int sm[];
    SwBest b;
    best_init(b);
    tile_load_matrix(a, sm);
    tile_diagonal(a, D, sm, b);
    best_merge(b, a.slots);
}

static __global__ void tile_gpu_kernel(TileArgs a, unsigned long long *ctr)
{
    extern __shared__ int sm[];
    SwBest b;
    best_init(b);
    unsigned long long goal = 0;
    tile_load_matrix(a, sm);
    const int last = a.TR + a.TC - 2;
    for (int D = 0; D <= last; D++) {
        tile_diagonal(a, D, sm, b);
        if (D < last)
            grid_barrier(ctr, goal);
    }
    best_merge(b, a.slots);
}

static __global__ void fill_kernel(int *p, size_t n, int v)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x)
        p[k] = v;
}

// ---------------------------------------------------------------- host

static int occupancy(const void *kern, int threads, size_t smem, int sms, int *max_blocks)
{
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, threads, smem);
    if (e != cudaSuccess)
        return hay_cuda_status(e);
    *max_blocks = per_sm * sms;
    return *max_blocks > 0 ? HAY_OK : HAY_ERR_INVALID;
}

int hay_sw_paper_run(const hay_sw_dev *p, int family, int gpu_sync, const hay_sw_params *pa,
                     hay_sw_out *out)
{
    int st = HAY_OK;
    int *d_buf = NULL;
    int4 *d_slots = NULL;
    unsigned long long *d_ctr = NULL;
    cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
    const int m = p->m, n = p->n;
    const int minmn = m < n ? m : n;
    int threads, blocks, maxb = 0, T = 0;
    size_t smem = 0, nslots, bufn = 0;
    long long launches;   // kernel launches (cpu) or barriers (gpu) in the fill
    const void *kern;
    float ms_fill = 0, ms_sync = 0;
    DiagArgs da;
    TileArgs ta;

    memset(&da, 0, sizeof da);
    memset(&ta, 0, sizeof ta);
    if (family == HAY_SW_TILED) {
        T = pa->tile ? pa->tile : 32;
        if (T < 2 || T > 64)
            return HAY_ERR_INVALID;
        threads = pa->threads ? pa->threads : T;
        smem = tile_smem(T, p->alpha);
        kern = gpu_sync ? (const void *)tile_gpu_kernel : (const void *)tile_cpu_kernel;
        if (smem > 48 * 1024)
            SW_CUDA(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem));
    } else {
        if (pa->tile)
            return HAY_ERR_INVALID;   // the diagonal variants have no tiles
        threads = pa->threads ? pa->threads : 256;
        kern = !gpu_sync ? (const void *)diag_cpu_kernel
               : family == HAY_SW_SIMPLE ? (const void *)diag_gpu_kernel<true>
                                         : (const void *)diag_gpu_kernel<false>;
    }
    if (threads > 1024 || ((threads & 31) != 0 && threads > 32))
        return HAY_ERR_INVALID;
    st = occupancy(kern, threads, smem, p->sms, &maxb);
    if (st != HAY_OK)
        goto fail;
    {
        // Work per step: cells of the longest anti-diagonal, or tiles of
        // the longest tile diagonal.
        long long need;
        if (family == HAY_SW_TILED) {
            int TR = (m + T - 1) / T, TC = (n + T - 1) / T;
            need = TR < TC ? TR : TC;
        } else {
            need = ((long long)minmn + 1 + threads - 1) / threads;
        }
        if (pa->blocks) {
            blocks = pa->blocks;
            if (gpu_sync && blocks > maxb)
                return HAY_ERR_INVALID;   // could not all be resident
        } else {
            long long cap = gpu_sync && family != HAY_SW_TILED ? p->sms : maxb;
            blocks = (int)(need < cap ? need : cap);
        }
    }
    nslots = (size_t)blocks * (size_t)threads;
    SW_CUDA(cudaMalloc((void **)&d_slots, nslots * sizeof(int4)));
    SW_CUDA(cudaMalloc((void **)&d_ctr, 2 * sizeof(unsigned long long)));
    SW_CUDA(cudaMemset(d_ctr, 0, 2 * sizeof(unsigned long long)));
    hay_sw_init_slots<<<256, 256>>>(d_slots, nslots);
    SW_CUDA(cudaGetLastError());

    if (family == HAY_SW_TILED) {
        ta.q = p->d_q;
        ta.t = p->d_t;
        ta.mat = p->d_mat;
        ta.alpha = p->alpha;
        ta.go = p->go;
        ta.ge = p->ge;
        ta.m = m;
        ta.n = n;
        ta.T = T;
        ta.TR = (m + T - 1) / T;
        ta.TC = (n + T - 1) / T;
        bufn = 2 * (size_t)n + 2 * (size_t)m + (size_t)ta.TC;
        SW_CUDA(cudaMalloc((void **)&d_buf, bufn * sizeof(int)));
        ta.rowH = d_buf;
        ta.rowF = d_buf + n;
        ta.colH = d_buf + 2 * (size_t)n;
        ta.colE = d_buf + 2 * (size_t)n + m;
        ta.corner = d_buf + 2 * (size_t)n + 2 * (size_t)m;
        SW_CUDA(cudaMemset(ta.rowH, 0, sizeof(int) * (size_t)n));
        SW_CUDA(cudaMemset(ta.colH, 0, sizeof(int) * (size_t)m));
        SW_CUDA(cudaMemset(ta.corner, 0, sizeof(int) * (size_t)ta.TC));
        fill_kernel<<<256, 256>>>(ta.rowF, (size_t)n, NEG);
        fill_kernel<<<256, 256>>>(ta.colE, (size_t)m, NEG);
        SW_CUDA(cudaGetLastError());
        ta.slots = d_slots;
        launches = (long long)ta.TR + ta.TC - 1;
    } else {
        // Three H, two E, two F diagonals, each up to min(m, n) + 1 cells
        // plus the 32-cell misalignment of the packed layout.
        size_t L = (size_t)minmn + 1 + 32 + 32;
        bufn = 7 * L;
        SW_CUDA(cudaMalloc((void **)&d_buf, bufn * sizeof(int)));
        SW_CUDA(cudaMemset(d_buf, 0, bufn * sizeof(int)));
        da.q = p->d_q;
        da.t = p->d_t;
        da.mat = p->d_mat;
        da.alpha = p->alpha;
        da.go = p->go;
        da.ge = p->ge;
        da.m = m;
        da.n = n;
        for (int k = 0; k < 3; k++)
            da.H[k] = d_buf + k * L;
        for (int k = 0; k < 2; k++) {
            da.E[k] = d_buf + (3 + k) * L;
            da.F[k] = d_buf + (5 + k) * L;
        }
        da.slots = d_slots;
        launches = (long long)m + n + 1;
    }
    for (int k = 0; k < 4; k++)
        SW_CUDA(cudaEventCreate(&ev[k]));
    SW_CUDA(cudaDeviceSynchronize());

    // The fill.
    SW_CUDA(cudaEventRecord(ev[0], 0));
    if (!gpu_sync && family == HAY_SW_TILED) {
        for (int D = 0; D < (int)launches; D++) {
            tile_cpu_kernel<<<blocks, threads, smem>>>(ta, D);
            SW_CUDA(cudaGetLastError());
        }
    } else if (!gpu_sync) {
        const bool packed = family == HAY_SW_SIMPLE;
        unsigned pk = 0;
        int lo1 = 0, off1 = 0, lo2 = 0, off2 = 0;
        for (int d = 0; d < (int)launches; d++) {
            const int lo0 = diag_lo(d, n), off0 = packed ? (int)(pk & 31u) : 0;
            diag_cpu_kernel<<<blocks, threads>>>(da, d, lo0, off0, lo1, off1, lo2, off2);
            SW_CUDA(cudaGetLastError());
            pk += (unsigned)diag_len(d, m, n);
            lo2 = lo1;
            off2 = off1;
            lo1 = lo0;
            off1 = off0;
        }
    } else {
        void *args[2];
        args[1] = (void *)&d_ctr;
        if (family == HAY_SW_TILED)
            args[0] = (void *)&ta;
        else
            args[0] = (void *)&da;
        SW_CUDA(cudaLaunchCooperativeKernel(kern, dim3(blocks), dim3(threads), args, smem, 0));
    }
    SW_CUDA(cudaEventRecord(ev[1], 0));
    SW_CUDA(cudaEventSynchronize(ev[1]));
    SW_CUDA(cudaGetLastError());
    SW_CUDA(cudaEventElapsedTime(&ms_fill, ev[0], ev[1]));

    // The synchronization alone, replayed with the same grid.
    if (pa->split) {
        long long count = gpu_sync ? launches - 1 : launches;
        SW_CUDA(cudaEventRecord(ev[2], 0));
        if (gpu_sync) {
            unsigned long long *ctr2 = d_ctr + 1;
            void *args[2] = {(void *)&ctr2, (void *)&count};
            SW_CUDA(cudaLaunchCooperativeKernel((const void *)barrier_only_kernel, dim3(blocks),
                                                dim3(threads), args, 0, 0));
        } else {
            for (long long k = 0; k < count; k++) {
                empty_kernel<<<blocks, threads>>>();
                SW_CUDA(cudaGetLastError());
            }
        }
        SW_CUDA(cudaEventRecord(ev[3], 0));
        SW_CUDA(cudaEventSynchronize(ev[3]));
        SW_CUDA(cudaGetLastError());
        SW_CUDA(cudaEventElapsedTime(&ms_sync, ev[2], ev[3]));
        if (ms_sync > ms_fill)
            ms_sync = ms_fill;
    }
    st = hay_sw_fetch_best(d_slots, nslots, out);
    if (st != HAY_OK)
        goto fail;
    out->fill_s = 1e-3 * ms_fill;
    out->sync_s = 1e-3 * ms_sync;
    out->compute_s = out->fill_s - out->sync_s;
    out->blocks = blocks;
    out->threads = threads;
fail:
    cudaFree(d_buf);
    cudaFree(d_slots);
    cudaFree(d_ctr);
    for (int k = 0; k < 4; k++)
        if (ev[k])
            cudaEventDestroy(ev[k]);
    return st;
}
