/*
 * list_alloc.c - hay_match_list_alloc and hay_match_list_free: the arrays
 * of a match list in one allocation, page-locked where a CUDA device will
 * fill them (haystack.h).
 *
 * The block: a header of HEAD bytes (how it was made, so that free needs
 * no driver call), then ids, starts and ends, each at a multiple of 64
 * bytes (no two arrays share a cache line; the device's DMA writes whole
 * lines).
 */
#include "internal.h"
#include "../cuda/pinned.h"

#include <stdlib.h>

enum { HEAD = 64, LINE = 64 };
#define MAGIC 0x6861796c69737431ull   /* "haylist1" */

typedef struct head {
    uint64_t magic;
    int pinned;
    void *base;
} head;

static size_t up(size_t x)
{
    return (x + LINE - 1) / LINE * LINE;
}

hay_status hay_match_list_alloc(hay_backend backend, size_t cap, unsigned flags,
                                hay_match_list *list)
{
    RETURN_ERROR_IF(!list, HAY_ERR_INVALID);
    memset(list, 0, sizeof *list);
    RETURN_ERROR_IF(cap == 0 || (flags & ~(HAY_LIST_STARTS | HAY_LIST_ENDS)),
                    HAY_ERR_INVALID);
    RETURN_ERROR_IF(cap > (SIZE_MAX - 4 * HEAD) / 20, HAY_ERR_NOMEM);
    size_t ids = up(cap * sizeof(uint32_t)), wide = up(cap * sizeof(uint64_t));
    size_t bytes = HEAD + ids + (flags & HAY_LIST_STARTS ? wide : 0) +
                   (flags & HAY_LIST_ENDS ? wide : 0) + LINE;   /* LINE: to align */
    void *base = NULL;
    bool pinned = (backend == HAY_BACKEND_CUDA || backend == HAY_BACKEND_AUTO) &&
                  hay_cuda_pinned_alloc(bytes, &base) == HAY_OK;
    if (!pinned)
        base = malloc(bytes);
    RETURN_ERROR_IF(!base, HAY_ERR_NOMEM);
    uint8_t *p = (uint8_t *)(((uintptr_t)base + HEAD + LINE - 1) / LINE * LINE);
    head *h = (head *)(p - HEAD);
    *h = (head){ MAGIC, pinned, base };
    list->ids = (uint32_t *)p;
    p += ids;
    if (flags & HAY_LIST_STARTS) {
        list->starts = (uint64_t *)p;
        p += wide;
    }
    if (flags & HAY_LIST_ENDS)
        list->ends = (uint64_t *)p;
    list->cap = cap;
    return HAY_OK;
}

void hay_match_list_free(hay_match_list *list)
{
    if (!list || !list->ids)
        return;
    head *h = (head *)((uint8_t *)list->ids - HEAD);
    if (h->magic == MAGIC) {
        h->magic = 0;
        if (h->pinned)
            hay_cuda_pinned_free(h->base);
        else
            free(h->base);
    }
    memset(list, 0, sizeof *list);
}
