/*
 * opencl_backend.c - the OpenCL entry in the backend table.  This version
 * discovers platforms and devices through the ICD loader; its kernels are
 * not written yet, so compiling a pattern set for it reports
 * HAY_ERR_UNSUPPORTED after the device check.
 */
#include "../core/internal.h"

#ifdef HAY_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

static hay_status opencl_available(void)
{
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
        return HAY_ERR_NO_DEVICE;
    cl_platform_id ids[16];
    if (np > 16)
        np = 16;
    if (clGetPlatformIDs(np, ids, NULL) != CL_SUCCESS)
        return HAY_ERR_NO_DEVICE;
    for (cl_uint i = 0; i < np; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS && nd)
            return HAY_OK;
    }
    return HAY_ERR_NO_DEVICE;
}
#else
static hay_status opencl_available(void) { return HAY_ERR_NO_BACKEND; }
#endif

static const char *const opencl_algos[] = { NULL };

static hay_status opencl_compile(hay_patterns *set, const char *algo)
{
    (void)set; (void)algo;
    return HAY_ERR_UNSUPPORTED;
}

const hay_backend_ops hay_opencl_backend = {
    HAY_BACKEND_OPENCL, "opencl", opencl_available, opencl_algos,
    opencl_compile, NULL, NULL, NULL,
};
