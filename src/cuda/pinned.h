/*
 * pinned.h - page-locked host memory from the CUDA runtime for
 * hay_match_list_alloc (src/core/list_alloc.c): portable (every context
 * may copy into it) and mapped (kernels may store into it), on the default
 * device's context.  Builds without
 * CUDA get HAY_ERR_NO_BACKEND.
 */
#ifndef HAY_CUDA_PINNED_H
#define HAY_CUDA_PINNED_H

#include "../core/internal.h"

hay_status hay_cuda_pinned_alloc(size_t bytes, void **out);
void hay_cuda_pinned_free(void *p);

#endif
