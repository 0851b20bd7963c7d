/*
 * driver.h - what the files of the CUDA backend's host driver share (only
 * in builds with CUDA): the compiled set, the per-device contexts and
 * pipeline pool (context.c), set building (set.c), the pipeline that runs
 * one scan (pipeline.c), the staging copies (stage.c).  backend.c holds
 * the ops table and the engine registry; hostreg.c pins inputs in place.
 *
 * The driver owns, per process and device, one lazily created context
 * (thread-safe; its cost is measured and reported once as init_seconds)
 * and a pool of pipelines.  A pipeline has `streams` slots; each slot has
 * a pinned staging buffer, a device text buffer, counters and (made on the
 * first listing scan) a bounded match list with its sort buffers.
 * Every CUDA error becomes a hay_status; nothing prints or exits.
 */
#ifndef HAY_CUDA_DRIVER_H
#define HAY_CUDA_DRIVER_H

#include "../core/internal.h"
#include "cuda_engine.h"
#include "cuda_params.h"
#include "sort.h"

#include <cuda_runtime_api.h>

#define MAX_DEVICES HAY_CUDA_MAX_DEVICES   /* the device= key's range */
#define MAX_STREAMS HAY_CUDA_MAX_STREAMS   /* the streams= key's range */

static inline hay_status cuda_status(cudaError_t e)
{
    return (hay_status)hay_cuda_status(e);
}
#define CU(call) FORWARD_IF_ERROR(cuda_status(call))

/* The driver's fixed tunings and limits.  The defaults of its keys
 * (streams, chunk, result_cap, reg_threads, ...) are the key table's,
 * hay_cuda_driver_param_table in cuda_params.c. */
typedef struct hay_cuda_tuning {
    uint64_t min_chunk;        /* halving the chunk on NOMEM stops here */
    uint64_t min_result_cap;
    unsigned pool_keep;        /* idle pipelines kept per device */
    size_t stage_block;        /* per-thread share of a staging copy */
    unsigned stage_threads;    /* staging copy threads, alone */
    unsigned split_stage_threads;   /* ... as a split=on GPU side */
    unsigned reg_ahead;        /* transfer=register: blocks pinned ahead */
} hay_cuda_tuning;

extern const hay_cuda_tuning hay_cuda_tuning_default;

/* Contexts and the pipeline pool (context.c) ----------------------------- */

typedef struct cuda_slot {
    cudaStream_t st;
    cudaEvent_t ev[4];      /* before copy-in, before kernel, after kernel, after copy-out */
    uint8_t *h_stage;       /* pinned, text_cap + pad (pinned pipelines) */
    uint8_t *d_text;        /* text_cap + 2 pad */
    unsigned long long *d_ctr;   /* [0] count, [1] list slots taken, [2] least
                                  * match key (HAY_ASK_FIRST) */
    unsigned long long *h_ctr;   /* pinned copy of d_ctr */
    uint64_t cap;           /* list slots; 0 until the first listing scan */
    unsigned long long *d_m, *d_sorted, *h_m;
    unsigned long long *h_peek;  /* pinned: a short list's keys (pipeline.c) */
    void *d_tmp;
    size_t tmp_bytes;
    /* the sort of the list enqueued last, when left for its delivery to
     * finish (device-reachable arrays: pipeline.c enqueue_out, list_dev.c) */
    hay_cuda_sort_later later;
    /* The list's sort and copy back run on a stream of their own, so that
     * they overlap the next piece's copy-in (pipeline.c enqueue_out). */
    cudaStream_t ost;
    cudaEvent_t ev_out[3];  /* before the sort, after it, after the copy back */
    /* counters of an overflowing piece's parts (pipeline.c, overflow.h),
     * made on the first overflow: HAY_OVERFLOW_PARTS, and a pinned copy */
    unsigned long long *d_parts, *h_parts;
    /* HAY_ASK_MARK: the piece's bitmap of match ends (32-bit words, bit i
     * for byte gs + i) and its pinned copy, made on the first marks scan
     * (pipeline.c) */
    uint32_t *d_mk, *h_mk;
    uint64_t mk_words;
    /* hay_scan_list into device or pinned arrays (list_dev.h): the cut of
     * the slot's sorted keys (device, pinned copy), and for pinned arrays
     * the converted matches before their copy (rec_cap entries) */
    unsigned long long *d_cut, *h_cut;
    void *d_rec;
    uint64_t rec_cap;
    /* the engine's scratch for jobs (cuda_engine.h d_scratch), made on
     * first use (hay_cuda_slot_scratch) */
    void *d_scratch;
    size_t scratch_bytes;
    /* the piece in flight */
    bool busy;
    uint64_t lo, gs, ge;    /* device text holds [lo, ge); owned ends (gs, ge] */
    size_t piece;           /* split scans: the piece's number (hay_piece_source) */
    /* its list, enqueued and not yet delivered (the slot may hold the
     * next piece meanwhile) */
    bool out;
    uint64_t out_lo, out_n, out_ge;
    size_t out_piece;
} cuda_slot;

typedef struct cuda_pipe {
    struct cuda_pipe *next;      /* in the idle pool */
    int dev;
    unsigned nslots;
    uint64_t text_cap;
    bool pinned;
    cuda_slot s[MAX_STREAMS];
} cuda_pipe;

/* The number of devices, asked once per process. */
int hay_cuda_devices(void);
/* Makes `dev` current for this thread, creating its context on first use;
 * *paid (may be NULL) is the start-up time when this call paid it, else 0. */
hay_status hay_cuda_ctx_enter(int dev, double *paid);
/* A pipeline with at least the asked capacity: from the pool, or new;
 * when memory is short the chunk is halved (down to min_chunk).  resident:
 * no text buffers (the input is on the device already). */
hay_status hay_cuda_pipe_acquire(int dev, unsigned nslots, uint64_t *chunk,
                                 bool pinned, bool resident, cuda_pipe **out);
/* Back to the pool (or freed when broken or the pool is full). */
void hay_cuda_pipe_release(cuda_pipe *p, bool broken);
/* The marks bitmap of a slot (words 32-bit words, device and pinned), made
 * on first use and kept; remade larger when a scan needs more. */
hay_status hay_cuda_slot_marks(cuda_slot *sl, uint64_t words);
/* The match list of a slot, made on first use; halved when memory is short. */
hay_status hay_cuda_slot_list(cuda_slot *sl, uint64_t want);
/* The engine's job scratch of a slot (d_scratch), at least `bytes`: made
 * on first use and kept; remade larger when a set needs more. */
hay_status hay_cuda_slot_scratch(cuda_slot *sl, size_t bytes);

/* Compiled sets (set.c) -------------------------------------------------- */

/* The engines by --algo name (backend.c); the first that accepts a set is
 * the default. */
typedef struct hay_cuda_engine_entry {
    const char *name;
    const hay_cuda_engine *engine;
} hay_cuda_engine_entry;
extern const hay_cuda_engine_entry hay_cuda_engine_table[];
extern const size_t hay_cuda_engine_count;

typedef struct cuda_set {
    int dev;
    const hay_cuda_engine *eng;
    const char *algo;
    void *estate;
    hay_pfac *pfac;          /* host tables: the engine's input, streams, fallback */
    bool pageable;
    bool reg;                /* transfer=register (hostreg.h) */
    unsigned streams;
    unsigned stage_threads;  /* 0: the default */
    unsigned reg_threads;    /* transfer=register */
    uint64_t chunk, result_cap, dense_max;
    double init_seconds, prepare_seconds;
    const char *why;         /* with no --algo: why this engine (static), or NULL */
    int reported;            /* init/prepare reported by a scan */
    uint64_t list_chunk;     /* hay_scan_list: the pieces cut to fit the list
                              * after an overflow, kept for the set's later
                              * calls (0: none; relaxed atomics) */
    uint32_t *d_plen;        /* pattern lengths on the device, made by the
                              * first list into device-reachable arrays
                              * (list_dev.c; atomics) */
} cuda_set;

/* Builds the GPU state of a set: context, host tables (from trie when not
 * NULL), device tables; algo NULL: the first engine that accepts it. */
/* Starts the CUDA runtime and the context of the device the set would
 * use (backend auto's warm-up thread), so that building its state later
 * finds them made. */
hay_status hay_cuda_set_warm_up(const hay_patterns *set);
hay_status hay_cuda_set_build(const hay_patterns *set, const char *algo,
                              const hay_trie *trie, cuda_set **out);
void hay_cuda_set_free(const hay_patterns *set, cuda_set *cs);
/* The device of params-less sets and buffers: env HAY_CUDA_DEVICE, else
 * 0; -1 when the variable names no device index. */
int hay_cuda_default_device(void);
/* What streams (and hay_patterns_info's algo) see for CUDA sets: the host
 * PFAC walk over the set's tables. */
extern const hay_engine hay_cuda_host_engine;

/* One scan (pipeline.c) -------------------------------------------------- */

/* Runs r on the GPU state cs: a host input or a device buffer (r->buffer
 * is a hay_cuda_buffer); with r->pieces, the GPU side of a split. */
hay_status hay_cuda_run(const hay_patterns *set, cuda_set *cs, const hay_run *r);

/* A device-resident buffer (hay_buffer_create). */
typedef struct hay_cuda_buffer {
    int dev;
    uint8_t *d_base;         /* padded allocation */
    const uint8_t *d_data;
    uint64_t len;
} hay_cuda_buffer;

/* Staging copies (stage.c) ----------------------------------------------- */

/* Copies src[0, n) into pinned memory on up to `threads` OpenMP threads. */
void hay_cuda_stage_copy(uint8_t *dst, const uint8_t *src, uint64_t n,
                         unsigned threads);
/* A pool of threads - 1 sleeping copy threads (the caller copies too);
 * NULL when fewer than two threads are wanted or none could be made. */
typedef struct hay_copy_pool hay_copy_pool;
hay_copy_pool *hay_copy_pool_start(unsigned threads);
void hay_copy_pool_stop(hay_copy_pool *p);
/* Copies n bytes with the pool's threads and the calling one (p may be NULL). */
void hay_copy_pool_copy(hay_copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n);
/* Starts copying n bytes on the pool's threads alone (p not NULL) and
 * returns; hay_copy_pool_wait waits for the copy. */
void hay_copy_pool_begin(hay_copy_pool *p, uint8_t *dst, const uint8_t *src, uint64_t n);
void hay_copy_pool_wait(hay_copy_pool *p);

#endif
