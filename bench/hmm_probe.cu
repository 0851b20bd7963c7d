// hmm_probe.cu - can a kernel read a file's page-cache mapping directly,
// with no copy and no registration (HMM: the driver maps pageable host
// memory into the GPU on the GPU's own page faults)?  The third way, after
// pinned staging and cudaHostRegister (docs/PERF.md "Pinning the page
// cache in place"), for the CPU+GPU split.
//
//   hmm_probe FILE
//
// Says whether the device reports pageable memory access; if so maps FILE
// (MAP_SHARED), and times a kernel that reads every byte of the mapping
// (counting one byte value, so the reads are used): the first pass (GPU
// page faults) and two more.  Checks the count against the CPU's.  Exits
// 77 without a GPU, 0 with the figures (or "not supported").
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

__global__ void count_byte(const uint4 *p, size_t nvec, unsigned char b,
                           unsigned long long *out)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        unsigned w[4] = { v.x, v.y, v.z, v.w };
        for (int k = 0; k < 4; k++)
            for (int s = 0; s < 32; s += 8)
                c += ((w[k] >> s) & 0xff) == b;
    }
    atomicAdd(out, c);
}

static double now()
{
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hmm_probe FILE\n");
        return 2;
    }
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("hmm_probe: no usable GPU\n");
        return 77;
    }
    int pageable = 0, via_host = 0, concurrent = 0;
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
    cudaDeviceGetAttribute(&via_host, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
    cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0);
    printf("pageableMemoryAccess=%d usesHostPageTables=%d concurrentManagedAccess=%d\n",
           pageable, via_host, concurrent);
    if (!pageable) {
        printf("hmm_probe: the device cannot read pageable memory (no HMM here)\n");
        return 0;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 16) {
        fprintf(stderr, "hmm_probe: %s: cannot read\n", argv[1]);
        return 2;
    }
    size_t len = (size_t)st.st_size / 16 * 16;
    const unsigned char *m =
        (const unsigned char *)mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        perror("hmm_probe: mmap");
        return 2;
    }
    unsigned long long want = 0;
    for (size_t i = 0; i < len; i++)
        want += m[i] == 'e';
    unsigned long long *d_c = NULL, got = 0;
    cudaMalloc(&d_c, sizeof *d_c);
    for (int pass = 0; pass < 3; pass++) {
        cudaMemset(d_c, 0, sizeof *d_c);
        cudaDeviceSynchronize();
        double t0 = now();
        count_byte<<<132 * 8, 256>>>((const uint4 *)m, len / 16, 'e', d_c);
        cudaError_t e = cudaDeviceSynchronize();
        double t = now() - t0;
        cudaMemcpy(&got, d_c, sizeof got, cudaMemcpyDeviceToHost);
        printf("pass %d: %s, %.1f ms, %.2f GB/s, count %llu (CPU %llu)%s\n", pass,
               cudaGetErrorString(e), t * 1e3, len / t / 1e9, got, want,
               got == want ? "" : "  MISMATCH");
        if (e != cudaSuccess)
            return 1;
    }
    munmap((void *)m, len);
    close(fd);
    return 0;
}
