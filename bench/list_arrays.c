/*
 * list_arrays.c - cuda_pfac_bench's "list arrays" rows (list_arrays.h).
 *
 * A row times the calls only (the library's whole work: the device, the
 * keys into the arrays); the caller's pass over the arrays (the checksum
 * and order check of list_fold.h, one thread) runs in the warm-up and is
 * printed on its own line, so that a row compares with the target
 * (the whole list in the caller's memory) and the pass with the batch
 * rows' callback.  The arrays are made and faulted in before the first
 * row: a caller that reuses them pays no page faults (a first use of
 * fresh memory adds the kernel's zeroing of every page).
 */
#include "list_arrays.h"

#include "bench_util.h"
#include "list_fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAY_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

/* Where a row's arrays are. */
enum { PAGEABLE, PINNED, DEVICE };

static void device_free(list_arrays *a)
{
#ifdef HAY_BENCH_CUDA
    cudaFree(a->d_ids);
    cudaFree(a->d_starts);
    cudaFree(a->d_ends);
#endif
    a->d_ids = NULL;
    a->d_starts = a->d_ends = NULL;
    a->dcap = 0;
}

void list_arrays_free(list_arrays *a)
{
    free(a->ids);
    free(a->starts);
    free(a->ends);
    hay_match_list_free(&a->pin);
    device_free(a);
    memset(a, 0, sizeof *a);
}

/* The pinned or device arrays of cap entries (pinned ones faulted in);
 * -1 when they cannot be had. */
static int arrays_of(list_arrays *a, int mem, size_t cap)
{
    if (mem == PINNED && a->pin.cap < cap) {
        hay_match_list_free(&a->pin);
        if (hay_match_list_alloc(HAY_BACKEND_CUDA, cap, HAY_LIST_STARTS | HAY_LIST_ENDS,
                                 &a->pin) != HAY_OK)
            return -1;
        memset(a->pin.ids, 0, cap * sizeof *a->pin.ids);
        memset(a->pin.starts, 0, cap * sizeof *a->pin.starts);
        memset(a->pin.ends, 0, cap * sizeof *a->pin.ends);
    }
    if (mem == DEVICE && a->dcap < cap) {
        device_free(a);
#ifdef HAY_BENCH_CUDA
        if (cudaMalloc((void **)&a->d_ids, cap * sizeof *a->d_ids) != cudaSuccess ||
            cudaMalloc((void **)&a->d_starts, cap * sizeof *a->d_starts) != cudaSuccess ||
            cudaMalloc((void **)&a->d_ends, cap * sizeof *a->d_ends) != cudaSuccess) {
            device_free(a);
            return -1;
        }
        a->dcap = cap;
#else
        return -1;
#endif
    }
    return 0;
}

/* Device arrays: the call's n entries copied into the pageable arrays,
 * where the warm-up folds them (not timed). */
static int device_back(list_arrays *a, const hay_match_list *l)
{
#ifdef HAY_BENCH_CUDA
    if (cudaMemcpy(a->ids, l->ids, l->n * sizeof *a->ids, cudaMemcpyDeviceToHost) ||
        (l->starts && cudaMemcpy(a->starts, l->starts, l->n * sizeof *a->starts,
                                 cudaMemcpyDeviceToHost)) ||
        cudaMemcpy(a->ends, l->ends, l->n * sizeof *a->ends, cudaMemcpyDeviceToHost))
        return -1;
    return 0;
#else
    (void)a;
    (void)l;
    return -1;
#endif
}

static int arrays_make(list_arrays *a, size_t cap)
{
    list_arrays_free(a);
    a->ids = malloc(cap * sizeof *a->ids);
    a->starts = malloc(cap * sizeof *a->starts);
    a->ends = malloc(cap * sizeof *a->ends);
    if (!a->ids || !a->starts || !a->ends) {
        list_arrays_free(a);
        return -1;
    }
    memset(a->ids, 0, cap * sizeof *a->ids);   /* fault the pages in */
    memset(a->starts, 0, cap * sizeof *a->starts);
    memset(a->ends, 0, cap * sizeof *a->ends);
    a->cap = cap;
    return 0;
}

typedef struct arrays_timing {
    double wall;              /* median seconds of a whole list's calls */
    double fold;              /* the caller's pass over the arrays (warm-up) */
    double copy_in, kernel, copy_out;   /* stats, summed over the calls */
    uint64_t count, sum, calls;
    int order_bad;
    hay_status err;
} arrays_timing;

/* The whole list in calls of at most cap matches, reps times after a
 * warm-up that also folds what each call stored. */
static arrays_timing timed(const hay_patterns *set, const uint8_t *d, uint64_t len,
                          const hay_buffer *buf, list_arrays *a, int mem, size_t cap,
                          unsigned threads, int nostarts, int reps,
                          void (*log)(const char *line, void *ctx))
{
    uint32_t *ids = mem == PINNED ? a->pin.ids : mem == DEVICE ? a->d_ids : a->ids;
    uint64_t *starts = mem == PINNED ? a->pin.starts : mem == DEVICE ? a->d_starts : a->starts;
    uint64_t *ends = mem == PINNED ? a->pin.ends : mem == DEVICE ? a->d_ends : a->ends;
    arrays_timing t;
    memset(&t, 0, sizeof t);
    hay_scratch *s = NULL;
    hay_scratch_create(set, &s);
    double w[64], ci[64], k[64], co[64];
    int n = reps < 64 ? reps : 63;
    for (int r = -1; r < n; r++) {
        fold f;
        memset(&f, 0, sizeof f);
        double wall = 0, fs = 0, sci = 0, sk = 0, sco = 0;
        uint64_t from = 0, calls = 0;
        do {
            hay_scan_stats st;
            memset(&st, 0, sizeof st);
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            o.threads = threads;
            o.stats = &st;
            o.log = log;
            hay_match_list l = { ids, nostarts ? NULL : starts, ends, cap, 0, 0 };
            double t0 = bench_now();
            hay_status rc = buf ? hay_scan_buffer_list(set, s, buf, from, &o, &l)
                                : hay_scan_list(set, s, d, len, from, &o, &l);
            wall += bench_now() - t0;
            calls++;
            sci += st.copy_in_seconds;
            sk += st.kernel_seconds;
            sco += st.copy_out_seconds;
            if (rc != HAY_OK) {
                t.err = rc;
                break;
            }
            if (r < 0 && mem == DEVICE && device_back(a, &l) < 0) {
                t.err = HAY_ERR_DEVICE;
                break;
            }
            if (r < 0) {
                const uint32_t *fi = mem == DEVICE ? a->ids : l.ids;
                const uint64_t *fs0 = mem == DEVICE ? a->starts : l.starts,
                               *fe = mem == DEVICE ? a->ends : l.ends;
                double f0 = bench_now();
                for (size_t i = 0; i < l.n; i++)
                    fold_one(&f, fi[i], nostarts ? 0 : fs0[i], fe[i]);
                f.n += l.n;
                fs += bench_now() - f0;
            }
            from = l.done;
        } while (from < len);
        if (r < 0) {
            t.count = f.n;
            t.sum = f.sum;
            t.order_bad = f.order_bad;
            t.fold = fs;
            t.calls = calls;
            continue;
        }
        w[r] = wall;
        ci[r] = sci;
        k[r] = sk;
        co[r] = sco;
    }
    t.wall = bench_median(w, n);
    t.copy_in = bench_median(ci, n);
    t.kernel = bench_median(k, n);
    t.copy_out = bench_median(co, n);
    hay_scratch_free(s);
    return t;
}

/* Whether the row's name holds one of the '|'-separated parts of only. */
static int wanted(const char *name, const char *only)
{
    for (const char *p = only; *p;) {
        const char *q = strchr(p, '|');
        size_t k = q ? (size_t)(q - p) : strlen(p);
        for (const char *x = name; k && *x; x++)
            if (!strncmp(x, p, k))
                return 1;
        p += k + (q != NULL);
    }
    return 0;
}

/* The checksum of the first n entries of the pageable arrays without
 * their starts. */
static uint64_t sum_nostarts(const list_arrays *a, uint64_t n)
{
    fold f;
    memset(&f, 0, sizeof f);
    for (size_t j = 0; j < (size_t)n; j++)
        fold_one(&f, a->ids[j], 0, a->ends[j]);
    return f.sum;
}

int list_arrays_ref(const hay_patterns *set, const uint8_t *d, uint64_t len, list_arrays *a,
                    uint64_t ref, uint64_t *sum, list_filter *flt)
{
    size_t whole = ref ? (size_t)ref : 1;
    if (a->cap < whole && arrays_make(a, whole) < 0) {
        printf("# list arrays: no memory for %zu matches\n", whole);
        return 1;
    }
    arrays_timing t = timed(set, d, len, NULL, a, PAGEABLE, whole, 0, 0, 1, NULL);
    *sum = t.sum;
    flt->sum_nostarts = sum_nostarts(a, t.count);
    printf("# reference (whole list, pageable arrays): %llu matches, checksum %llx%s\n",
           (unsigned long long)t.count, (unsigned long long)t.sum,
           t.err ? hay_strerror(t.err) : t.order_bad ? ", ORDER" : "");
    return t.err != HAY_OK || t.count != ref || t.order_bad;
}

int list_arrays_rows(const hay_patterns *set, const uint8_t *d, uint64_t len,
                     const hay_buffer *buf, list_arrays *a, uint64_t ref, uint64_t want_sum,
                     double gb, int reps, int few, const list_filter *flt,
                     void (*log)(const char *line, void *ctx), char *last_log)
{
    size_t whole = ref ? (size_t)ref : 1, cap16 = (size_t)16 << 20;
    if (a->cap < whole && arrays_make(a, whole) < 0) {
        printf("# list arrays: no memory for %zu matches\n", whole);
        return 1;
    }
    /* ids+ends: no starts asked for (20 bytes moved a match instead of 28);
     * checked against the first row's arrays folded without their starts. */
    /* pinned, device: arrays the device fills (src/cuda/list_dev.h). */
    static const struct {
        const char *name;
        int resident, cap16, few;
        unsigned threads;
        int nostarts, mem;
    } rows[] = {
        { "e2e list arrays, whole list", 0, 0, 1, 0, 0, PAGEABLE },
        { "e2e list arrays, whole, 1 thread", 0, 0, 0, 1, 0, PAGEABLE },
        { "e2e list arrays, cap 16M", 0, 1, 0, 0, 0, PAGEABLE },
        { "e2e list arrays, ids+ends", 0, 0, 0, 0, 1, PAGEABLE },
        { "e2e list arrays, pinned", 0, 0, 0, 0, 0, PINNED },
        { "e2e list arrays, pinned ids+ends", 0, 0, 0, 0, 1, PINNED },
        { "e2e list arrays, pinned cap 16M", 0, 1, 0, 0, 0, PINNED },
        { "e2e list arrays, device", 0, 0, 0, 0, 0, DEVICE },
        { "resident list arrays, whole list", 1, 0, 1, 0, 0, PAGEABLE },
        { "resident list arrays, cap 16M", 1, 1, 0, 0, 0, PAGEABLE },
        { "resident list arrays, ids+ends", 1, 0, 0, 0, 1, PAGEABLE },
        { "resident list arrays, pinned", 1, 0, 0, 0, 0, PINNED },
        { "resident list arrays, device", 1, 0, 0, 0, 0, DEVICE },
        { "resident list arrays, device ids+ends", 1, 0, 0, 0, 1, DEVICE },
    };
    int bad = 0;
    uint64_t want_nostarts = flt ? flt->sum_nostarts : 0;
    int have_nostarts = flt != NULL;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        if ((few && !rows[i].few) || (rows[i].resident && !buf) ||
            (flt && !wanted(rows[i].name, flt->only)))
            continue;
        *last_log = 0;
        if (rows[i].nostarts && !have_nostarts)
            continue;   /* (the first row failed) */
        if (rows[i].mem != PAGEABLE && arrays_of(a, rows[i].mem, whole) < 0) {
            printf("# %s: no %s arrays for %zu matches\n", rows[i].name,
                   rows[i].mem == PINNED ? "pinned" : "device", whole);
            continue;
        }
        arrays_timing t = timed(set, d, len, rows[i].resident ? buf : NULL, a, rows[i].mem,
                                rows[i].cap16 && cap16 < whole ? cap16 : whole,
                                rows[i].threads, rows[i].nostarts, reps, log);
        int ok = t.err == HAY_OK && t.count == ref && !t.order_bad &&
                 t.sum == (rows[i].nostarts ? want_nostarts : want_sum);
        if (i == 0 && ok && !flt) {
            /* The arrays hold the whole list now: its fold without starts. */
            want_nostarts = sum_nostarts(a, ref);
            have_nostarts = 1;
        }
        bad |= !ok;
        char name[96];
        snprintf(name, sizeof name, "%s%s", rows[i].name, flt ? flt->tag : "");
        printf("%-36s %10.4f %10.2f %12llu %s\n", name, t.wall, gb / t.wall,
               (unsigned long long)t.count,
               t.err ? hay_strerror(t.err) : ok ? "same" : t.order_bad ? "ORDER" : "DIFF");
        printf("#   %llu calls; phases: copy_in %.4f kernel %.4f copy_out+sort %.4f "
               "(overlapped); the caller's pass over the arrays %.4f s\n",
               (unsigned long long)t.calls, t.copy_in, t.kernel, t.copy_out, t.fold);
        if (*last_log)
            printf("#   %s\n", last_log);
        *last_log = 0;
        fflush(stdout);
    }
    return bad;
}
