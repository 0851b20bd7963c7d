// probe.cu - CUDA device discovery for the backend table.  Only C entry
// points leave this file; every CUDA error becomes a return value.
#include <cuda_runtime.h>

#include <stdio.h>

extern "C" int hay_cuda_status(int cuda_error)
{
    cudaError_t e = (cudaError_t)cuda_error;
    if (e == cudaSuccess)
        return 0;
    cudaGetLastError();
    switch (e) {
    case cudaErrorMemoryAllocation: return -1;        // HAY_ERR_NOMEM
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: return -5;           // HAY_ERR_NO_DEVICE
    case cudaErrorCooperativeLaunchTooLarge: return -2;   // HAY_ERR_INVALID
    default: return -6;                               // HAY_ERR_DEVICE
    }
}

extern "C" int hay_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error left by a missing driver
        return 0;
    }
    return n;
}

extern "C" int hay_cuda_device_name(int dev, char *buf, size_t cap)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess)
        return -1;
    snprintf(buf, cap, "%s (sm_%d%d, %d SMs, %.1f GiB)", p.name, p.major,
             p.minor, p.multiProcessorCount,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return 0;
}
