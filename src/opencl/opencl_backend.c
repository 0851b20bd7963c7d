/*
 * opencl_backend.c - the OpenCL entry in the backend table: brute force
 * for one pattern and PFAC (pfac-opencl-mobile-energy.txt) for any number,
 * with the paper's knobs and its time (and, on NVIDIA, energy) per phase.
 *
 * Phases, as the paper splits an OpenCL application:
 *   initialization  device, context, command queue, program (built, or
 *                   loaded from the on-disk binary cache; paid once per
 *                   process and device, see ocl_rt.c)
 *   preparation     the automaton (PFAC tables, src/core/pfac.c) built on
 *                   the CPU and its tables written to the device
 *   write           the text to the device
 *   kernel          the search kernels
 *   read            results back to the host
 * Initialization and preparation happen in hay_patterns_compile(); the
 * first scan with the set reports them in its hay_scan_stats.  Each phase
 * ends with clFinish(), so the times do not overlap.
 *
 * Parameters (hay_compile_opts.params, "key=value,..."):
 *   device=P:D   platform P, device D (or a flat index N, as `hay devices`
 *                lists them); default $HAY_OPENCL_DEVICE, else the first GPU
 *   transfer=copy|map|pinned   clEnqueueWriteBuffer/ReadBuffer from and
 *                to the caller's memory; or buffers in host-accessible
 *                memory (CL_MEM_ALLOC_HOST_PTR) filled and read through
 *                clEnqueueMapBuffer (zero-copy where the device shares the
 *                host's memory); or (not in the paper) Write/ReadBuffer
 *                through a pinned staging buffer mapped once, which discrete
 *                GPUs copy at full bus speed; default map on devices with
 *                unified memory, else copy
 *   local=0|1    stage the root row, byte classes and the group's text in
 *                local memory (default 0: the paper found it slower)
 *   wg=N         work-group size, a power of two (default 256, or the
 *                kernel's limit when smaller)
 *   bpw=N        bytes (start positions) per work-item, 1..1024 (default 4)
 *   table=auto|dense|compact   PFAC transition table (auto: dense when it
 *                fits 256 MiB and a quarter of the largest allocation)
 *   cap=N        match slots per launch (default 1M; at least the number of
 *                patterns); a launch that overflows is split and rerun
 *   piece=N      most text bytes per device piece (default 256 MiB, at most
 *                the device's largest allocation); pieces overlap by the
 *                longest pattern - 1
 *   cache=0|1    use the on-disk program cache (default 1)
 *
 * The scan (write, kernel and read phases, the match list, pieces) is in
 * ocl_scan.c; ocl_search.h is what the two files share.
 * Streams are not supported (HAY_ERR_UNSUPPORTED from hay_stream_open).
 */
#include "../core/internal.h"
#include "hay_opencl.h"
#include "ocl_search.h"

#include <stdio.h>

/* Parameters (the keys above; core/params.h parses them at compile; the
 * knobs they fill are in ocl_search.h). */
static const char *const transfer_words[] = { "copy", "map", "pinned", NULL };
static const char *const table_words[] = { "auto", "dense", "compact", NULL };
static const hay_param opencl_keys[] = {
    HAY_PARAM_S(knobs, device, "device", 63, NULL,
                "P:D or a flat index N as 'hay devices' lists them (default: "
                "$HAY_OPENCL_DEVICE, else the first GPU)"),
    HAY_PARAM_E(knobs, transfer, "transfer", transfer_words, NULL,
                "Write/ReadBuffer, mapped host-accessible buffers, or a pinned "
                "staging buffer (default: map on unified memory, else copy)"),
    HAY_PARAM_B(knobs, local, "local", "0",
                "stage root row, classes and text in local memory (the paper found it slower)"),
    HAY_PARAM_U(knobs, wg, "wg", 1, 4096, HAY_PARAM_POW2, "256",
                "work-group size (the kernel's limit when smaller and not given)"),
    HAY_PARAM_U(knobs, bpw, "bpw", 1, 1024, 0, "4", "start positions per work-item"),
    HAY_PARAM_E(knobs, table, "table", table_words, "auto",
                "PFAC table; auto: dense when it fits 256M and a quarter of the "
                "largest allocation"),
    HAY_PARAM_SZ(knobs, cap, "cap", 1, (uint64_t)1 << 31, "1M",
                 "match slots per launch (at least the number of patterns)"),
    HAY_PARAM_SZ(knobs, piece, "piece", 1, (uint64_t)1 << 31, "256M",
                 "most text bytes per device piece (at most the largest allocation)"),
    HAY_PARAM_B(knobs, cache, "cache", "1", "use the on-disk program cache"),
};
const hay_param_table hay_opencl_param_table =
    HAY_PARAM_TABLE("opencl", knobs, opencl_keys);

static size_t opencl_param_tables(const char *algo, size_t npatterns,
                                  const hay_param_table **out)
{
    (void)algo;
    (void)npatterns;
    out[0] = &hay_opencl_param_table;
    return 1;
}

#ifdef HAY_HAVE_OPENCL
#include <stdlib.h>

#define MAX_PIECE ((uint64_t)1 << 31)   /* the largest piece= */
#define DENSE_LIMIT ((size_t)256 << 20)
#define LOCAL_TEXT_MAX ((size_t)32 << 10)

/* Buffers ---------------------------------------------------------------------------- */

/* A read-only table on the device, written once. */
static hay_status table_buffer(ocl_state *st, const void *src, size_t size,
                               cl_mem *out)
{
    cl_int err;
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, CL_MEM_READ_ONLY, size ? size : 1, out, &err));
    if (size) {
        err = clEnqueueWriteBuffer(st->q, *out, CL_TRUE, 0, size, src, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            hay_ocl_release(out);
            return hay_ocl_status(err);
        }
    }
    st->device_bytes += size;
    return HAY_OK;
}

/* The set ------------------------------------------------------------------------------ */

static void state_free(const hay_patterns *set, ocl_state *st)
{
    if (!st)
        return;
    for (int i = 0; i < NMODES; i++)
        if (st->k[i])
            clReleaseKernel(st->k[i]);
    if (st->q)
        hay_ocl_stage_release(st);
    cl_mem *bufs[] = { &st->d_root, &st->d_cls, &st->d_t0, &st->d_t2, &st->d_t3,
                       &st->d_out_first, &st->d_out_id, &st->d_pat, &st->d_text,
                       &st->d_partial, &st->d_counts, &st->d_list, &st->d_flags };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        hay_ocl_release(bufs[i]);
    if (st->q)
        clReleaseCommandQueue(st->q);
    hay_pfac_free(set, st->pfac);
    free(st->keys);
    free(st->tmp);
    free(st->hcounts);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static void opencl_destroy(hay_patterns *set)
{
    state_free(set, set->state);
    set->state = NULL;
}

static const char *const brute_names[NMODES] = { "brute_count", "brute_each",
                                                 "brute_list" };
static const char *const pfac_names[2][NMODES] = {
    { "pfac_compact_count", "pfac_compact_each", "pfac_compact_list" },
    { "pfac_dense_count", "pfac_dense_each", "pfac_dense_list" },
};

/* The largest power of two <= v. */
static size_t pow2_floor(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* Kernels, work-group size and local memory. */
static hay_status make_kernels(ocl_state *st, const hay_patterns *set)
{
    cl_program prog = st->dev->prog[HAY_OCL_PROG_SEARCH];
    size_t kmax = st->dev->max_wg;
    for (int m = 0; m < NMODES; m++) {
        const char *name = st->algo == ALGO_PFAC ? pfac_names[st->dense][m]
                                                 : brute_names[m];
        cl_int err;
        st->k[m] = clCreateKernel(prog, name, &err);
        RETURN_ERROR_IF(err != CL_SUCCESS, hay_ocl_status(err));
        size_t w = 0;
        if (clGetKernelWorkGroupInfo(st->k[m], st->dev->did, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof w, &w, NULL) == CL_SUCCESS && w && w < kmax)
            kmax = w;
    }
    if (hay_params_given(&hay_opencl_param_table, &st->kn, "wg")) {
        RETURN_ERROR_IF(st->kn.wg > kmax, HAY_ERR_INVALID);
        st->wg = (size_t)st->kn.wg;
    } else {
        st->wg = pow2_floor(kmax < st->kn.wg ? kmax : (size_t)st->kn.wg);
    }
    st->bpw = (size_t)st->kn.bpw;
    /* Local memory: root row (1 KiB), classes (256), the reduction (wg
     * ulongs), and as much text as fits, up to the group's block plus the
     * longest pattern - 1. */
    size_t fixed = 1024 + 256 + st->wg * 8 + 64;
    RETURN_ERROR_IF(st->kn.local && st->dev->local_mem < fixed + 64, HAY_ERR_UNSUPPORTED);
    size_t room = st->dev->local_mem > fixed ? (size_t)st->dev->local_mem - fixed : 0;
    if (room > LOCAL_TEXT_MAX)
        room = LOCAL_TEXT_MAX;
    size_t want = st->wg * st->bpw + (set->max_len - 1);
    st->staged = st->kn.local ? (want < room ? want : room) : 0;
    for (int m = 0; m < NMODES; m++) {
        cl_kernel k = st->k[m];
        bool pf = st->algo == ALGO_PFAC;
        size_t lroot = st->kn.local ? 1024 : 4, lcls = st->kn.local ? 256 : 4;
        size_t ltext = st->staged ? st->staged : 4;
        cl_int err = clSetKernelArg(k, pf ? P_LROOT : B_LROOT, lroot, NULL);
        err |= clSetKernelArg(k, pf ? P_LCLS : B_LCLS, lcls, NULL);
        err |= clSetKernelArg(k, pf ? P_LTEXT : B_LTEXT, ltext, NULL);
        err |= clSetKernelArg(k, (pf ? P_RES : B_RES) + R_RED, st->wg * 8, NULL);
        RETURN_ERROR_IF(err != CL_SUCCESS, HAY_ERR_DEVICE);
    }
    return HAY_OK;
}

/* Tables on the device: the automaton, or the pattern. */
static hay_status upload_tables(ocl_state *st, const hay_patterns *set)
{
    if (st->algo == ALGO_BRUTE) {
        uint8_t pat[1024], *p = set->len[0] <= sizeof pat ? pat : malloc(set->len[0]);
        RETURN_ERROR_IF(!p, HAY_ERR_NOMEM);
        for (size_t i = 0; i < set->len[0]; i++)
            p[i] = (set->flags & HAY_CASELESS) ? hay_fold(hay_pat(set, 0)[i])
                                               : hay_pat(set, 0)[i];
        hay_status s = table_buffer(st, p, set->len[0], &st->d_pat);
        if (p != pat)
            free(p);
        if (s < 0)
            return s;
        cl_uint m = (cl_uint)set->len[0];
        cl_int cl = (set->flags & HAY_CASELESS) ? 1 : 0;
        for (int k = 0; k < NMODES; k++) {
            cl_int err = SET(st->k[k], B_PAT, st->d_pat);
            err |= SET(st->k[k], B_M, m);
            err |= SET(st->k[k], B_CASELESS, cl);
            RETURN_ERROR_IF(err != CL_SUCCESS, HAY_ERR_DEVICE);
        }
        return HAY_OK;
    }
    const hay_pfac *p = st->pfac;
    uint32_t ne = p->edge_first[p->nstates];
    FORWARD_IF_ERROR(table_buffer(st, p->root, sizeof p->root, &st->d_root));
    FORWARD_IF_ERROR(table_buffer(st, p->cls, sizeof p->cls, &st->d_cls));
    FORWARD_IF_ERROR(table_buffer(st, p->out_first, ((size_t)p->nfinal + 2) * 4, &st->d_out_first));
    FORWARD_IF_ERROR(table_buffer(st, p->out_id, set->n * 4, &st->d_out_id));
    cl_uint ncls = p->nclasses, nfinal = p->nfinal;
    if (st->dense) {
        FORWARD_IF_ERROR(table_buffer(st, p->next, p->dense_bytes, &st->d_t0));
        /* placeholders for the compact kernel's arguments */
        FORWARD_IF_ERROR(table_buffer(st, NULL, 0, &st->d_t2));
        FORWARD_IF_ERROR(table_buffer(st, NULL, 0, &st->d_t3));
    } else {
        FORWARD_IF_ERROR(table_buffer(st, p->edge_first, ((size_t)p->nstates + 1) * 4, &st->d_t0));
        FORWARD_IF_ERROR(table_buffer(st, p->edge_to, (size_t)ne * 4, &st->d_t2));
        FORWARD_IF_ERROR(table_buffer(st, p->edge_cls, ne, &st->d_t3));
        ncls = 0;
    }
    for (int k = 0; k < NMODES; k++) {
        cl_int err = SET(st->k[k], P_ROOT, st->d_root);
        err |= SET(st->k[k], P_CLS, st->d_cls);
        err |= SET(st->k[k], P_T0, st->d_t0);
        err |= SET(st->k[k], P_NCLS, ncls);
        err |= SET(st->k[k], P_T2, st->d_t2);
        err |= SET(st->k[k], P_T3, st->d_t3);
        err |= SET(st->k[k], P_NFINAL, nfinal);
        err |= SET(st->k[k], P_OUT_FIRST, st->d_out_first);
        err |= SET(st->k[k], P_OUT_ID, st->d_out_id);
        RETURN_ERROR_IF(err != CL_SUCCESS, HAY_ERR_DEVICE);
    }
    return HAY_OK;
}

/* Result buffers of fixed size, and the host's copies. */
static hay_status result_buffers(ocl_state *st, const hay_patterns *set)
{
    cl_int err;
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, hay_ocl_scan_flags(st, CL_MEM_READ_WRITE),
                                    st->cap * 8, &st->d_list, &err));
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, hay_ocl_scan_flags(st, CL_MEM_READ_WRITE),
                                    2 * sizeof(cl_uint), &st->d_flags, &err));
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, hay_ocl_scan_flags(st, CL_MEM_READ_WRITE),
                                    set->n * sizeof(cl_uint), &st->d_counts, &err));
    st->device_bytes += st->cap * 8 + 8 + set->n * 4;
    st->keys = malloc(st->cap * sizeof *st->keys);
    st->tmp = malloc(st->cap * sizeof *st->tmp);
    st->hcounts = malloc(set->n * sizeof *st->hcounts);
    RETURN_ERROR_IF(!st->keys || !st->tmp || !st->hcounts, HAY_ERR_NOMEM);
    return HAY_OK;
}

static hay_status opencl_compile(hay_patterns *set, const char *algo)
{
    knobs kn;
    const knobs *given = hay_set_params(set, &hay_opencl_param_table);
    if (given)
        kn = *given;
    else
        hay_params_defaults(&hay_opencl_param_table, &kn);
    int which;
    if (!algo) {
        which = set->n == 1 ? ALGO_BRUTE : ALGO_PFAC;
        set->reason = set->n == 1 ? "one pattern: brute force on the device"
                                  : "several patterns: PFAC on the device";
    } else if (!strcmp(algo, "brute")) {
        if (set->n > 1) {
            hay_refuse(set, "brute takes one pattern (%zu given); pfac takes any number",
                       set->n);
            return HAY_ERR_UNSUPPORTED;
        }
        which = ALGO_BRUTE;
        set->reason = "algorithm chosen by the caller";
    } else if (!strcmp(algo, "pfac")) {
        which = ALGO_PFAC;
        set->reason = "algorithm chosen by the caller";
    } else {
        return HAY_ERR_UNKNOWN_NAME;
    }
    ocl_state *st = calloc(1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    pthread_mutex_init(&st->lock, NULL);
    st->kn = kn;
    st->algo = which;
    hay_status s;

    /* Initialization: device, context, program, queue, kernels.  The
     * meter opens first so that it sees this phase too. */
    int dom = -1, bus = -1, nvidia = 0;
    s = hay_ocl_peek(kn.device[0] ? kn.device : NULL, &nvidia, &dom, &bus);
    if (s < 0)
        goto fail;
    if (nvidia)
        st->meter = hay_ocl_meter(dom, bus);
    st->metering = true;
    phase_mark m0 = hay_ocl_mark(st);
    double ignored;
    s = hay_ocl_open(kn.device[0] ? kn.device : NULL, HAY_OCL_PROG_SEARCH, kn.cache,
                     &st->dev, &ignored);
    if (s < 0)
        goto fail;
    cl_int err;
    st->q = clCreateCommandQueue(st->dev->ctx, st->dev->did, 0, &err);
    s = hay_ocl_status(err);
    if (s < 0)
        goto fail;
    if (hay_params_given(&hay_opencl_param_table, &kn, "transfer")) {
        st->map = kn.transfer == TRANSFER_MAP;
        st->pinned = kn.transfer == TRANSFER_PINNED;
    } else {
        st->map = st->dev->unified;
    }
    phase_mark m1 = hay_ocl_mark_end(st);
    st->init_s = m1.t - m0.t;
    st->init_j = m0.j >= 0 && m1.j >= 0 ? m1.j - m0.j : -1;

    /* Preparation: the automaton on the CPU, its tables on the device. */
    if (which == ALGO_PFAC) {
        size_t budget = DENSE_LIMIT;
        if (budget > st->dev->max_alloc / 4)
            budget = (size_t)(st->dev->max_alloc / 4);
        if (kn.table == TABLE_DENSE)
            budget = (size_t)st->dev->max_alloc;
        if (kn.table == TABLE_COMPACT)
            budget = 0;
        s = hay_pfac_build(set, budget, &st->pfac);
        if (s < 0)
            goto fail;
        if (kn.table == TABLE_DENSE && !st->pfac->next) {
            hay_refuse(set, "table=dense: the PFAC table of these patterns takes %zu "
                       "bytes, more than the device allows (%zu); table=compact fits",
                       st->pfac->dense_bytes, budget);
            s = HAY_ERR_TOO_LARGE;
            goto fail;
        }
        st->dense = st->pfac->next != NULL;
    }
    s = make_kernels(st, set);
    if (s < 0)
        goto fail;
    s = upload_tables(st, set);
    if (s < 0)
        goto fail;
    st->cap = (size_t)kn.cap;
    if (st->cap < set->n)
        st->cap = set->n;   /* one end position's matches always fit */
    s = result_buffers(st, set);
    if (s < 0)
        goto fail;
    uint64_t piece = kn.piece;
    uint64_t room = st->dev->max_alloc > set->max_len ? st->dev->max_alloc - set->max_len : 0;
    if (piece > room)
        piece = room;
    if (piece > MAX_PIECE)
        piece = MAX_PIECE;
    st->piece = piece ? piece : 1;
    err = clFinish(st->q);
    s = hay_ocl_status(err);
    if (s < 0)
        goto fail;
    phase_mark m2 = hay_ocl_mark_end(st);
    st->prep_s = m2.t - m1.t;
    st->prep_j = m1.j >= 0 && m2.j >= 0 ? m2.j - m1.j : -1;

    set->state = st;
    set->algo_name = which == ALGO_PFAC ? "pfac" : "brute";
    set->state_memory = sizeof *st + st->cap * 16 + set->n * 4 +
                        (st->pfac ? st->pfac->memory : 0) + st->device_bytes;
    return HAY_OK;
fail:
    state_free(set, st);
    return s;
}

/* The launch shape and knobs in effect (for benchmarks and tests). */
hay_status hay_opencl_describe_set(const hay_patterns *set, char *buf, size_t cap)
{
    RETURN_ERROR_IF(!set || !buf || set->backend != &hay_opencl_backend || !set->state,
                    HAY_ERR_INVALID);
    const ocl_state *st = set->state;
    snprintf(buf, cap, "device=%d:%d algo=%s transfer=%s local=%d wg=%zu bpw=%zu "
             "table=%s staged=%zu cap=%zu piece=%llu energy=%s",
             st->dev->platform, st->dev->device, st->algo == ALGO_PFAC ? "pfac" : "brute",
             st->pinned ? "pinned" : st->map ? "map" : "copy", st->kn.local, st->wg, st->bpw,
             st->algo == ALGO_BRUTE ? "-" : st->dense ? "dense" : "compact",
             st->staged, st->cap, (unsigned long long)st->piece,
             hay_energy_method(st->meter));
    return HAY_OK;
}

static hay_status opencl_available(void)
{
    return hay_ocl_device_count() > 0 ? HAY_OK : HAY_ERR_NO_DEVICE;
}
static int opencl_device_count(void) { return hay_ocl_device_count(); }
static hay_status opencl_describe(int index, char *buf, size_t cap)
{
    return hay_ocl_describe(index, buf, cap);
}
static const char *const opencl_algos[] = { "brute", "pfac", NULL };

const hay_backend_ops hay_opencl_backend = {
    .id = HAY_BACKEND_OPENCL, .name = "opencl", .available = opencl_available,
    .device_count = opencl_device_count, .describe = opencl_describe,
    .algos = opencl_algos, .compile = opencl_compile, .destroy = opencl_destroy,
    .scan = hay_ocl_scan, .count = hay_ocl_count, .count_each = hay_ocl_count_each,
    .param_tables = opencl_param_tables,
};

#else /* no OpenCL */

static hay_status opencl_available(void) { return HAY_ERR_NO_BACKEND; }
static int opencl_device_count(void) { return 0; }
static hay_status opencl_describe(int index, char *buf, size_t cap)
{
    (void)index; (void)buf; (void)cap;
    return HAY_ERR_NO_BACKEND;
}
static hay_status opencl_compile(hay_patterns *set, const char *algo)
{
    (void)set; (void)algo;
    return HAY_ERR_NO_BACKEND;
}
static const char *const opencl_algos[] = { NULL };

hay_status hay_opencl_describe_set(const hay_patterns *set, char *buf, size_t cap)
{
    (void)set; (void)buf; (void)cap;
    return HAY_ERR_NO_BACKEND;
}

const hay_backend_ops hay_opencl_backend = {
    .id = HAY_BACKEND_OPENCL, .name = "opencl", .available = opencl_available,
    .device_count = opencl_device_count, .describe = opencl_describe,
    .algos = opencl_algos, .compile = opencl_compile,
    .param_tables = opencl_param_tables,
};
#endif
