/*
 * devmem.h - where the caller's memory lives, asked of the CUDA driver
 * when one is loaded in the process (devmem.c).
 *
 * hay_scan_list's arrays may be device memory (the caller's cudaMalloc'd
 * pointers) or page-locked host memory (hay_match_list_alloc, or any
 * cudaHostAlloc'd or registered pages).  A device pointer exists only in
 * a process where the CUDA driver (libcuda.so.1) is loaded and
 * initialised, so the driver is looked up with RTLD_NOLOAD: a process
 * without it pays nothing and every pointer is ordinary host memory.  Core
 * code (fill.c) uses it on every backend, so that the CPU backend refuses
 * device arrays instead of writing through them.
 */
#ifndef HAY_DEVMEM_H
#define HAY_DEVMEM_H

#include "internal.h"

typedef enum hay_mem {
    HAY_MEM_HOST = 0,     /* ordinary (pageable) or managed memory: the host writes it */
    HAY_MEM_PINNED = 1,   /* page-locked host memory the driver knows */
    HAY_MEM_DEVICE = 2    /* device memory: the host cannot write it */
} hay_mem;

/* Where p lives; *device (may be NULL) is the device of device memory. */
hay_mem hay_devmem_kind(const void *p, int *device);

/* Copies n bytes of host memory into device memory (the thread's current
 * context must reach it); the copy may still land after the call returns
 * until hay_devmem_sync. */
hay_status hay_devmem_put(void *d_dst, const void *src, size_t n);

/* Waits for the copies of hay_devmem_put. */
hay_status hay_devmem_sync(void);

#endif
