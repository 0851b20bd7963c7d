// sw_db_host.cuh - what the database search's host files share
// (src/cuda/sw_db.cu: create, free, warm-up, release; src/cuda/sw_db_search.cu:
// the batches and the search): the device copy of a database and the
// error macros of their `goto fail` style.  Internal.
#ifndef HAY_SW_DB_HOST_CUH
#define HAY_SW_DB_HOST_CUH

#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "../../include/haystack.h"
#include "../align/db_device.h"
#include "cuda_engine.h"
#include "cuda_params.h"
#include "sw_db.cuh"

// The CUDA backend's driver start and contexts (driver.h, context.c): one
// per device and process, whoever asks first.
extern "C" int hay_cuda_devices(void);
extern "C" hay_status hay_cuda_ctx_enter(int dev, double *paid);

#define SWDB_CUDA(call)                          \
    do {                                         \
        cudaError_t e_ = (call);                 \
        if (e_ != cudaSuccess) {                 \
            st = hay_cuda_status((int)e_);       \
            goto fail;                           \
        }                                        \
    } while (0)
#define SWDB_CHECK_ST(expr)                      \
    do {                                         \
        st = (expr);                             \
        if (st != HAY_OK)                        \
            goto fail;                           \
    } while (0)
#define SWDB_CHECK(expr)                         \
    do {                                         \
        int r_ = (expr);                         \
        if (r_ != 0) {                           \
            st = hay_cuda_status(r_);            \
            goto fail;                           \
        }                                        \
    } while (0)

// A device buffer that grows on demand (contents not kept).
typedef struct swdb_buf {
    void *d;
    size_t cap;
} swdb_buf;

static inline cudaError_t swdb_reserve(swdb_buf *b, size_t bytes)
{
    if (bytes <= b->cap && b->d != NULL)
        return cudaSuccess;
    cudaFree(b->d);
    b->d = NULL;
    b->cap = 0;
    cudaError_t e = cudaMalloc(&b->d, bytes > 16 ? bytes : 16);
    if (e == cudaSuccess)
        b->cap = bytes;
    return e;
}

struct hay_swdb_gpu {
    int device, sms;
    size_t ntargets;
    uint64_t residues;
    int alpha, go, ge;
    int32_t *mat;                 // alpha x alpha, host copy
    int maxs;                     // largest matrix entry (>= 0)
    int use16;                    // the 16-bit kernel may run
    int maxlen;                   // longest target
    int32_t *h_len;               // sorted lengths
    uint32_t *h_perm;             // sorted index -> caller's index
    uint8_t *d_codes;             // one allocation: codes, then off, len, perm
    uint64_t *d_off;
    int32_t *d_len;
    uint32_t *d_perm;             // sorted index -> the hits' id
    size_t scratch_budget, batch_budget;
    size_t db_max;                // 0 or the largest database held (db_max=)
    cudaStream_t stream;
    cudaEvent_t ev[4];
    swdb_buf scores, rlist, keys0, keys1, cub, temp, small, prof8, prof32;
    int32_t *h_rcount;
    size_t h_rcount_cap;
    int max_launches;             // task counters in g->small
    int rows;                     // rows a thread for long queries: 0 (choose), 16, 32
};

// The monotonic clock of the timelines (hay_align_phase).
extern "C" double hay_now(void);   // src/core/status.c
static inline double swdb_now(void) { return hay_now(); }

// Loads the top-k's small kernels now (sw_db_search.cu; the runtime
// otherwise loads a kernel at its first launch).  Returns a cudaError_t.
int swdb_load_select_kernels(void);

#endif
