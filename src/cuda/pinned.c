/*
 * pinned.c - page-locked host memory (pinned.h).
 */
#include "pinned.h"

#ifdef HAY_HAVE_CUDA
#include "driver.h"

hay_status hay_cuda_pinned_alloc(size_t bytes, void **out)
{
    *out = NULL;
    RETURN_ERROR_IF(hay_cuda_devices() <= 0, HAY_ERR_NO_DEVICE);
    int dev = hay_cuda_default_device();
    RETURN_ERROR_IF(dev < 0, HAY_ERR_NO_DEVICE);
    FORWARD_IF_ERROR(hay_cuda_ctx_enter(dev, NULL));
    return cuda_status(cudaHostAlloc(out, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
}

void hay_cuda_pinned_free(void *p)
{
    cudaFreeHost(p);
    cudaGetLastError();
}

#else

hay_status hay_cuda_pinned_alloc(size_t bytes, void **out)
{
    (void)bytes;
    *out = NULL;
    return HAY_ERR_NO_BACKEND;
}

void hay_cuda_pinned_free(void *p)
{
    (void)p;
}

#endif
