/*
 * list_fold.h - what cuda_pfac_bench does with every match of a list, the
 * same for every way the list is delivered (per match, batches, the
 * caller's arrays: list_arrays.c): count it, fold it into a checksum
 * (order-free: the same for any order) and check that ends never decrease.
 */
#ifndef HAY_BENCH_LIST_FOLD_H
#define HAY_BENCH_LIST_FOLD_H

#include <stdint.h>

typedef struct fold {
    uint64_t n, sum, last_end;
    int order_bad;
} fold;

static inline void fold_one(fold *f, uint32_t id, uint64_t s, uint64_t e)
{
    f->order_bad |= e < f->last_end;
    f->last_end = e;
    f->sum += e * 0x9E3779B97F4A7C15ull + s * 0xC2B2AE3D27D4EB4Full + id;
}

#endif
