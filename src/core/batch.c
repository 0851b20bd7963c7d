/*
 * batch.c - matches delivered in arrays (hay_batch_fn, haystack.h).
 *
 * Every backend reports matches through a hay_match_fn; a batched scan
 * gives them hay_batch_match with a hay_batcher as ctx, which appends to
 * an array of HAY_BATCH_MAX and hands it to the caller's hay_batch_fn when
 * it is full (and, from the core, at the end of the scan or stream write).
 * A delivery loop that holds an array of ordered matches (the CPU chunk
 * replay, the GPU drivers' sorted lists, the split's pieces) asks
 * hay_batcher_of() and, when it gets one, writes into the array with
 * hay_batch_put() instead of one indirect call per match, or hands its own
 * array of records over with hay_batch_give() (the CUDA list, list.c).
 */
#include "internal.h"

_Static_assert(sizeof(hay_match) == 24, "hay_match is documented as 24 bytes");
_Static_assert(_Alignof(hay_match) == 8, "hay_match is documented as 8-byte aligned");

int hay_batch_flush(hay_batcher *b)
{
    if (b->stopped) {
        b->n = 0;
        return 1;
    }
    if (b->n == 0)
        return 0;
    size_t n = b->n;
    b->n = 0;
    b->flushed += n;
    if (b->fn(b->m, n, b->ctx)) {
        b->stopped = true;
        return 1;
    }
    return 0;
}

int hay_batch_give(hay_batcher *b, const hay_match *m, size_t n)
{
    if (hay_batch_flush(b))
        return 1;
    for (size_t k = 0; k < n;) {
        size_t take = n - k < HAY_BATCH_MAX ? n - k : HAY_BATCH_MAX;
        b->flushed += take;
        if (b->fn(m + k, take, b->ctx)) {
            b->stopped = true;
            return 1;
        }
        k += take;
    }
    return 0;
}

int hay_batch_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    return hay_batch_put(ctx, id, start, end);
}

hay_status hay_batcher_init(hay_batcher *b, const hay_allocator *a, hay_match **keep,
                            hay_batch_fn fn, void *ctx)
{
    if (!*keep)
        *keep = hay_malloc(a, HAY_BATCH_MAX * sizeof **keep);
    RETURN_ERROR_IF(!*keep, HAY_ERR_NOMEM);
    b->fn = fn;
    b->ctx = ctx;
    b->m = *keep;
    b->n = 0;
    b->stopped = false;
    b->flushed = 0;
    return HAY_OK;
}
