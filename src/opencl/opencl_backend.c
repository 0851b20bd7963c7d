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

#include <stdio.h>

#define MAX_DEVICES 64

/* All devices of all platforms, in platform order. */
static int list_devices(cl_device_id *out, int cap)
{
    cl_uint np = 0;
    cl_platform_id ids[16];
    if (clGetPlatformIDs(16, ids, &np) != CL_SUCCESS)
        return 0;
    if (np > 16)
        np = 16;
    int n = 0;
    for (cl_uint i = 0; i < np && n < cap; i++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, (cl_uint)(cap - n),
                           out + n, &nd) == CL_SUCCESS)
            n += (int)(nd < (cl_uint)(cap - n) ? nd : (cl_uint)(cap - n));
    }
    return n;
}

static int opencl_device_count(void)
{
    cl_device_id d[MAX_DEVICES];
    return list_devices(d, MAX_DEVICES);
}

static hay_status opencl_available(void)
{
    return opencl_device_count() > 0 ? HAY_OK : HAY_ERR_NO_DEVICE;
}

static hay_status opencl_describe(int index, char *buf, size_t cap)
{
    cl_device_id d[MAX_DEVICES];
    int n = list_devices(d, MAX_DEVICES);
    RETURN_ERROR_IF(index >= n, HAY_ERR_INVALID);
    char name[256] = "", version[256] = "";
    cl_uint units = 0;
    clGetDeviceInfo(d[index], CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(d[index], CL_DEVICE_VERSION, sizeof version, version, NULL);
    clGetDeviceInfo(d[index], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    snprintf(buf, cap, "%s (%s, %u compute units)", name, version, units);
    return HAY_OK;
}
#else
static hay_status opencl_available(void) { return HAY_ERR_NO_BACKEND; }
static int opencl_device_count(void) { return 0; }
static hay_status opencl_describe(int index, char *buf, size_t cap)
{
    (void)index; (void)buf; (void)cap;
    return HAY_ERR_NO_BACKEND;
}
#endif

static const char *const opencl_algos[] = { NULL };

static hay_status opencl_compile(hay_patterns *set, const char *algo)
{
    (void)set; (void)algo;
    return HAY_ERR_UNSUPPORTED;
}

const hay_backend_ops hay_opencl_backend = {
    HAY_BACKEND_OPENCL, "opencl", opencl_available, opencl_device_count,
    opencl_describe, opencl_algos,
    opencl_compile, NULL, NULL, NULL, NULL,
};
