/*
 * backend.c - the CUDA backend's ops table: the engine registry, compiling
 * a set (set.c), scans through the pipeline (pipeline.c), device-resident
 * buffers, the offload ops with which backend auto keeps a GPU state
 * beside the CPU's, and the stubs of builds without CUDA.
 */
#include "../core/internal.h"
#include "cuda_params.h"
#include "hostreg.h"

#ifdef HAY_HAVE_CUDA
#include "driver.h"
#include "exact.h"

#include <stdlib.h>

int hay_cuda_device_name(int dev, char *buf, size_t cap);

const hay_cuda_engine_entry hay_cuda_engine_table[] = {
    { "gpu-fast", &hay_cuda_engine_fast },          /* one pattern */
    { "pfac", &hay_cuda_engine_pfac },              /* any number */
    { "fdr-gpu", &hay_cuda_engine_fdr_gpu },        /* any number; set.c picks it */
    { "bm-gpu", &hay_cuda_engine_bm },
    { "brute-global", &hay_cuda_engine_brute_global },
    { "brute-reg", &hay_cuda_engine_brute_reg },
    { "brute-first", &hay_cuda_engine_brute_first },
};
const size_t hay_cuda_engine_count =
    sizeof hay_cuda_engine_table / sizeof hay_cuda_engine_table[0];
/* The same names, for hay_algo_name (keep in step with the table). */
static const char *const cuda_algos[] = { "gpu-fast", "pfac", "fdr-gpu", "bm-gpu",
                                          "brute-global", "brute-reg", "brute-first",
                                          NULL };

const hay_cuda_tuning hay_cuda_tuning_default = {
    .min_chunk = (uint64_t)1 << 16,
    .min_result_cap = (uint64_t)1 << 10,
    .pool_keep = 2,
    .stage_block = (size_t)2 << 20,
    .stage_threads = 16,
    .split_stage_threads = 4,
    .reg_ahead = 3,
};

static hay_status cuda_available(void)
{
    return hay_cuda_devices() > 0 ? HAY_OK : HAY_ERR_NO_DEVICE;
}
static int cuda_device_count(void) { return hay_cuda_devices(); }
static hay_status cuda_describe(int index, char *buf, size_t cap)
{
    return hay_cuda_device_name(index, buf, cap) == 0 ? HAY_OK : HAY_ERR_DEVICE;
}

static hay_status cuda_compile(hay_patterns *set, const char *algo)
{
    cuda_set *cs;
    FORWARD_IF_ERROR(hay_cuda_set_build(set, algo, NULL, &cs));
    set->state = cs;
    set->engine = &hay_cuda_host_engine;   /* streams walk the PFAC tables on the host */
    set->algo_name = cs->algo;    /* what hay_patterns_info reports */
    set->state_memory = cs->pfac->memory + cs->eng->memory(cs->estate);
    set->reason = algo       ? "algorithm chosen by the caller"
                  : cs->why ? cs->why
                  : !strcmp(cs->algo, "gpu-fast")
                      ? "CUDA, one pattern: 16-byte loads, first/last-byte filter (gpu-fast)"
                      : "CUDA: PFAC over all start positions";
    return HAY_OK;
}

static void cuda_destroy(hay_patterns *set)
{
    hay_cuda_set_free(set, set->state);
    set->state = NULL;
}

/* Device-resident buffers ------------------------------------------------- */

static hay_status cuda_buffer_create(const void *data, uint64_t len, void **out)
{
    *out = NULL;
    FORWARD_IF_ERROR(cuda_available());
    hay_cuda_buffer *b = calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, HAY_ERR_NOMEM);
    b->len = len;
    b->dev = hay_cuda_default_device();
    hay_status s = b->dev < 0 ? HAY_ERR_INVALID : hay_cuda_ctx_enter(b->dev, NULL);
    if (s == HAY_OK)
        s = cuda_status(cudaMalloc((void **)&b->d_base, len + 2 * HAY_CUDA_PAD));
    if (s == HAY_OK)
        s = cuda_status(cudaMemset(b->d_base, 0, len + 2 * HAY_CUDA_PAD));
    b->d_data = b->d_base + HAY_CUDA_PAD;
    if (s == HAY_OK && len)
        s = cuda_status(cudaMemcpy(b->d_base + HAY_CUDA_PAD, data, len,
                                   cudaMemcpyHostToDevice));
    /* From pageable memory cudaMemcpy may return before its DMA lands, and
     * cudaMemset is asynchronous; the pipeline's streams are non-blocking
     * and do not wait for the default stream, so the buffer is complete
     * only after this.  Without it, buffer counts in 4096-byte pieces came
     * out short on an H100, differently from run to run
     * (tests/api/modes.c). */
    if (s == HAY_OK)
        s = cuda_status(cudaDeviceSynchronize());
    if (s < 0) {
        cudaFree(b->d_base);
        free(b);
        return s;
    }
    *out = b;
    return HAY_OK;
}

static void cuda_buffer_free(void *buf)
{
    hay_cuda_buffer *b = buf;
    if (b->d_base) {
        cudaSetDevice(b->dev);
        cudaFree(b->d_base);
        cudaGetLastError();
    }
    free(b);
}

static bool cuda_buffer_fits(const void *state, const void *buffer)
{
    return ((const cuda_set *)state)->dev == ((const hay_cuda_buffer *)buffer)->dev;
}

static hay_status cuda_run(const hay_patterns *set, hay_scratch *scratch, const hay_run *r)
{
    (void)scratch;
    RETURN_ERROR_IF(r->buffer && !cuda_buffer_fits(set->state, r->buffer), HAY_ERR_INVALID);
    return hay_cuda_run(set, set->state, r);
}

/* Backend auto's GPU state ------------------------------------------------ */

static hay_status offload_build(const hay_patterns *set, const hay_trie *trie, void **state)
{
    cuda_set *cs = NULL;
    hay_status s = hay_cuda_set_build(set, NULL, trie, &cs);
    *state = cs;
    return s;
}

static void offload_destroy(const hay_patterns *set, void *state)
{
    hay_cuda_set_free(set, state);
}

static hay_status offload_run(const hay_patterns *set, void *state, const hay_run *r)
{
    return hay_cuda_run(set, state, r);
}

static const hay_offload_ops cuda_offload = {
    .warm_up = hay_cuda_set_warm_up,
    .build = offload_build,
    .destroy = offload_destroy,
    .run = offload_run,
    .in_place = hay_hostreg_eligible,
    .buffer_fits = cuda_buffer_fits,
};

const hay_backend_ops hay_cuda_backend = {
    .id = HAY_BACKEND_CUDA,
    .name = "cuda",
    .available = cuda_available,
    .device_count = cuda_device_count,
    .describe = cuda_describe,
    .algos = cuda_algos,
    .compile = cuda_compile,
    .param_tables = hay_cuda_param_tables,
    .destroy = cuda_destroy,
    .buffer_create = cuda_buffer_create,
    .buffer_free = cuda_buffer_free,
    .run = cuda_run,
    .offload = &cuda_offload,
};

#else /* !HAY_HAVE_CUDA */

static const char *const cuda_algos[] = { NULL };
static hay_status cuda_available(void) { return HAY_ERR_NO_BACKEND; }
static int cuda_device_count(void) { return 0; }
static hay_status cuda_describe(int index, char *buf, size_t cap)
{
    (void)index; (void)buf; (void)cap;
    return HAY_ERR_NO_BACKEND;
}
static hay_status cuda_compile(hay_patterns *set, const char *algo)
{
    (void)set; (void)algo;
    return HAY_ERR_NO_BACKEND;
}
static hay_status cuda_buffer_create(const void *data, uint64_t len, void **out)
{
    (void)data; (void)len;
    *out = NULL;
    return HAY_ERR_NO_BACKEND;
}

const hay_backend_ops hay_cuda_backend = {
    .id = HAY_BACKEND_CUDA,
    .name = "cuda",
    .available = cuda_available,
    .device_count = cuda_device_count,
    .describe = cuda_describe,
    .algos = cuda_algos,
    .compile = cuda_compile,
    .param_tables = hay_cuda_param_tables,
    .buffer_create = cuda_buffer_create,
};

#endif /* HAY_HAVE_CUDA */
