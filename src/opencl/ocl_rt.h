/*
 * ocl_rt.h - what the OpenCL search backend (opencl_backend.c, ocl_scan.c)
 * and the OpenCL Smith-Waterman (ocl_sw.c) share: device choice, one
 * context and one built program per device and program (the paper's
 * "initialization" phase, paid once per process and, through the on-disk
 * binary cache, mostly once per machine), the mapping of OpenCL errors to
 * statuses, and "key=value" parameter lists.
 */
#ifndef HAY_OCL_RT_H
#define HAY_OCL_RT_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "../core/internal.h"

/* The programs, one per embedded .cl file. */
enum { HAY_OCL_PROG_SEARCH = 0, HAY_OCL_PROG_SW = 1, HAY_OCL_NPROGS = 2 };

/* A device in use: its context and programs live until the process ends
 * (like a CUDA primary context), so later pattern sets and alignments do
 * not pay for them again. */
typedef struct hay_ocl_dev {
    int index;                 /* flat index, as `hay devices` lists it */
    int platform, device;      /* P:D */
    cl_platform_id pid;
    cl_device_id did;
    cl_context ctx;
    cl_program prog[HAY_OCL_NPROGS];
    char name[256], vendor[128], version[128], driver[128];
    cl_ulong max_alloc, global_mem, local_mem;
    size_t max_wg;
    cl_uint units;
    int unified;               /* host-unified memory (CL_DEVICE_HOST_UNIFIED_MEMORY) */
    int nvidia;
    int pci_domain, pci_bus;   /* NVIDIA: the PCI location (for NVML), else -1 */
} hay_ocl_dev;

/* OpenCL error code -> hay_status. */
hay_status hay_ocl_status(cl_int err);
/* Whether an error means "out of device memory" (try smaller pieces). */
int hay_ocl_is_oom(cl_int err);

/* Number of devices of all platforms. */
int hay_ocl_device_count(void);
/* A one-line description of device `index`. */
hay_status hay_ocl_describe(int index, char *buf, size_t cap);

/*
 * The device selected by `spec` ("P:D" platform and device, or "N" the
 * flat index; NULL: $HAY_OPENCL_DEVICE, else the first GPU, else device 0),
 * with its context and program `prog` ready.  *init_seconds is the time
 * this call spent creating the context and building or loading the program
 * (0 when an earlier call did).  use_cache = 0 bypasses the on-disk binary
 * cache.  Thread-safe.
 */
hay_status hay_ocl_open(const char *spec, int prog, int use_cache,
                        hay_ocl_dev **out, double *init_seconds);

/* Resolves a spec as hay_ocl_open() does, without opening anything: is
 * it an NVIDIA device, and where on the PCI bus (-1: unknown). */
hay_status hay_ocl_peek(const char *spec, int *nvidia, int *pci_domain,
                        int *pci_bus);

/* The energy meter of the NVIDIA GPU at (pci_domain, pci_bus), opened
 * once per process and kept (NVML's start-up costs tens of milliseconds);
 * NULL when unavailable.  See src/core/energy.h. */
struct hay_energy *hay_ocl_meter(int pci_domain, int pci_bus);

/* Where compiled programs are cached: $HAY_CACHE_DIR, else
 * $XDG_CACHE_HOME/haystack, else $HOME/.cache/haystack ("" if none). */
void hay_ocl_cache_dir(char *buf, size_t cap);

/* Allocation of device buffers, mapping errors. */
hay_status hay_ocl_buffer(const hay_ocl_dev *d, cl_mem_flags flags,
                          size_t size, cl_mem *out, cl_int *err);

#endif
