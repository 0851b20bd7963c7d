/*
 * buffer.c - haystacks held by a backend (hay_buffer_*): a device copy made
 * by the backend's buffer ops, or the caller's host memory.  Scans of a
 * buffer go through hay_run_ask like those of host inputs, so match modes
 * and stats apply the same way on every backend.
 */
#include "fill.h"

#include <stdlib.h>

struct hay_buffer {
    const hay_backend_ops *ops;   /* the backend that holds it; NULL: host memory */
    void *dev;                    /* ops' buffer */
    const uint8_t *host;          /* host buffers: the caller's data */
    uint64_t len;
};

hay_backend hay_buffer_backend(const hay_buffer *buf)
{
    if (!buf)
        return HAY_BACKEND_AUTO;
    return buf->ops ? buf->ops->id : HAY_BACKEND_CPU;
}

hay_status hay_buffer_create(hay_backend backend, const void *data,
                             uint64_t len, hay_buffer **out)
{
    RETURN_ERROR_IF(!out, HAY_ERR_INVALID);
    *out = NULL;
    RETURN_ERROR_IF(!data && len, HAY_ERR_INVALID);
    const hay_backend_ops *ops = NULL;
    if (backend == HAY_BACKEND_AUTO) {
        /* A device copy when a GPU is usable, else the host's memory. */
        const hay_backend_ops *gpu = hay_backend_ops_of(HAY_BACKEND_CUDA);
        if (gpu && gpu->buffer_create && gpu->available() == HAY_OK)
            ops = gpu;
    } else if (backend != HAY_BACKEND_CPU) {
        ops = hay_backend_ops_of(backend);
        RETURN_ERROR_IF(!ops, HAY_ERR_INVALID);
        RETURN_ERROR_IF(!ops->buffer_create, HAY_ERR_UNSUPPORTED);
    }
    hay_buffer *b = calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, HAY_ERR_NOMEM);
    b->len = len;
    b->ops = ops;
    b->host = ops ? NULL : data;
    if (ops) {
        hay_status s = ops->buffer_create(data, len, &b->dev);
        if (s < 0) {
            free(b);
            return s;
        }
    }
    *out = b;
    return HAY_OK;
}

void hay_buffer_free(hay_buffer *b)
{
    if (!b)
        return;
    if (b->ops)
        b->ops->buffer_free(b->dev);
    free(b);
}

/* One ask over a device buffer (host buffers take the host calls). */
static hay_status buffer_ask(const hay_patterns *set, hay_scratch *scratch,
                             const hay_buffer *b, const hay_scan_opts *opts,
                             hay_run *r)
{
    hay_scan_opts defaults;
    if (!opts) {
        hay_scan_opts_init(&defaults);
        opts = &defaults;
    }
    if (b->len == 0)
        return HAY_OK;
    r->buffer = b->dev;
    r->len = b->len;
    r->opts = opts;
    r->note = "device-resident buffer";
    r->t0 = hay_now();
    return hay_run_ask(set, scratch, r);
}

hay_status hay_scan_buffer(const hay_patterns *set, hay_scratch *scratch,
                           const hay_buffer *buf, const hay_scan_opts *opts,
                           hay_match_fn on_match, void *ctx)
{
    RETURN_ERROR_IF(!on_match || !set || !scratch || !buf, HAY_ERR_INVALID);
    if (!buf->ops)
        return hay_scan(set, scratch, buf->host, buf->len, opts, on_match, ctx);
    hay_run r = { .ask = HAY_ASK_LIST, .fn = on_match, .ctx = ctx };
    return buffer_ask(set, scratch, buf, opts, &r);
}

hay_status hay_scan_buffer_batch(const hay_patterns *set, hay_scratch *scratch,
                                 const hay_buffer *buf, const hay_scan_opts *opts,
                                 hay_batch_fn on_batch, void *ctx)
{
    RETURN_ERROR_IF(!on_batch || !set || !scratch || !buf, HAY_ERR_INVALID);
    if (!buf->ops)
        return hay_scan_batch(set, scratch, buf->host, buf->len, opts, on_batch, ctx);
    hay_run r = { .ask = HAY_ASK_LIST, .batch = on_batch, .ctx = ctx };
    return buffer_ask(set, scratch, buf, opts, &r);
}

hay_status hay_scan_buffer_list(const hay_patterns *set, hay_scratch *scratch,
                                const hay_buffer *buf, uint64_t from,
                                const hay_scan_opts *opts, hay_match_list *list)
{
    if (!buf)   /* the checks of hay_fill_list, which sets n and done */
        return hay_fill_list(set, scratch, NULL, NULL, 1, from, opts, list);
    if (!buf->ops)
        return hay_scan_list(set, scratch, buf->host, buf->len, from, opts, list);
    return hay_fill_list(set, scratch, NULL, buf->dev, buf->len, from, opts, list);
}

hay_status hay_scan_count_buffer(const hay_patterns *set, hay_scratch *scratch,
                                 const hay_buffer *buf,
                                 const hay_scan_opts *opts, uint64_t *count)
{
    RETURN_ERROR_IF(!count, HAY_ERR_INVALID);
    *count = 0;
    RETURN_ERROR_IF(!set || !scratch || !buf, HAY_ERR_INVALID);
    if (!buf->ops)
        return hay_scan_count(set, scratch, buf->host, buf->len, opts, count);
    hay_run r = { .ask = HAY_ASK_COUNT, .count = count };
    return buffer_ask(set, scratch, buf, opts, &r);
}

hay_status hay_scan_count_each_buffer(const hay_patterns *set,
                                      hay_scratch *scratch,
                                      const hay_buffer *buf,
                                      const hay_scan_opts *opts,
                                      uint64_t *counts)
{
    RETURN_ERROR_IF(!counts || !set || !scratch || !buf, HAY_ERR_INVALID);
    if (!buf->ops)
        return hay_scan_count_each(set, scratch, buf->host, buf->len, opts, counts);
    memset(counts, 0, set->n * sizeof *counts);
    hay_run r = { .ask = HAY_ASK_EACH, .counts = counts };
    return buffer_ask(set, scratch, buf, opts, &r);
}

hay_status hay_scan_marks_buffer(const hay_patterns *set, hay_scratch *scratch,
                                 const hay_buffer *buf, const hay_scan_opts *opts,
                                 uint64_t *marks)
{
    RETURN_ERROR_IF(!marks || !set || !scratch || !buf, HAY_ERR_INVALID);
    if (!buf->ops)
        return hay_scan_marks(set, scratch, buf->host, buf->len, opts, marks);
    RETURN_ERROR_IF(buf->len > SIZE_MAX - 63, HAY_ERR_TOO_LARGE);
    hay_run r = { .ask = HAY_ASK_MARK, .marks = marks };
    return buffer_ask(set, scratch, buf, opts, &r);
}

hay_status hay_scan_first_buffer(const hay_patterns *set, hay_scratch *scratch,
                                 const hay_buffer *buf, const hay_scan_opts *opts,
                                 hay_match *first)
{
    RETURN_ERROR_IF(!first, HAY_ERR_INVALID);
    memset(first, 0, sizeof *first);
    RETURN_ERROR_IF(!set || !scratch || !buf, HAY_ERR_INVALID);
    if (!buf->ops)
        return hay_scan_first(set, scratch, buf->host, buf->len, opts, first);
    hay_run r = { .ask = HAY_ASK_FIRST, .first = first };
    return buffer_ask(set, scratch, buf, opts, &r);
}
