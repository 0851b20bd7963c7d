/*
 * set.c - the GPU state of a pattern set: the driver's parameters, the
 * context, the host PFAC tables (from the CPU's trie when backend auto has
 * one) and the first engine of the registry (backend.c) that accepts the
 * set.
 */
#include "driver.h"
#include "fdr_gpu.h"

#include <stdlib.h>

static hay_status pfac_build(const hay_patterns *set, const hay_trie *trie,
                             size_t budget, hay_pfac **out)
{
    return trie ? hay_pfac_build_from(set, trie, budget, out)
                : hay_pfac_build(set, budget, out);
}

int hay_cuda_default_device(void)
{
    const char *e = getenv("HAY_CUDA_DEVICE");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == 0 && v >= 0 && v < MAX_DEVICES)
            return (int)v;
        return -1;
    }
    return 0;
}

void hay_cuda_set_free(const hay_patterns *set, cuda_set *cs)
{
    if (!cs)
        return;
    if (cs->estate || cs->d_plen) {
        cudaSetDevice(cs->dev);
        if (cs->estate)
            cs->eng->destroy(cs->estate);
        cudaFree(cs->d_plen);
        cudaGetLastError();
    }
    hay_pfac_free(set, cs->pfac);
    free(cs);
}

/* The device a set's GPU state lives on: params device=, else the
 * default (-1 when HAY_CUDA_DEVICE is not a device index). */
static int set_device(const hay_patterns *set)
{
    const hay_param_table *t = &hay_cuda_driver_param_table;
    const hay_cuda_driver_params *d = hay_set_params(set, t);
    return d && hay_params_given(t, d, "device") ? (int)d->device
                                                 : hay_cuda_default_device();
}

hay_status hay_cuda_set_warm_up(const hay_patterns *set)
{
    int dev = set_device(set);
    return dev < 0 ? HAY_ERR_INVALID : hay_cuda_ctx_enter(dev, NULL);
}

/* The first engine of the registry that accepts the set (only `algo`'s
 * when given): cs->eng, cs->estate, cs->algo; PFAC's device tables are made
 * from its host tables, built here with the dense budget. */
static hay_status build_engine(const hay_patterns *set, const char *algo,
                               const hay_trie *trie, cuda_set *cs)
{
    hay_status s = HAY_ERR_UNKNOWN_NAME;
    for (size_t i = 0; i < hay_cuda_engine_count; i++) {
        const hay_cuda_engine *e = hay_cuda_engine_table[i].engine;
        if (algo && strcmp(algo, hay_cuda_engine_table[i].name) != 0)
            continue;
        if (set->n > 1 && !e->multi) {
            s = HAY_ERR_UNSUPPORTED;
            continue;
        }
        double t0 = hay_now();
        if (e == &hay_cuda_engine_pfac && !cs->pfac) {
            s = pfac_build(set, trie, (size_t)cs->dense_max, &cs->pfac);
            if (s < 0)
                return s;
        }
        hay_cuda_patterns hp = {
            set->n, set->bytes, set->off, set->len, set->min_len, set->max_len,
            (set->flags & HAY_CASELESS) != 0, cs->pfac, set->params,
        };
        s = e->build(&hp, &cs->estate);
        cs->prepare_seconds = hay_now() - t0;
        if (s == HAY_OK) {
            cs->eng = e;
            cs->algo = hay_cuda_engine_table[i].name;
            return HAY_OK;
        }
        cs->estate = NULL;
        if (s != HAY_ERR_UNSUPPORTED || algo)
            return s;
    }
    return s;
}

hay_status hay_cuda_set_build(const hay_patterns *set, const char *algo,
                              const hay_trie *trie, cuda_set **out)
{
    *out = NULL;
    cuda_set *cs = calloc(1, sizeof *cs);
    RETURN_ERROR_IF(!cs, HAY_ERR_NOMEM);
    /* The driver's keys, checked and parsed when the set was compiled
     * (cuda_params.c); each engine reads its own. */
    const hay_param_table *t = &hay_cuda_driver_param_table;
    hay_cuda_driver_params dflt;
    const hay_cuda_driver_params *d = hay_set_params(set, t);
    if (!d) {
        hay_params_defaults(t, &dflt);
        d = &dflt;
    }
    cs->dev = set_device(set);
    cs->pageable = d->transfer == HAY_CUDA_TRANSFER_PAGEABLE;
    cs->reg = d->transfer == HAY_CUDA_TRANSFER_REGISTER;
    cs->streams = (unsigned)d->streams;
    cs->chunk = d->chunk;
    cs->result_cap = d->result_cap;
    cs->reg_threads = (unsigned)d->reg_threads;
    cs->stage_threads = (unsigned)d->stage_threads;   /* 0 when not given: the default */
    cs->dense_max = d->dense_max;                     /* 0: worked out below */
    hay_status s = HAY_OK;
    if (cs->dev < 0)
        s = HAY_ERR_INVALID;   /* HAY_CUDA_DEVICE is not a device index */
    if (s == HAY_OK)
        s = hay_cuda_ctx_enter(cs->dev, &cs->init_seconds);
    if (s < 0)
        goto fail;
    if (!cs->dense_max) {
        size_t fr = 0, tot = 0;
        cs->dense_max = (uint64_t)2 << 30;
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess && fr / 4 < cs->dense_max)
            cs->dense_max = fr / 4;
        cudaGetLastError();
    }

    /* With no --algo, a multi-pattern set takes fdr-gpu where it is the
     * faster (fdr_gpu_build.c says where), else the registry's order. */
    const char *pick = algo;
    if (!algo && set->n > 1 &&
        hay_fdr_gpu_preferred(set->n, set->min_len, &cs->why))
        pick = "fdr-gpu";
    s = build_engine(set, pick, trie, cs);
    if (s == HAY_ERR_UNSUPPORTED && pick && !algo) {
        cs->why = NULL;
        s = build_engine(set, NULL, trie, cs);
    }
    if (s < 0)
        goto fail;
    /* Streams and the host fallback walk the PFAC tables. */
    if (!cs->pfac) {
        s = pfac_build(set, trie, 0, &cs->pfac);
        if (s < 0)
            goto fail;
    }
    *out = cs;
    return HAY_OK;
fail:
    hay_cuda_set_free(set, cs);
    return s;
}

/* The host PFAC walk: the CPU pfac engine over the set's PFAC tables. */
static int host_engine_scan(const hay_patterns *set, const void *state,
                            const uint8_t *hay, size_t len, size_t min_end,
                            uint64_t base, hay_emit_fn emit, void *sink)
{
    const cuda_set *cs = state;
    return hay_engine_pfac.scan(set, cs->pfac, hay, len, min_end, base, emit, sink);
}

const hay_engine hay_cuda_host_engine = {
    "pfac", true, NULL, NULL, host_engine_scan, NULL,
};
