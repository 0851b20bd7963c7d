/*
 * ocl_rt.c - OpenCL devices, contexts, programs and the on-disk binary
 * cache; see ocl_rt.h.
 *
 * Contexts and programs are kept per device for the life of the process in
 * a small table guarded by a mutex: the one piece of process-wide state in
 * the library, for the same reason a CUDA runtime keeps a primary context
 * per device.  Building a program from source costs from tens of
 * milliseconds to seconds, so the built binary is also written to the
 * cache directory, under a key made of everything that can change it
 * (platform, device, driver, the kernel source, the build options); a
 * later process loads it instead.  A cache that cannot be read or written
 * is skipped, never an error.
 *
 * A cache file is CACHE_MAGIC, the key and a NUL, the binary's length and
 * a 64-bit FNV-1a checksum of all that and the binary (8 bytes each,
 * little-endian), then the binary.  An entry whose length or checksum
 * does not hold (a truncated file, flipped bits) is never handed to the
 * driver, whose loader trusts it (PoCL asserts or crashes on one): the
 * program is built from source and the entry rewritten, as a new file
 * renamed over the old one, so that readers never see half of it.
 */
#include "ocl_rt.h"
#include "ocl_kernels.h"   /* generated: the .cl files as strings */
#include "../core/energy.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64
#define BUILD_OPTIONS "-cl-std=CL1.2"
#define CACHE_MAGIC "haystack-opencl-binary-2\n"
#define FNV_BASIS 1469598103934665603ull

/* Not in the 1.2 headers everywhere: cl_nv_device_attribute_query. */
#define HAY_CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define HAY_CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A

static const char *const prog_src[HAY_OCL_NPROGS] = { hay_ocl_search_cl,
                                                      hay_ocl_sw_cl };

hay_status hay_ocl_status(cl_int err)
{
    switch (err) {
    case CL_SUCCESS: return HAY_OK;
    case CL_OUT_OF_HOST_MEMORY: return HAY_ERR_NOMEM;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES: return HAY_ERR_NOMEM;
    case CL_INVALID_BUFFER_SIZE: return HAY_ERR_TOO_LARGE;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001:   /* CL_PLATFORM_NOT_FOUND_KHR: no ICD installed */
        return HAY_ERR_NO_DEVICE;
    default: return HAY_ERR_DEVICE;
    }
}

int hay_ocl_is_oom(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
           err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
}

/* Devices ----------------------------------------------------------------- */

typedef struct dev_ref {
    cl_platform_id pid;
    cl_device_id did;
    int platform, device;
} dev_ref;

static int list_devices(dev_ref *out, int cap)
{
    cl_uint np = 0;
    cl_platform_id ids[MAX_PLATFORMS];
    if (clGetPlatformIDs(MAX_PLATFORMS, ids, &np) != CL_SUCCESS)
        return 0;
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    int n = 0;
    for (cl_uint i = 0; i < np && n < cap; i++) {
        cl_device_id d[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, MAX_DEVICES, d, &nd) != CL_SUCCESS)
            continue;
        if (nd > MAX_DEVICES)
            nd = MAX_DEVICES;
        for (cl_uint k = 0; k < nd && n < cap; k++)
            out[n++] = (dev_ref){ ids[i], d[k], (int)i, (int)k };
    }
    return n;
}

int hay_ocl_device_count(void)
{
    dev_ref d[MAX_DEVICES];
    return list_devices(d, MAX_DEVICES);
}

hay_status hay_ocl_describe(int index, char *buf, size_t cap)
{
    dev_ref d[MAX_DEVICES];
    int n = list_devices(d, MAX_DEVICES);
    RETURN_ERROR_IF(index < 0 || index >= n, HAY_ERR_INVALID);
    char name[256] = "", version[256] = "", driver[128] = "";
    cl_uint units = 0;
    cl_ulong mem = 0;
    clGetDeviceInfo(d[index].did, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(d[index].did, CL_DEVICE_VERSION, sizeof version, version, NULL);
    clGetDeviceInfo(d[index].did, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetDeviceInfo(d[index].did, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(d[index].did, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    snprintf(buf, cap, "%s (%s, driver %s, %u compute units, %.1f GiB; device=%d:%d)",
             name, version, driver, units, (double)mem / (1 << 30),
             d[index].platform, d[index].device);
    return HAY_OK;
}

static bool is_gpu(cl_device_id d)
{
    cl_device_type t = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    return (t & CL_DEVICE_TYPE_GPU) != 0;
}

/* Parses "P:D" or "N" into a flat index; -1 if it names no device. */
static int parse_spec(const char *spec, const dev_ref *d, int n)
{
    char *end;
    errno = 0;
    long a = strtol(spec, &end, 10);
    if (end == spec || errno || a < 0)
        return -1;
    if (*end == 0)
        return a < n ? (int)a : -1;
    if (*end != ':')
        return -1;
    const char *s2 = end + 1;
    long b = strtol(s2, &end, 10);
    if (end == s2 || *end || errno || b < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (d[i].platform == a && d[i].device == b)
            return i;
    return -1;
}

/* The device a spec selects (see hay_ocl_open). */
static hay_status select_device(const char *spec, const dev_ref *refs, int n,
                                int *index)
{
    RETURN_ERROR_IF(n == 0, HAY_ERR_NO_DEVICE);
    if (!spec || !*spec)
        spec = getenv("HAY_OPENCL_DEVICE");
    *index = -1;
    if (spec && *spec) {
        *index = parse_spec(spec, refs, n);
        RETURN_ERROR_IF(*index < 0, HAY_ERR_INVALID);
        return HAY_OK;
    }
    for (int i = 0; i < n && *index < 0; i++)
        if (is_gpu(refs[i].did))
            *index = i;
    if (*index < 0)
        *index = 0;
    return HAY_OK;
}

hay_status hay_ocl_peek(const char *spec, int *nvidia, int *pci_domain,
                        int *pci_bus)
{
    dev_ref refs[MAX_DEVICES];
    int n = list_devices(refs, MAX_DEVICES), index;
    FORWARD_IF_ERROR(select_device(spec, refs, n, &index));
    char vendor[128] = "";
    clGetDeviceInfo(refs[index].did, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    *nvidia = strstr(vendor, "NVIDIA") != NULL;
    *pci_domain = *pci_bus = -1;
    cl_uint v;
    if (*nvidia && clGetDeviceInfo(refs[index].did, HAY_CL_DEVICE_PCI_BUS_ID_NV,
                                   sizeof v, &v, NULL) == CL_SUCCESS)
        *pci_bus = (int)v;
    if (*nvidia && clGetDeviceInfo(refs[index].did, HAY_CL_DEVICE_PCI_DOMAIN_ID_NV,
                                   sizeof v, &v, NULL) == CL_SUCCESS)
        *pci_domain = (int)v;
    return HAY_OK;
}

/* The process-wide table of opened devices ----------------------------------- */

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static hay_ocl_dev *table[MAX_DEVICES];

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

void hay_ocl_cache_dir(char *buf, size_t cap)
{
    const char *e = getenv("HAY_CACHE_DIR");
    if (e && *e) {
        snprintf(buf, cap, "%s", e);
        return;
    }
    e = getenv("XDG_CACHE_HOME");
    if (e && *e) {
        snprintf(buf, cap, "%s/haystack", e);
        return;
    }
    e = getenv("HOME");
    if (e && *e) {
        snprintf(buf, cap, "%s/.cache/haystack", e);
        return;
    }
    buf[0] = 0;
}

/* mkdir -p */
static bool make_dirs(const char *path)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return false;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        mkdir(tmp, 0755);
        *p = '/';
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

/* The cache key: everything that can change the binary. */
static void cache_key(const hay_ocl_dev *d, int prog, char *key, size_t cap,
                      char *file, size_t fcap)
{
    char pname[256] = "", pversion[256] = "";
    clGetPlatformInfo(d->pid, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetPlatformInfo(d->pid, CL_PLATFORM_VERSION, sizeof pversion, pversion, NULL);
    const char *src = prog_src[prog];
    uint64_t sh = fnv(FNV_BASIS, src, strlen(src));
    snprintf(key, cap, "platform=%s|%s device=%s|%s|%s driver=%s options=%s "
             "source=%016llx lib=%s", pname, pversion, d->name, d->vendor,
             d->version, d->driver, BUILD_OPTIONS, (unsigned long long)sh,
             HAY_VERSION_STRING);
    uint64_t kh = fnv(FNV_BASIS, key, strlen(key));
    char dir[900];
    hay_ocl_cache_dir(dir, sizeof dir);
    if (!dir[0]) {
        file[0] = 0;
        return;
    }
    snprintf(file, fcap, "%s/opencl-%016llx.bin", dir, (unsigned long long)kh);
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The checksum of an entry: the key (with its NUL), the length, the binary. */
static uint64_t entry_sum(const char *key, const uint8_t len8[8], const uint8_t *bin,
                          size_t n)
{
    uint64_t h = fnv(FNV_BASIS, key, strlen(key) + 1);
    h = fnv(h, len8, 8);
    return fnv(h, bin, n);
}

/* The binary of a whole and intact entry for `key` (NULL otherwise). */
static uint8_t *read_entry(FILE *f, const char *key, size_t *size)
{
    size_t klen = strlen(key), mlen = strlen(CACHE_MAGIC), hlen = mlen + klen + 1 + 16;
    uint8_t *head = malloc(hlen), *bin = NULL;
    if (!head || fread(head, 1, hlen, f) != hlen ||
        memcmp(head, CACHE_MAGIC, mlen) != 0 ||
        memcmp(head + mlen, key, klen) != 0 || head[mlen + klen] != 0)
        goto bad;   /* another key with the same hash, an old format, or broken */
    const uint8_t *len8 = head + mlen + klen + 1;
    uint64_t n = get_u64(len8), sum = get_u64(len8 + 8);
    long end;
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 ||
        (uint64_t)end != hlen + n || n == 0 || n > SIZE_MAX ||
        fseek(f, (long)hlen, SEEK_SET) != 0)
        goto bad;   /* truncated, or with bytes after the binary */
    bin = malloc((size_t)n);
    if (!bin || fread(bin, 1, (size_t)n, f) != (size_t)n ||
        entry_sum(key, len8, bin, (size_t)n) != sum)
        goto bad;
    free(head);
    *size = (size_t)n;
    return bin;
bad:
    free(head);
    free(bin);
    return NULL;
}

static cl_program load_cached(hay_ocl_dev *d, const char *key, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return NULL;
    size_t n = 0;
    uint8_t *bin = read_entry(f, key, &n);
    fclose(f);
    if (!bin)
        return NULL;
    const unsigned char *bins[1] = { bin };
    cl_int err, bs;
    cl_program p = clCreateProgramWithBinary(d->ctx, 1, &d->did, &n, bins, &bs, &err);
    if (err != CL_SUCCESS || bs != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        p = NULL;
    } else if (clBuildProgram(p, 1, &d->did, BUILD_OPTIONS, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        p = NULL;
    }
    free(bin);
    return p;
}

static void store_cached(cl_program p, const char *key, const char *file)
{
    size_t n = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || !n)
        return;
    unsigned char *bin = malloc(n);
    if (!bin)
        return;
    unsigned char *bins[1] = { bin };
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS)
        goto out;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash)
        goto out;
    *slash = 0;
    if (!make_dirs(dir))
        goto out;
    /* A file of its own (mkstemp), renamed over the entry once whole. */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", file);
    int fd = mkstemp(tmp);
    if (fd < 0)
        goto out;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        remove(tmp);
        goto out;
    }
    uint8_t lens[16];
    put_u64(lens, n);
    put_u64(lens + 8, entry_sum(key, lens, bin, n));
    bool ok = fwrite(CACHE_MAGIC, 1, strlen(CACHE_MAGIC), f) == strlen(CACHE_MAGIC) &&
              fwrite(key, 1, strlen(key) + 1, f) == strlen(key) + 1 &&
              fwrite(lens, 1, sizeof lens, f) == sizeof lens &&
              fwrite(bin, 1, n, f) == n;
    ok = fflush(f) == 0 && ok;
    ok = fchmod(fileno(f), 0644) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, file) != 0)
        remove(tmp);
out:
    free(bin);
}

/* The compiler's messages, for whoever set $HAY_OPENCL_BUILD_LOG to a file
 * name (the library prints nothing). */
static void save_build_log(const hay_ocl_dev *d, cl_program p)
{
    const char *path = getenv("HAY_OPENCL_BUILD_LOG");
    size_t n = 0;
    if (!path || !*path ||
        clGetProgramBuildInfo(p, d->did, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS)
        return;
    char *log = malloc(n + 1);
    FILE *f = log ? fopen(path, "w") : NULL;
    if (f && clGetProgramBuildInfo(p, d->did, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        fwrite(log, 1, strnlen(log, n), f);
    if (f)
        fclose(f);
    free(log);
}

static hay_status build_program(hay_ocl_dev *d, int prog, int use_cache)
{
    char key[2048], file[1024];
    cache_key(d, prog, key, sizeof key, file, sizeof file);
    if (use_cache && file[0]) {
        d->prog[prog] = load_cached(d, key, file);
        if (d->prog[prog])
            return HAY_OK;
    }
    cl_int err;
    const char *src = prog_src[prog];
    size_t len = strlen(src);
    cl_program p = clCreateProgramWithSource(d->ctx, 1, &src, &len, &err);
    RETURN_ERROR_IF(err != CL_SUCCESS, hay_ocl_status(err));
    err = clBuildProgram(p, 1, &d->did, BUILD_OPTIONS, NULL, NULL);
    if (err != CL_SUCCESS) {
        save_build_log(d, p);
        clReleaseProgram(p);
        /* A kernel the device's compiler rejects: the device cannot run
         * this backend. */
        return err == CL_BUILD_PROGRAM_FAILURE ? HAY_ERR_UNSUPPORTED
                                               : hay_ocl_status(err);
    }
    if (use_cache && file[0])
        store_cached(p, key, file);
    d->prog[prog] = p;
    return HAY_OK;
}

static hay_status open_device(const dev_ref *r, int index, hay_ocl_dev **out)
{
    hay_ocl_dev *d = calloc(1, sizeof *d);
    RETURN_ERROR_IF(!d, HAY_ERR_NOMEM);
    d->index = index;
    d->platform = r->platform;
    d->device = r->device;
    d->pid = r->pid;
    d->did = r->did;
    clGetDeviceInfo(d->did, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_VENDOR, sizeof d->vendor, d->vendor, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_VERSION, sizeof d->version, d->version, NULL);
    clGetDeviceInfo(d->did, CL_DRIVER_VERSION, sizeof d->driver, d->driver, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem, &d->global_mem, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg, NULL);
    clGetDeviceInfo(d->did, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->units, &d->units, NULL);
    cl_bool uni = CL_FALSE;
    clGetDeviceInfo(d->did, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof uni, &uni, NULL);
    d->unified = uni == CL_TRUE;
    d->nvidia = strstr(d->vendor, "NVIDIA") != NULL;
    d->pci_domain = d->pci_bus = -1;
    if (d->nvidia) {
        cl_uint bus = 0, dom = 0;
        if (clGetDeviceInfo(d->did, HAY_CL_DEVICE_PCI_BUS_ID_NV, sizeof bus, &bus, NULL) == CL_SUCCESS)
            d->pci_bus = (int)bus;
        if (clGetDeviceInfo(d->did, HAY_CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof dom, &dom, NULL) == CL_SUCCESS)
            d->pci_domain = (int)dom;
    }
    cl_int err;
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)d->pid, 0 };
    d->ctx = clCreateContext(props, 1, &d->did, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        free(d);
        return hay_ocl_status(err);
    }
    *out = d;
    return HAY_OK;
}

hay_status hay_ocl_open(const char *spec, int prog, int use_cache,
                        hay_ocl_dev **out, double *init_seconds)
{
    RETURN_ERROR_IF(!out || prog < 0 || prog >= HAY_OCL_NPROGS, HAY_ERR_INVALID);
    *out = NULL;
    if (init_seconds)
        *init_seconds = 0;
    double t0 = hay_now();
    dev_ref refs[MAX_DEVICES];
    int n = list_devices(refs, MAX_DEVICES);
    int index;
    FORWARD_IF_ERROR(select_device(spec, refs, n, &index));
    hay_status s = HAY_OK;
    pthread_mutex_lock(&table_lock);
    bool paid = false;
    if (!table[index]) {
        s = open_device(&refs[index], index, &table[index]);
        paid = true;
    }
    hay_ocl_dev *d = table[index];
    if (s == HAY_OK && !d->prog[prog]) {
        s = build_program(d, prog, use_cache);
        paid = true;
    }
    pthread_mutex_unlock(&table_lock);
    if (s < 0)
        return s;
    if (init_seconds && paid)
        *init_seconds = hay_now() - t0;
    *out = d;
    return HAY_OK;
}

hay_status hay_ocl_buffer(const hay_ocl_dev *d, cl_mem_flags flags,
                          size_t size, cl_mem *out, cl_int *errp)
{
    cl_int err = CL_SUCCESS;
    *out = NULL;
    if (size > d->max_alloc)
        err = CL_INVALID_BUFFER_SIZE;
    else
        *out = clCreateBuffer(d->ctx, flags, size ? size : 1, NULL, &err);
    if (errp)
        *errp = err;
    if (err != CL_SUCCESS) {
        *out = NULL;
        return hay_ocl_status(err);
    }
    return HAY_OK;
}

/* Energy meters, one per GPU, for the life of the process. */
#define MAX_METERS 16
static struct meter_slot {
    int domain, bus;
    bool tried;
    hay_energy *e;
} meters[MAX_METERS];

hay_energy *hay_ocl_meter(int pci_domain, int pci_bus)
{
    hay_energy *e = NULL;
    pthread_mutex_lock(&table_lock);
    int free_slot = -1;
    for (int i = 0; i < MAX_METERS; i++) {
        if (meters[i].tried && meters[i].domain == pci_domain && meters[i].bus == pci_bus) {
            e = meters[i].e;
            free_slot = -2;
            break;
        }
        if (!meters[i].tried && free_slot == -1)
            free_slot = i;
    }
    if (free_slot >= 0) {
        meters[free_slot] = (struct meter_slot){ pci_domain, pci_bus, true,
                                                 hay_energy_open(pci_domain, pci_bus) };
        e = meters[free_slot].e;
    }
    pthread_mutex_unlock(&table_lock);
    return e;
}
