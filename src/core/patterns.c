/* patterns.c - compiling pattern sets and choosing a backend. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

const hay_backend_ops *hay_backend_ops_of(hay_backend b)
{
    switch (b) {
    case HAY_BACKEND_CPU: return &hay_cpu_backend;
    case HAY_BACKEND_CUDA: return &hay_cuda_backend;
    case HAY_BACKEND_OPENCL: return &hay_opencl_backend;
    case HAY_BACKEND_AUTO: break;
    }
    return NULL;
}

const char *hay_backend_name(hay_backend backend)
{
    if (backend == HAY_BACKEND_AUTO)
        return "auto";
    const hay_backend_ops *ops = hay_backend_ops_of(backend);
    return ops ? ops->name : "?";
}

hay_status hay_backend_parse(const char *name, hay_backend *out)
{
    RETURN_ERROR_IF(!name || !out, HAY_ERR_INVALID);
    static const hay_backend all[] = { HAY_BACKEND_AUTO, HAY_BACKEND_CPU,
                                       HAY_BACKEND_CUDA, HAY_BACKEND_OPENCL };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(name, hay_backend_name(all[i])) == 0) {
            *out = all[i];
            return HAY_OK;
        }
    }
    return HAY_ERR_UNKNOWN_NAME;
}

hay_status hay_backend_available(hay_backend backend)
{
    if (backend == HAY_BACKEND_AUTO)
        return HAY_OK;
    const hay_backend_ops *ops = hay_backend_ops_of(backend);
    RETURN_ERROR_IF(!ops, HAY_ERR_INVALID);
    return ops->available();
}

hay_status hay_device_count(hay_backend backend, int *count)
{
    RETURN_ERROR_IF(!count, HAY_ERR_INVALID);
    *count = 0;
    const hay_backend_ops *ops = hay_backend_ops_of(backend);
    RETURN_ERROR_IF(!ops, HAY_ERR_INVALID);
    hay_status s = ops->available();
    if (s < 0)
        return s;
    *count = ops->device_count();
    return HAY_OK;
}

hay_status hay_device_describe(hay_backend backend, int index, char *buf,
                               size_t cap)
{
    RETURN_ERROR_IF(!buf || cap == 0 || index < 0, HAY_ERR_INVALID);
    buf[0] = 0;
    const hay_backend_ops *ops = hay_backend_ops_of(backend);
    RETURN_ERROR_IF(!ops, HAY_ERR_INVALID);
    FORWARD_IF_ERROR(ops->available());
    RETURN_ERROR_IF(index >= ops->device_count(), HAY_ERR_INVALID);
    return ops->describe(index, buf, cap);
}

hay_status hay_algo_name(hay_backend backend, size_t i, const char **name)
{
    RETURN_ERROR_IF(!name, HAY_ERR_INVALID);
    if (backend == HAY_BACKEND_AUTO)
        backend = HAY_BACKEND_CPU;
    const hay_backend_ops *ops = hay_backend_ops_of(backend);
    RETURN_ERROR_IF(!ops, HAY_ERR_INVALID);
    for (size_t k = 0; ops->algos[k]; k++) {
        if (k == i) {
            *name = ops->algos[k];
            return HAY_OK;
        }
    }
    return HAY_ERR_INVALID;
}


void hay_refuse(hay_patterns *set, const char *fmt, ...)
{
    if (!set->refusal.buf || !set->refusal.cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(set->refusal.buf, set->refusal.cap, fmt, ap);
    va_end(ap);
}

void hay_compile_opts_init(hay_compile_opts *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->backend = HAY_BACKEND_AUTO;
}

static void set_free_storage(hay_patterns *set)
{
    const hay_allocator *a = &set->alloc;
    hay_free(a, set->bytes);
    hay_free(a, set->off);
    hay_free(a, set->len);
    hay_free(a, set->params);
    hay_param_set_free(a, set->param_set);
}

hay_status hay_patterns_compile(const hay_pattern *patterns, size_t n,
                                const hay_compile_opts *opts,
                                hay_patterns **out)
{
    RETURN_ERROR_IF(!out, HAY_ERR_INVALID);
    *out = NULL;
    if (opts && opts->error && opts->error_cap)
        opts->error[0] = 0;
    RETURN_ERROR_IF(!patterns || n == 0, HAY_ERR_INVALID);
    RETURN_ERROR_IF(n > HAY_MAX_PATTERNS, HAY_ERR_TOO_LARGE);

    hay_compile_opts defaults;
    if (!opts) {
        hay_compile_opts_init(&defaults);
        opts = &defaults;
    }
    RETURN_ERROR_IF(opts->flags & ~HAY_CASELESS, HAY_ERR_INVALID);
    RETURN_ERROR_IF(opts->mode != HAY_MATCH_ALL &&
                    opts->mode != HAY_MATCH_LEFTMOST_FIRST &&
                    opts->mode != HAY_MATCH_LEFTMOST_LONGEST, HAY_ERR_INVALID);

    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        RETURN_ERROR_IF(patterns[i].len == 0, HAY_ERR_INVALID);
        RETURN_ERROR_IF(!patterns[i].data, HAY_ERR_INVALID);
        RETURN_ERROR_IF(patterns[i].len > HAY_MAX_PATTERN_LEN, HAY_ERR_TOO_LARGE);
        total += patterns[i].len;
    }

    double t0 = hay_now();
    hay_allocator alloc = { 0 };
    if (opts->alloc) {
        RETURN_ERROR_IF(!opts->alloc->alloc || !opts->alloc->free, HAY_ERR_INVALID);
        alloc = *opts->alloc;
    }
    hay_patterns *set = hay_calloc(&alloc, 1, sizeof *set);
    RETURN_ERROR_IF(!set, HAY_ERR_NOMEM);
    set->alloc = alloc;
    set->flags = opts->flags;
    set->mode = opts->mode;
    set->size_hint = opts->size_hint;
    set->n = n;
    set->bytes = hay_malloc(&alloc, total);
    set->off = hay_malloc(&alloc, n * sizeof *set->off);
    set->len = hay_malloc(&alloc, n * sizeof *set->len);
    hay_status s = HAY_ERR_NOMEM;
    if (!set->bytes || !set->off || !set->len)
        goto fail;
    size_t pos = 0;
    set->min_len = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        memcpy(set->bytes + pos, patterns[i].data, patterns[i].len);
        set->off[i] = pos;
        set->len[i] = patterns[i].len;
        pos += patterns[i].len;
        if (patterns[i].len < set->min_len)
            set->min_len = patterns[i].len;
        if (patterns[i].len > set->max_len)
            set->max_len = patterns[i].len;
    }

    if (opts->params) {
        size_t pl = strlen(opts->params) + 1;
        set->params = hay_malloc(&alloc, pl);
        if (!set->params)
            goto fail;
        memcpy(set->params, opts->params, pl);
    }

    const char *algo = opts->algo;
    if (algo && strcmp(algo, "auto") == 0)
        algo = NULL;
    if (opts->backend == HAY_BACKEND_AUTO) {
        /* With no algorithm named, backend auto (src/auto/) chooses; a
         * named one is a CPU engine's. */
        set->backend = algo ? &hay_cpu_backend : &hay_auto_backend;
    } else {
        set->backend = hay_backend_ops_of(opts->backend);
        s = HAY_ERR_INVALID;
        if (!set->backend)
            goto fail;
        s = set->backend->available();
        if (s < 0)
            goto fail;
    }
    /* The keys the backend reads for this algorithm and set. */
    const hay_param_table *tables[HAY_BACKEND_PARAM_TABLES];
    size_t nt = set->backend->param_tables(algo, n, tables);
    hay_param_msg msg = { opts->error, opts->error_cap };
    s = hay_param_set_create(&alloc, set->params, tables, nt, &msg, &set->param_set);
    if (s < 0)
        goto fail;
    set->refusal = msg;
    s = set->backend->compile(set, algo);
    set->refusal = (hay_param_msg){ NULL, 0 };
    if (s < 0) {
        /* Every refusal says why: the engine's words, else the status. */
        if ((s == HAY_ERR_UNSUPPORTED || s == HAY_ERR_TOO_LARGE) && msg.buf &&
            msg.cap && !msg.buf[0])
            snprintf(msg.buf, msg.cap, "algorithm '%s' refuses these %zu patterns: %s",
                     algo ? algo : "auto", n, hay_strerror(s));
        goto fail;
    }
    if (msg.buf && msg.cap)
        msg.buf[0] = 0;   /* a refusal on the way (a fallback that served) is no error */
    set->compile_seconds = hay_now() - t0;
    *out = set;
    return HAY_OK;
fail:
    set_free_storage(set);
    hay_free(&alloc, set);
    return s;
}

void hay_patterns_free(hay_patterns *set)
{
    if (!set)
        return;
    if (set->backend && set->backend->destroy)
        set->backend->destroy(set);
    hay_allocator alloc = set->alloc;
    set_free_storage(set);
    hay_free(&alloc, set);
}

hay_status hay_patterns_info_get(const hay_patterns *set,
                                 hay_patterns_info *info)
{
    RETURN_ERROR_IF(!set || !info, HAY_ERR_INVALID);
    memset(info, 0, sizeof *info);
    info->backend = set->backend->id;
    info->algo = set->engine ? set->engine->name : "?";
    if (set->algo_name)   /* device backends: the device's engine */
        info->algo = set->algo_name;
    info->reason = set->reason ? set->reason : "";
    info->count = set->n;
    info->min_len = set->min_len;
    info->max_len = set->max_len;
    size_t total = set->n ? set->off[set->n - 1] + set->len[set->n - 1] : 0;
    info->memory = sizeof *set + total + set->n * 2 * sizeof(size_t) +
                   set->state_memory;
    info->compile_seconds = set->compile_seconds;
    info->states = set->states;
    return HAY_OK;
}
