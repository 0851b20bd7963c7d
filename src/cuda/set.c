/*
 * set.c - the GPU state of a pattern set: the driver's parameters, the
 * context, the host PFAC tables (from the CPU's trie when backend auto has
 * one) and the first engine of the registry (backend.c) that accepts the
 * set.
 */
#include "driver.h"

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

/* The driver's keys; the engine checks its own and rejects the rest.
 * gpu_min is backend auto's (src/auto/auto.c): checked, not kept. */
static hay_status parse_driver_params(const char *params, cuda_set *cs)
{
    const char *p = params, *key, *val;
    size_t klen, vlen;
    while (hay_cuda_param_next(&p, &key, &klen, &val, &vlen)) {
        uint64_t v = 0;
        if (hay_cuda_key_is(key, klen, "transfer")) {
            cs->pageable = cs->reg = false;
            if (hay_cuda_key_is(val, vlen, "pinned"))
                ;
            else if (hay_cuda_key_is(val, vlen, "pageable"))
                cs->pageable = true;
            else if (hay_cuda_key_is(val, vlen, "register"))
                cs->reg = true;
            else
                return HAY_ERR_INVALID;
            continue;
        }
        if (hay_cuda_key_is(key, klen, "split"))
            continue;   /* backend auto's (src/auto/auto.c) */
        if (!hay_cuda_is_driver_key(key, klen))
            continue;
        RETURN_ERROR_IF(hay_cuda_parse_size(val, vlen, &v) < 0, HAY_ERR_INVALID);
        if (hay_cuda_key_is(key, klen, "device")) {
            RETURN_ERROR_IF(v >= MAX_DEVICES, HAY_ERR_INVALID);
            cs->dev = (int)v;
        } else if (hay_cuda_key_is(key, klen, "streams")) {
            RETURN_ERROR_IF(v < 1 || v > MAX_STREAMS, HAY_ERR_INVALID);
            cs->streams = (unsigned)v;
        } else if (hay_cuda_key_is(key, klen, "chunk")) {
            RETURN_ERROR_IF(v < 1, HAY_ERR_INVALID);
            cs->chunk = v;
        } else if (hay_cuda_key_is(key, klen, "result_cap")) {
            RETURN_ERROR_IF(v < 1 || v > ((uint64_t)1 << 32), HAY_ERR_INVALID);
            cs->result_cap = v;
        } else if (hay_cuda_key_is(key, klen, "dense_max")) {
            cs->dense_max = v;
        } else if (hay_cuda_key_is(key, klen, "reg_threads")) {
            RETURN_ERROR_IF(v < 1 || v > 8, HAY_ERR_INVALID);
            cs->reg_threads = (unsigned)v;
        } else if (hay_cuda_key_is(key, klen, "stage_threads")) {
            RETURN_ERROR_IF(v < 1 || v > 256, HAY_ERR_INVALID);
            cs->stage_threads = (unsigned)v;
        }
    }
    return HAY_OK;
}

void hay_cuda_set_free(const hay_patterns *set, cuda_set *cs)
{
    if (!cs)
        return;
    if (cs->estate) {
        cudaSetDevice(cs->dev);
        cs->eng->destroy(cs->estate);
        cudaGetLastError();
    }
    hay_pfac_free(set, cs->pfac);
    free(cs);
}

hay_status hay_cuda_set_build(const hay_patterns *set, const char *algo,
                              const hay_trie *trie, cuda_set **out)
{
    *out = NULL;
    cuda_set *cs = calloc(1, sizeof *cs);
    RETURN_ERROR_IF(!cs, HAY_ERR_NOMEM);
    cs->dev = hay_cuda_default_device();
    const hay_cuda_tuning *tu = &hay_cuda_tuning_default;
    cs->streams = tu->streams;
    cs->chunk = tu->chunk;
    cs->result_cap = tu->result_cap;
    cs->reg_threads = tu->reg_threads;
    hay_status s = parse_driver_params(set->params, cs);
    if (s == HAY_OK && cs->dev < 0)
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

    s = HAY_ERR_UNKNOWN_NAME;
    for (size_t i = 0; i < hay_cuda_engine_count; i++) {
        const hay_cuda_engine *e = hay_cuda_engine_table[i].engine;
        if (algo && strcmp(algo, hay_cuda_engine_table[i].name) != 0)
            continue;
        if (set->n > 1 && !e->multi) {
            s = HAY_ERR_UNSUPPORTED;
            continue;
        }
        double t0 = hay_now();
        if (e->multi && !cs->pfac) {
            s = pfac_build(set, trie, (size_t)cs->dense_max, &cs->pfac);
            if (s < 0)
                goto fail;
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
            break;
        }
        cs->estate = NULL;
        if (s != HAY_ERR_UNSUPPORTED || algo)
            goto fail;
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
