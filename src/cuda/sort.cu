// sort.cu - the CUB radix sort of match keys (cuda_engine.h HAY_CUDA_MATCH:
// end above, id below), behind one C entry point for the driver.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <stddef.h>

// Sorts n keys of `in` into `out` by bits [0, end_bit).  With d_temp NULL
// only sets *temp_bytes.  Returns a cudaError_t as int (0 on success).
extern "C" int hay_cuda_sort_keys(void *d_temp, size_t *temp_bytes,
                                  const unsigned long long *in,
                                  unsigned long long *out, size_t n,
                                  int end_bit, void *stream)
{
    cudaError_t e = cub::DeviceRadixSort::SortKeys(
        d_temp, *temp_bytes, in, out, (long long)n, 0, end_bit,
        (cudaStream_t)stream);
    return (int)e;
}
