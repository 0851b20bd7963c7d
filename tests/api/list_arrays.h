/*
 * list_arrays.h - what list.c needs for arrays other than malloc'd ones:
 * hay_match_list_alloc's arrays and its own checks, and device memory
 * through the CUDA driver API (loaded here with dlopen, so that the test
 * links no CUDA library and runs, skipping those rows, without one).
 */
#ifndef HAY_TEST_LIST_ARRAYS_H
#define HAY_TEST_LIST_ARRAYS_H

#include "testutil.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The driver API's functions used here (cuda.h names, _v2 where versioned). */
typedef struct cu_api {
    int (*init)(unsigned);
    int (*device_get)(int *, int);
    int (*primary_retain)(void **, int);
    int (*set_current)(void *);
    int (*alloc)(unsigned long long *, size_t);
    int (*release)(unsigned long long);
    int (*to_host)(void *, unsigned long long, size_t);
    int (*attr)(void *, int, unsigned long long);
    bool ready;
} cu_api;

static cu_api cu;

/* The driver with the primary context of device 0 current on this thread
 * (the one the library's CUDA sets use by default); false without one. */
static bool cu_ready(void)
{
    if (cu.ready)
        return true;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    cu.init = (int (*)(unsigned))dlsym(lib, "cuInit");
    cu.device_get = (int (*)(int *, int))dlsym(lib, "cuDeviceGet");
    cu.primary_retain = (int (*)(void **, int))dlsym(lib, "cuDevicePrimaryCtxRetain");
    cu.set_current = (int (*)(void *))dlsym(lib, "cuCtxSetCurrent");
    cu.alloc = (int (*)(unsigned long long *, size_t))dlsym(lib, "cuMemAlloc_v2");
    cu.release = (int (*)(unsigned long long))dlsym(lib, "cuMemFree_v2");
    cu.to_host = (int (*)(void *, unsigned long long, size_t))dlsym(lib, "cuMemcpyDtoH_v2");
    cu.attr = (int (*)(void *, int, unsigned long long))dlsym(lib, "cuPointerGetAttribute");
    int dev = 0;
    void *ctx = NULL;
    cu.ready = cu.init && cu.device_get && cu.primary_retain && cu.set_current && cu.alloc &&
               cu.release && cu.to_host && cu.attr && cu.init(0) == 0 &&
               cu.device_get(&dev, 0) == 0 && cu.primary_retain(&ctx, dev) == 0 &&
               cu.set_current(ctx) == 0;
    return cu.ready;
}

static void *cu_alloc(size_t bytes)
{
    unsigned long long p = 0;
    return cu_ready() && cu.alloc(&p, bytes) == 0 ? (void *)(uintptr_t)p : NULL;
}

static void cu_free(void *p)
{
    if (p && cu.ready)
        cu.release((uintptr_t)p);
}

static bool cu_get(void *dst, const void *d_src, size_t bytes)
{
    return bytes == 0 || (cu.ready && cu.to_host(dst, (uintptr_t)d_src, bytes) == 0);
}

/* Page-locked host memory, as the driver sees it
 * (CU_POINTER_ATTRIBUTE_MEMORY_TYPE == CU_MEMORYTYPE_HOST). */
static bool cu_pinned(const void *p)
{
    unsigned type = 0;
    return cu_ready() && cu.attr(&type, 2, (uintptr_t)p) == 0 && type == 1;
}

/* hay_match_list_alloc's promises for one backend: the arrays asked for
 * (64-byte aligned, writable, cap entries), none other, bad arguments
 * refused with the list zeroed, free zeroing the list and taking NULL;
 * pinned: the arrays must be page-locked (a CUDA device is there). */
static void alloc_api(hay_backend b, bool pinned)
{
    for (unsigned flags = 0; flags < 4; flags++) {
        hay_match_list l;
        memset(&l, 0x55, sizeof l);
        size_t cap = 1000 + flags;
        hay_status s = hay_match_list_alloc(b, cap, flags, &l);
        if (!CHECK(s == HAY_OK, "alloc flags %u: %s", flags, hay_strerror(s)))
            continue;
        bool st = flags & HAY_LIST_STARTS, en = flags & HAY_LIST_ENDS;
        CHECK(l.ids && !((uintptr_t)l.ids % 64) && !st == !l.starts && !en == !l.ends &&
                  (!l.starts || !((uintptr_t)l.starts % 64)) &&
                  (!l.ends || !((uintptr_t)l.ends % 64)) && l.cap == cap && l.n == 0 &&
                  l.done == 0,
              "alloc flags %u: ids %p starts %p ends %p cap %zu n %zu", flags, (void *)l.ids,
              (void *)l.starts, (void *)l.ends, l.cap, l.n);
        /* Every entry writable, the arrays apart. */
        for (size_t i = 0; i < cap; i++) {
            l.ids[i] = (uint32_t)i;
            if (l.starts)
                l.starts[i] = i;
            if (l.ends)
                l.ends[i] = i + 1;
        }
        bool apart = true;
        for (size_t i = 0; i < cap; i++)
            apart &= l.ids[i] == i && (!l.starts || l.starts[i] == i) &&
                     (!l.ends || l.ends[i] == i + 1);
        CHECK(apart, "alloc flags %u: the arrays overlap", flags);
        if (pinned)
            CHECK(cu_pinned(l.ids) && (!l.ends || cu_pinned(l.ends)),
                  "alloc on a CUDA backend: the arrays are not page-locked");
        hay_match_list_free(&l);
        CHECK(!l.ids && !l.starts && !l.ends && l.cap == 0, "free: the list not zeroed");
        hay_match_list_free(&l);   /* ids NULL: nothing */
    }
    hay_match_list_free(NULL);
    hay_match_list l;
    memset(&l, 0x55, sizeof l);
    CHECK_ST(hay_match_list_alloc(b, 0, 0, &l), HAY_ERR_INVALID, "alloc cap 0");
    CHECK(!l.ids && l.cap == 0, "alloc cap 0: the list not zeroed");
    CHECK_ST(hay_match_list_alloc(b, 8, 4, &l), HAY_ERR_INVALID, "alloc flags 4");
    CHECK_ST(hay_match_list_alloc(b, 8, 0, NULL), HAY_ERR_INVALID, "alloc no list");
    CHECK_ST(hay_match_list_alloc(b, SIZE_MAX / 2, 3, &l), HAY_ERR_NOMEM, "alloc SIZE_MAX/2");
}

#endif
