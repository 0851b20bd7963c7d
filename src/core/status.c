/* status.c - status text, version, names and small utilities. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

const char *hay_version(void) { return HAY_VERSION_STRING; }

const char *hay_strerror(hay_status status)
{
    switch (status) {
    case HAY_OK: return "success";
    case HAY_STOPPED: return "scan stopped by the match callback";
    case HAY_ERR_NOMEM: return "out of memory";
    case HAY_ERR_INVALID: return "invalid argument";
    case HAY_ERR_UNSUPPORTED: return "the algorithm does not support this request";
    case HAY_ERR_NO_BACKEND: return "backend not built into this library";
    case HAY_ERR_NO_DEVICE: return "no usable device for this backend";
    case HAY_ERR_DEVICE: return "a device call failed";
    case HAY_ERR_UNKNOWN_NAME: return "unknown backend or algorithm name";
    case HAY_ERR_TOO_LARGE: return "size exceeds a limit";
    case HAY_ERR_STATE: return "call made in the wrong state";
    case HAY_ERR_SCRATCH_IN_USE:
        return "the scratch is in use by another scan (one scratch per thread)";
    }
    return "unknown status";
}

double hay_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Asked once per process: glibc answers _SC_NPROCESSORS_ONLN by reading
 * /sys/devices/system/cpu/online, and every scan (hay_thread_cap) asks. */
static unsigned cpu_count;
static pthread_once_t cpu_count_once = PTHREAD_ONCE_INIT;

static void cpu_count_init(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_count = n > 0 ? (unsigned)n : 1u;
}

unsigned hay_cpu_count(void)
{
    pthread_once(&cpu_count_once, cpu_count_init);
    return cpu_count;
}

unsigned hay_thread_cap(unsigned requested)
{
    unsigned cores = hay_cpu_count();
    unsigned cap = cores < HAY_MAX_THREADS / 4 ? 4 * cores : HAY_MAX_THREADS;
    if (requested == 0)
        requested = cores;
    return requested < cap ? requested : cap;
}

static void *default_alloc(size_t size, void *ctx) { (void)ctx; return malloc(size); }
static void default_free(void *p, void *ctx) { (void)ctx; free(p); }

void *hay_malloc(const hay_allocator *a, size_t size)
{
    if (size == 0)
        size = 1;
    return a && a->alloc ? a->alloc(size, a->ctx) : default_alloc(size, NULL);
}

void *hay_calloc(const hay_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = hay_malloc(a, n * size);
    if (p)
        memset(p, 0, (n && size) ? n * size : 1);
    return p;
}

void *hay_realloc(const hay_allocator *a, void *p, size_t old_size,
                  size_t new_size)
{
    if (!a || !a->alloc)
        return realloc(p, new_size ? new_size : 1);
    void *q = hay_malloc(a, new_size);
    if (!q)
        return NULL;
    if (p)
        memcpy(q, p, old_size < new_size ? old_size : new_size);
    hay_free(a, p);
    return q;
}

void hay_free(const hay_allocator *a, void *p)
{
    if (!p)
        return;
    if (a && a->free)
        a->free(p, a->ctx);
    else
        default_free(p, NULL);
}

void hay_log(const hay_scan_opts *opts, const char *fmt, ...)
{
    if (!opts || !opts->log)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    opts->log(line, opts->log_ctx);
}

void hay_stats_reset(hay_scan_stats *st, hay_backend b, const char *algo,
                     const char *note)
{
    memset(st, 0, sizeof *st);
    st->backend = b;
    st->algo = algo;
    st->energy_joules = -1;
    st->init_joules = st->prepare_joules = st->copy_in_joules = -1;
    st->kernel_joules = st->copy_out_joules = -1;
    st->energy_method = "unavailable";
    st->note = note ? note : "";
}
