/*
 * cuda_backend.c - the CUDA entry in the backend table.  This version
 * discovers devices; its search engines are not written yet, so compiling a
 * pattern set for it reports HAY_ERR_UNSUPPORTED after the device check.
 */
#include "../core/internal.h"

#ifdef HAY_HAVE_CUDA
int hay_cuda_device_count(void);
int hay_cuda_device_name(int dev, char *buf, size_t cap);

static hay_status cuda_available(void)
{
    return hay_cuda_device_count() > 0 ? HAY_OK : HAY_ERR_NO_DEVICE;
}
static int cuda_device_count(void) { return hay_cuda_device_count(); }
static hay_status cuda_describe(int index, char *buf, size_t cap)
{
    return hay_cuda_device_name(index, buf, cap) == 0 ? HAY_OK : HAY_ERR_DEVICE;
}
#else
static hay_status cuda_available(void) { return HAY_ERR_NO_BACKEND; }
static int cuda_device_count(void) { return 0; }
static hay_status cuda_describe(int index, char *buf, size_t cap)
{
    (void)index; (void)buf; (void)cap;
    return HAY_ERR_NO_BACKEND;
}
#endif

static const char *const cuda_algos[] = { NULL };

static hay_status cuda_compile(hay_patterns *set, const char *algo)
{
    (void)set; (void)algo;
    return HAY_ERR_UNSUPPORTED;
}

const hay_backend_ops hay_cuda_backend = {
    HAY_BACKEND_CUDA, "cuda", cuda_available, cuda_device_count, cuda_describe,
    cuda_algos,
    cuda_compile, NULL, NULL, NULL, NULL,
};
