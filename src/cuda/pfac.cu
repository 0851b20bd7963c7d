// pfac.cu - the CUDA PFAC engine (failureless Aho-Corasick, Lin et al.;
// ../shared/papers/pfac-opencl-mobile-energy.txt section 3.1 and 5).
//
// Every start position of the piece gets a walk through the trie: the walk
// starts at the root row, reports each final state it passes (a pattern
// ends there) and stops at the first byte without an edge.  A thread takes
// `bpt` start positions (the paper's granularity knob), strided by the
// block size so that a warp reads neighbouring bytes.  Knobs (params, see
// cuda_engine.h): the transition table through the read-only cache (ldg),
// a texture object (tex) or the compact CSR form (compact); the root row
// in shared memory or global; the input tile (plus a margin of up to
// STAGE_MARGIN look-ahead bytes) staged through shared memory.
//
// Results (cuda_engine.h): a block-wide count with one atomic per block;
// per-pattern counts with one atomic per match; the match list through a
// shared-memory buffer that is flushed with one global atomic per flush.
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../core/internal.h"
#include "cuda_engine.h"
#include "cuda_params.h"
}
#include "block.cuh"

namespace {

enum { TABLE_LDG = 0, TABLE_TEX = 1, TABLE_COMPACT = 2 };
// What a kernel makes (a template argument, so that the count's loop is
// the one it was): the count, per-pattern counts and list (OUT_COUNT, as
// the job asks), the bitmap of match ends, or the least match key.
enum { OUT_COUNT = 0, OUT_MARK = 1, OUT_FIRST = 2 };

// Entries of the per-block shared match buffer.
constexpr unsigned SCAP = 512;
// Look-ahead bytes staged beyond the tile.
constexpr unsigned STAGE_MARGIN = 256;
// Largest dynamic shared memory a launch asks for.
constexpr size_t STAGE_MAX = 40 * 1024;

struct pfac_dev {
    int table, root_shared, stage, block, bpt, flat;
    uint32_t nstates, nfinal, ncls, max_len;
    uint32_t *d_next;
    cudaTextureObject_t tex;
    uint32_t *d_edge_first, *d_edge_to, *d_out_first, *d_out_id, *d_root;
    uint8_t *d_edge_cls, *d_cls;
    size_t mem;
};

struct kargs {
    const uint8_t *text;
    uint64_t len, min_end, start0, tile_base;
    const uint32_t *next;
    cudaTextureObject_t tex;
    const uint32_t *edge_first;
    const uint8_t *edge_cls;
    const uint32_t *edge_to, *out_first, *out_id, *root;
    const uint8_t *cls;
    uint32_t nfinal, ncls, bpt, margin, flat;
    hay_job_out out;
};


template <int TABLE>
__device__ __forceinline__ uint32_t step(const kargs &a, uint32_t s, uint32_t k)
{
    if (TABLE == TABLE_LDG)
        return __ldg(a.next + (size_t)s * a.ncls + k);
    if (TABLE == TABLE_TEX)
        return tex1Dfetch<unsigned int>(a.tex, (int)(s * a.ncls + k));
    uint32_t lo = __ldg(a.edge_first + s), hi = __ldg(a.edge_first + s + 1);
    uint32_t end = hi;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (__ldg(a.edge_cls + mid) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < end && __ldg(a.edge_cls + lo) == k) ? __ldg(a.edge_to + lo) : 0u;
}

__device__ __forceinline__ void append(const kargs &a, unsigned long long *s_buf,
                                       unsigned *s_n, unsigned long long m)
{
    unsigned k = atomicAdd(s_n, 1u);
    if (k < SCAP) {
        s_buf[k] = m;
    } else {
        unsigned long long g = atomicAdd(a.out.slots, 1ull);
        if (g < a.out.cap)
            a.out.matches[g] = m;
    }
}

// Moves the shared buffer (cur entries appended, those past SCAP went to
// the global list directly) to the global list: one atomic for the block.
// Every thread calls it with the same cur.
__device__ __forceinline__ void flush(const kargs &a, unsigned long long *s_buf,
                                      unsigned *s_n, unsigned long long *s_base,
                                      unsigned cur)
{
    unsigned n = cur < SCAP ? cur : SCAP;
    if (threadIdx.x == 0)
        *s_base = n ? atomicAdd(a.out.slots, (unsigned long long)n) : 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        unsigned long long k = *s_base + i;
        if (k < a.out.cap)
            a.out.matches[k] = s_buf[i];
    }
    __syncthreads();
    if (threadIdx.x == 0)
        *s_n = 0;
    __syncthreads();
}

// Byte p of the text: from the block's shared copy [sp, sp + sbytes) when
// STAGE and p lies in it, else from global memory.
template <bool STAGE>
static __device__ __forceinline__ uint8_t text_at(const uint8_t *tx, uint64_t p,
                                                  const uint8_t *sp, const uint8_t *s_text,
                                                  size_t sbytes)
{
    if (STAGE) {
        size_t off = (size_t)(tx + p - sp);
        return off < sbytes ? s_text[off] : __ldg(tx + p);
    }
    return __ldg(tx + p);
}

template <int TABLE, bool ROOT_SHARED, bool STAGE, int OUT>
__global__ void __launch_bounds__(1024) pfac_kernel(kargs a)
{
    extern __shared__ __align__(16) uint8_t s_text[];
    __shared__ uint32_t s_root[256];
    __shared__ uint8_t s_cls[256];
    __shared__ unsigned long long s_buf[SCAP];
    __shared__ unsigned s_n;
    __shared__ unsigned long long s_base;
    __shared__ unsigned long long s_red[32];

    const unsigned tid = threadIdx.x, nt = blockDim.x;
    const uint64_t tile = (uint64_t)nt * a.bpt;
    const uint64_t t0 = a.start0 + (a.tile_base + blockIdx.x) * tile;
    for (unsigned i = tid; i < 256; i += nt) {
        s_cls[i] = a.cls[i];
        if (ROOT_SHARED)
            s_root[i] = a.root[i];
    }
    if (tid == 0)
        s_n = 0;

    // Stage [t0, t0 + tile + margin) in whole aligned 16-byte words; the
    // driver's padding makes the words around the piece readable.
    const uint8_t *sp = a.text + t0;
    size_t sbytes = 0;
    if (STAGE) {
        uint64_t want = t0 + tile + a.margin;
        if (want > a.len)
            want = a.len;
        uintptr_t lo = (uintptr_t)(a.text + t0) & ~(uintptr_t)15;
        uintptr_t hi = ((uintptr_t)(a.text + want) + 15) & ~(uintptr_t)15;
        sp = (const uint8_t *)lo;
        sbytes = hi - lo;
        const uint4 *src = (const uint4 *)lo;
        uint4 *dst = (uint4 *)s_text;
        for (size_t i = tid; i < sbytes / 16; i += nt)
            dst[i] = __ldg(src + i);
    }
    __syncthreads();

    const uint8_t *tx = a.text;
    unsigned long long cnt = 0;
    const bool listing = a.out.matches != nullptr, per_pat = a.out.pcounts != nullptr;
    // Counts with loop=flat: one loop over this thread's start positions
    // and walk steps together, so a lane whose walk ends starts its next
    // position at once instead of waiting for the warp's longest walk of
    // the round.  Measured slower than the rounds on the H200 (the lanes
    // drift apart and their reads stop coalescing), so rounds are the
    // default.  Lists always use the rounds, which flush the shared buffer
    // between them.
    const unsigned rounds = (OUT != OUT_COUNT || listing || !a.flat) ? a.bpt : 0;
    unsigned long long least = ~0ull;   // OUT_FIRST
    if (OUT == OUT_COUNT && !listing && a.flat) {
        unsigned r = 0;
        uint32_t s = 0;
        uint64_t q = 0;
        for (;;) {
            uint8_t c;
            if (s == 0) {
                if (r == a.bpt)
                    break;
                uint64_t p = t0 + (uint64_t)r * nt + tid;
                r++;
                if (p >= a.len) {
                    r = a.bpt;
                    continue;
                }
                c = text_at<STAGE>(tx, p, sp, s_text, sbytes);
                s = ROOT_SHARED ? s_root[c] : __ldg(a.root + c);
                q = p + 1;
                if (s == 0)
                    continue;
            }
            if (s <= a.nfinal && q > a.min_end) {
                uint32_t o0 = __ldg(a.out_first + s), o1 = __ldg(a.out_first + s + 1);
                cnt += o1 - o0;
                if (per_pat)
                    for (uint32_t o = o0; o < o1; o++)
                        atomicAdd(a.out.pcounts + __ldg(a.out_id + o), 1ull);
            }
            if (q >= a.len) {
                s = 0;
                continue;
            }
            c = text_at<STAGE>(tx, q, sp, s_text, sbytes);
            s = step<TABLE>(a, s, s_cls[c]);
            q++;
        }
    }
    for (unsigned r = 0; r < rounds; r++) {
        uint64_t p = t0 + (uint64_t)r * nt + tid;
        if (p < a.len) {
            uint8_t c;
            c = text_at<STAGE>(tx, p, sp, s_text, sbytes);
            uint32_t s = ROOT_SHARED ? s_root[c] : __ldg(a.root + c);
            uint64_t q = p + 1;
            // A walk whose first byte leaves the root ends here.
            while (s) {
                if (OUT == OUT_MARK && s <= a.nfinal && q > a.min_end) {
                    uint64_t b = q - 1 - a.min_end;
                    atomicOr(a.out.marks + (b >> 5), 1u << (b & 31));
                    cnt += __ldg(a.out_first + s + 1) - __ldg(a.out_first + s);
                } else if (OUT == OUT_FIRST && s <= a.nfinal && q > a.min_end) {
                    // The walk's first final state is its least end; its
                    // ids are in increasing order.
                    unsigned long long k = HAY_CUDA_MATCH(q, __ldg(a.out_id +
                                                               __ldg(a.out_first + s)));
                    least = k < least ? k : least;
                    break;
                } else if (OUT == OUT_COUNT && s <= a.nfinal && q > a.min_end) {
                    uint32_t o0 = __ldg(a.out_first + s), o1 = __ldg(a.out_first + s + 1);
                    cnt += o1 - o0;
                    if (listing || per_pat) {
                        for (uint32_t o = o0; o < o1; o++) {
                            uint32_t id = __ldg(a.out_id + o);
                            if (per_pat)
                                atomicAdd(a.out.pcounts + id, 1ull);
                            if (listing)
                                append(a, s_buf, &s_n, HAY_CUDA_MATCH(q, id));
                        }
                    }
                }
                if (q >= a.len)
                    break;
                c = text_at<STAGE>(tx, q, sp, s_text, sbytes);
                s = step<TABLE>(a, s, s_cls[c]);
                q++;
            }
        }
        if (listing) {
            // Every thread must take the same decision: read the fill level
            // between two barriers, before anyone appends again.
            __syncthreads();
            unsigned cur = s_n;
            __syncthreads();
            if (cur >= SCAP / 2 || r + 1 == a.bpt)
                flush(a, s_buf, &s_n, &s_base, cur);
        }
    }

    if (OUT == OUT_FIRST)
        hay_block_least(least, s_red, a.out.first);
    else
        hay_block_sum(cnt, s_red, a.out.count);
}

typedef void (*kernel_fn)(kargs);

// [table][root shared][stage][out]
#define PFAC_OUTS(T, R, S) \
    { pfac_kernel<T, R, S, OUT_COUNT>, pfac_kernel<T, R, S, OUT_MARK>, \
      pfac_kernel<T, R, S, OUT_FIRST> }
#define PFAC_TABLE(T) \
    { { PFAC_OUTS(T, false, false), PFAC_OUTS(T, false, true) }, \
      { PFAC_OUTS(T, true, false), PFAC_OUTS(T, true, true) } }
const kernel_fn kernels[3][2][2][3] = { PFAC_TABLE(0), PFAC_TABLE(1), PFAC_TABLE(2) };
#undef PFAC_TABLE
#undef PFAC_OUTS

template <typename T>
int upload(T **dst, const T *src, size_t n, size_t *mem)
{
    size_t bytes = (n ? n : 1) * sizeof(T);
    cudaError_t e = cudaMalloc((void **)dst, bytes);
    if (e != cudaSuccess) {
        *dst = nullptr;
        return hay_cuda_status(e);
    }
    *mem += bytes;
    if (n)
        return hay_cuda_status(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
    return HAY_OK;
}

void pfac_destroy(void *state)
{
    pfac_dev *d = (pfac_dev *)state;
    if (!d)
        return;
    if (d->tex)
        cudaDestroyTextureObject(d->tex);
    cudaFree(d->d_next);
    cudaFree(d->d_edge_first);
    cudaFree(d->d_edge_cls);
    cudaFree(d->d_edge_to);
    cudaFree(d->d_out_first);
    cudaFree(d->d_out_id);
    cudaFree(d->d_root);
    cudaFree(d->d_cls);
    free(d);
}

int pfac_build(const hay_cuda_patterns *pp, void **out)
{
    *out = nullptr;
    const hay_pfac *p = pp->pfac;
    if (!p)
        return HAY_ERR_INVALID;
    pfac_dev *d = (pfac_dev *)calloc(1, sizeof(pfac_dev));
    if (!d)
        return HAY_ERR_NOMEM;
    hay_cuda_pfac_params prm;
    int s = hay_cuda_engine_params(pp->params, &hay_cuda_pfac_param_table, &prm);
    if (s < 0) {
        free(d);
        return s;
    }
    d->table = prm.table == HAY_PFAC_TABLE_TEX ? TABLE_TEX
               : prm.table == HAY_PFAC_TABLE_COMPACT ? TABLE_COMPACT : TABLE_LDG;
    d->root_shared = prm.root == HAY_PFAC_ROOT_SHARED;
    d->stage = prm.stage;
    d->block = (int)prm.block;
    d->bpt = (int)prm.bpt;
    d->flat = prm.loop == HAY_PFAC_LOOP_FLAT;
    if (!p->next)
        d->table = TABLE_COMPACT;   // the dense table is over the budget
    if (d->table == TABLE_TEX) {
        int dev = 0, lim = 0;
        cudaGetDevice(&dev);
        // The largest linear texture, in elements.
        if (cudaDeviceGetAttribute(&lim, cudaDevAttrMaxTexture1DLinearWidth, dev) != cudaSuccess)
            lim = 0;
        cudaGetLastError();
        if ((uint64_t)p->nstates * p->nclasses > (uint64_t)lim)
            d->table = TABLE_LDG;
    }
    d->nstates = p->nstates;
    d->nfinal = p->nfinal;
    d->ncls = p->nclasses;
    d->max_len = p->max_len;
    size_t ne = p->edge_first[p->nstates];
    size_t nout = p->out_first[p->nfinal + 1];
    if ((s = upload(&d->d_out_first, p->out_first, (size_t)p->nfinal + 2, &d->mem)) < 0 ||
        (s = upload(&d->d_out_id, p->out_id, nout, &d->mem)) < 0 ||
        (s = upload(&d->d_root, p->root, 256, &d->mem)) < 0 ||
        (s = upload(&d->d_cls, p->cls, 256, &d->mem)) < 0)
        goto fail;
    if (d->table == TABLE_COMPACT) {
        if ((s = upload(&d->d_edge_first, p->edge_first, (size_t)p->nstates + 1, &d->mem)) < 0 ||
            (s = upload(&d->d_edge_cls, p->edge_cls, ne, &d->mem)) < 0 ||
            (s = upload(&d->d_edge_to, p->edge_to, ne, &d->mem)) < 0)
            goto fail;
    } else {
        if ((s = upload(&d->d_next, p->next, (size_t)p->nstates * p->nclasses, &d->mem)) < 0)
            goto fail;
        if (d->table == TABLE_TEX) {
            cudaResourceDesc rd;
            memset(&rd, 0, sizeof rd);
            rd.resType = cudaResourceTypeLinear;
            rd.res.linear.devPtr = d->d_next;
            rd.res.linear.desc = cudaCreateChannelDesc<unsigned int>();
            rd.res.linear.sizeInBytes = (size_t)p->nstates * p->nclasses * 4;
            cudaTextureDesc td;
            memset(&td, 0, sizeof td);
            td.readMode = cudaReadModeElementType;
            if ((s = hay_cuda_status(cudaCreateTextureObject(&d->tex, &rd, &td, nullptr))) < 0)
                goto fail;
        }
    }
    *out = d;
    return HAY_OK;
fail:
    pfac_destroy(d);
    return s;
}

int pfac_launch(const void *state, const hay_cuda_job *job)
{
    const pfac_dev *d = (const pfac_dev *)state;
    uint64_t back = d->max_len - 1;
    uint64_t start0 = job->min_end > back ? job->min_end - back : 0;
    if (job->len <= start0 || job->len <= job->min_end)
        return HAY_OK;
    kargs a;
    memset(&a, 0, sizeof a);
    a.text = job->d_text;
    a.len = job->len;
    a.min_end = job->min_end;
    a.start0 = start0;
    a.next = d->d_next;
    a.tex = d->tex;
    a.edge_first = d->d_edge_first;
    a.edge_cls = d->d_edge_cls;
    a.edge_to = d->d_edge_to;
    a.out_first = d->d_out_first;
    a.out_id = d->d_out_id;
    a.root = d->d_root;
    a.cls = d->d_cls;
    a.nfinal = d->nfinal;
    a.ncls = d->ncls;
    a.bpt = (uint32_t)d->bpt;
    a.flat = (uint32_t)d->flat;
    a.margin = d->max_len - 1 < STAGE_MARGIN ? d->max_len - 1 : STAGE_MARGIN;
    a.out = hay_job_outputs(job);
    const int out = job->d_marks ? OUT_MARK : job->d_first ? OUT_FIRST : OUT_COUNT;
    uint64_t tile = (uint64_t)d->block * d->bpt;
    size_t smem = (size_t)((tile + a.margin + 32 + 15) & ~(uint64_t)15);
    bool stage = d->stage && smem <= STAGE_MAX;
    if (!stage)
        smem = 0;
    kernel_fn k = kernels[d->table][d->root_shared][stage][out];
    cudaStream_t st = (cudaStream_t)job->stream;
    uint64_t nblocks = (job->len - start0 + tile - 1) / tile;
    const uint64_t max_grid = (uint64_t)1 << 30;
    for (uint64_t b = 0; b < nblocks; b += max_grid) {
        uint64_t g = nblocks - b < max_grid ? nblocks - b : max_grid;
        a.tile_base = b;
        k<<<(unsigned)g, (unsigned)d->block, smem, st>>>(a);
        int s = hay_cuda_status(cudaGetLastError());
        if (s < 0)
            return s;
    }
    return HAY_OK;
}

size_t pfac_memory(const void *state)
{
    return ((const pfac_dev *)state)->mem;
}

}  // namespace

extern "C" const hay_cuda_engine hay_cuda_engine_pfac = {
    "pfac", 1, pfac_build, pfac_destroy, pfac_launch, pfac_memory, 1, nullptr,
};
