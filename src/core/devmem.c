/*
 * devmem.c - the pointer queries of devmem.h through the CUDA driver API,
 * looked up in the process (dlopen RTLD_NOLOAD) and never loaded here.
 * The enum values are the driver API's (cuda.h), stable across releases.
 */
#include "devmem.h"

#include <dlfcn.h>
#include <pthread.h>

enum {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2
};

typedef int (*attr_fn)(void *data, int attribute, unsigned long long ptr);
typedef int (*htod_fn)(unsigned long long dst, const void *src, size_t n);
typedef int (*sync_fn)(void *stream);

typedef struct driver {
    attr_fn attr;
    htod_fn htod;
    sync_fn sync;
} driver;

/* The driver's functions, looked up until it is found loaded (then kept:
 * a loaded driver is not unloaded while device pointers exist). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static driver drv;

static const driver *driver_get(void)
{
    pthread_mutex_lock(&lock);
    if (!drv.attr) {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (lib) {
            drv.htod = (htod_fn)dlsym(lib, "cuMemcpyHtoD_v2");
            drv.sync = (sync_fn)dlsym(lib, "cuStreamSynchronize");
            drv.attr = (attr_fn)dlsym(lib, "cuPointerGetAttribute");
        }
    }
    const driver *d = drv.attr && drv.htod && drv.sync ? &drv : NULL;
    pthread_mutex_unlock(&lock);
    return d;
}

hay_mem hay_devmem_kind(const void *p, int *device)
{
    if (device)
        *device = -1;
    const driver *d = p ? driver_get() : NULL;
    unsigned type = 0, managed = 0;
    int ordinal = -1;
    /* Pageable memory the driver does not know, or a driver not yet
     * initialised: an error, so host memory. */
    if (!d || d->attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (uintptr_t)p) != 0)
        return HAY_MEM_HOST;
    if (d->attr(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (uintptr_t)p) == 0 && managed)
        return HAY_MEM_HOST;
    if (type == CU_MEMORYTYPE_HOST)
        return HAY_MEM_PINNED;
    if (type != CU_MEMORYTYPE_DEVICE)
        return HAY_MEM_HOST;
    if (d->attr(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (uintptr_t)p) == 0 && device)
        *device = ordinal;
    return HAY_MEM_DEVICE;
}

hay_status hay_devmem_put(void *d_dst, const void *src, size_t n)
{
    const driver *d = driver_get();
    RETURN_ERROR_IF(!d, HAY_ERR_DEVICE);
    return d->htod((uintptr_t)d_dst, src, n) == 0 ? HAY_OK : HAY_ERR_DEVICE;
}

hay_status hay_devmem_sync(void)
{
    const driver *d = driver_get();
    RETURN_ERROR_IF(!d, HAY_ERR_DEVICE);
    return d->sync(NULL) == 0 ? HAY_OK : HAY_ERR_DEVICE;
}
