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
 * Matches reach the callback in order of end, then pattern id: each launch
 * returns its list unordered and the host sorts it (radix sort on the
 * 64-bit key end << 20 | id).  Device memory stays bounded: the text moves
 * in pieces, the list in launches of at most `cap` matches; when the device
 * runs out of memory the piece size is halved and the piece retried.
 * Streams are not supported (HAY_ERR_UNSUPPORTED from hay_stream_open).
 */
#include "../core/internal.h"
#include "hay_opencl.h"

#include <stdio.h>

/* Parameters (the keys above; core/params.h parses them at compile). */
enum { TRANSFER_COPY, TRANSFER_MAP, TRANSFER_PINNED };
enum { TABLE_AUTO, TABLE_DENSE, TABLE_COMPACT };
typedef struct knobs {
    uint64_t given;
    char device[64];       /* "" when not given */
    int transfer;          /* TRANSFER_*; when not given: map on unified memory */
    bool local, cache;
    uint64_t wg, bpw;
    int table;             /* TABLE_* */
    uint64_t cap, piece;
} knobs;

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

#ifdef HAY_HAVE_OPENCL
#include "../core/energy.h"
#include "ocl_rt.h"

#include <pthread.h>
#include <stdlib.h>

#define ID_BITS 20
#define MAX_PIECE ((uint64_t)1 << 31)   /* the largest piece= */
#define MIN_PIECE ((uint64_t)64 << 10)
#define DENSE_LIMIT ((size_t)256 << 20)
#define LOCAL_TEXT_MAX ((size_t)32 << 10)

enum { ALGO_BRUTE, ALGO_PFAC };
enum { MODE_COUNT, MODE_EACH, MODE_LIST, NMODES };
enum { PHASE_WRITE, PHASE_KERNEL, PHASE_READ, NPHASES };

/* Kernel argument positions (search.cl). */
enum {
    A_TEXT, A_FIRST, A_LIMIT, A_MIN_END, A_BPW, A_USE_LOCAL, A_STAGED,
    /* PFAC */
    P_ROOT = 7, P_CLS, P_T0, P_NCLS, P_T2, P_T3, P_NFINAL, P_OUT_FIRST,
    P_OUT_ID, P_LROOT, P_LCLS, P_LTEXT, P_RES,
    /* brute force */
    B_PAT = 7, B_M, B_CASELESS, B_LROOT, B_LCLS, B_LTEXT, B_RES
};
/* Offsets from the first result argument. */
enum { R_PARTIAL, R_RED, R_COUNTS, R_LIST, R_FLAGS, R_CAP };


typedef struct ocl_state {
    hay_ocl_dev *dev;
    knobs kn;
    int algo, map, pinned, dense;
    size_t wg, bpw, staged, cap;
    cl_command_queue q;
    cl_kernel k[NMODES];
    hay_pfac *pfac;
    /* tables */
    cl_mem d_root, d_cls, d_t0, d_t2, d_t3, d_out_first, d_out_id, d_pat;
    size_t device_bytes;
    /* scan buffers, grown as needed, guarded by lock */
    pthread_mutex_t lock;
    cl_mem d_text, d_partial, d_counts, d_list, d_flags;
    size_t text_cap, partial_cap;
    uint64_t piece;        /* current piece size (halved on out-of-memory) */
    uint64_t *keys, *tmp;  /* host copies of one launch's list */
    cl_mem h_stage;        /* transfer=pinned: the staging buffer, mapped */
    void *stage;
    size_t stage_cap;
    uint32_t *hcounts;
    /* phases paid at compile, reported by the first scan */
    double init_s, prep_s, init_j, prep_j;
    bool reported;
    hay_energy *meter;     /* the device's (process-wide, see ocl_rt.c) or NULL */
    bool metering;         /* read it in this scan (only when stats are asked:
                              a reading costs a driver call of ~ms) */
    /* per scan */
    double phase_s[NPHASES], phase_j[NPHASES];
} ocl_state;

/* Energy --------------------------------------------------------------------------- */

static double joules(ocl_state *st)
{
    return st->meter && st->metering ? hay_energy_read(st->meter) : -1;
}

/* Buffers ---------------------------------------------------------------------------- */

static void release(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

/* A read-only table on the device, written once. */
static hay_status table_buffer(ocl_state *st, const void *src, size_t size,
                               cl_mem *out)
{
    cl_int err;
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, CL_MEM_READ_ONLY, size ? size : 1, out, &err));
    if (size) {
        err = clEnqueueWriteBuffer(st->q, *out, CL_TRUE, 0, size, src, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            release(out);
            return hay_ocl_status(err);
        }
    }
    st->device_bytes += size;
    return HAY_OK;
}

/* Scan buffers: host-accessible in map mode. */
static cl_mem_flags scan_flags(const ocl_state *st, cl_mem_flags f)
{
    return st->map ? f | CL_MEM_ALLOC_HOST_PTR : f;
}

/* Makes *m at least `size` bytes. */
static cl_int ensure(ocl_state *st, cl_mem *m, size_t *have, size_t size,
                     cl_mem_flags flags)
{
    if (*m && *have >= size)
        return CL_SUCCESS;
    release(m);
    *have = 0;
    cl_int err;
    hay_ocl_buffer(st->dev, scan_flags(st, flags), size, m, &err);
    if (err == CL_SUCCESS)
        *have = size;
    return err;
}

static void stage_release(ocl_state *st)
{
    if (st->stage)
        clEnqueueUnmapMemObject(st->q, st->h_stage, st->stage, 0, NULL, NULL);
    if (st->h_stage)
        clFinish(st->q);
    release(&st->h_stage);
    st->stage = NULL;
    st->stage_cap = 0;
}

/* transfer=pinned: a staging buffer of at least n bytes, mapped. */
static cl_int stage_ensure(ocl_state *st, size_t n)
{
    if (st->stage && st->stage_cap >= n)
        return CL_SUCCESS;
    stage_release(st);
    size_t size = n < ((size_t)1 << 20) ? (size_t)1 << 20 : n;
    cl_int err;
    hay_ocl_buffer(st->dev, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, &st->h_stage, &err);
    if (err != CL_SUCCESS)
        return err;
    st->stage = clEnqueueMapBuffer(st->q, st->h_stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                   0, size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        st->stage = NULL;
        release(&st->h_stage);
        return err;
    }
    st->stage_cap = size;
    return CL_SUCCESS;
}

/* host -> device: data[0, n) to the start of buf. */
static cl_int put(ocl_state *st, cl_mem buf, const void *data, size_t n)
{
    if (st->pinned) {
        cl_int err = stage_ensure(st, n);
        if (err != CL_SUCCESS)
            return err;
        memcpy(st->stage, data, n);
        return clEnqueueWriteBuffer(st->q, buf, CL_TRUE, 0, n, st->stage, 0, NULL, NULL);
    }
    if (!st->map)
        return clEnqueueWriteBuffer(st->q, buf, CL_TRUE, 0, n, data, 0, NULL, NULL);
    cl_int err;
    void *p = clEnqueueMapBuffer(st->q, buf, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                 0, n, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return err;
    memcpy(p, data, n);
    err = clEnqueueUnmapMemObject(st->q, buf, p, 0, NULL, NULL);
    return err != CL_SUCCESS ? err : clFinish(st->q);
}

/* device -> host: buf[off, off + n) to out. */
static cl_int get_at(ocl_state *st, cl_mem buf, size_t off, void *out, size_t n)
{
    if (n == 0)
        return CL_SUCCESS;
    if (st->pinned) {
        cl_int err = stage_ensure(st, n);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(st->q, buf, CL_TRUE, off, n, st->stage, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            memcpy(out, st->stage, n);
        return err;
    }
    if (!st->map)
        return clEnqueueReadBuffer(st->q, buf, CL_TRUE, off, n, out, 0, NULL, NULL);
    cl_int err;
    void *p = clEnqueueMapBuffer(st->q, buf, CL_TRUE, CL_MAP_READ, off, n, 0, NULL,
                                 NULL, &err);
    if (err != CL_SUCCESS)
        return err;
    memcpy(out, p, n);
    err = clEnqueueUnmapMemObject(st->q, buf, p, 0, NULL, NULL);
    return err != CL_SUCCESS ? err : clFinish(st->q);
}

static cl_int get(ocl_state *st, cl_mem buf, void *out, size_t n)
{
    return get_at(st, buf, 0, out, n);
}

static cl_int zero(ocl_state *st, cl_mem buf, size_t n)
{
    static const cl_uint z = 0;
    cl_int err = clEnqueueFillBuffer(st->q, buf, &z, sizeof z, 0, n, 0, NULL, NULL);
    return err != CL_SUCCESS ? err : clFinish(st->q);
}

/* Phases of a scan: time and energy from begin to end. */
typedef struct phase_mark {
    double t, j;
} phase_mark;

/* The start of a phase: the meter first, so that the time of reading it
 * (a driver call) stays out of the phase. */
static phase_mark mark(ocl_state *st)
{
    phase_mark m;
    m.j = joules(st);
    m.t = hay_now();
    return m;
}

/* The end of a phase: the clock first. */
static phase_mark mark_end(ocl_state *st)
{
    phase_mark m;
    m.t = hay_now();
    m.j = joules(st);
    return m;
}

static void account(ocl_state *st, int phase, phase_mark m0)
{
    phase_mark m1 = mark_end(st);
    st->phase_s[phase] += m1.t - m0.t;
    if (m0.j >= 0 && m1.j >= 0 && st->phase_j[phase] >= 0)
        st->phase_j[phase] += m1.j - m0.j;
    else
        st->phase_j[phase] = -1;
}

/* Launches ----------------------------------------------------------------------------- */

#define SET(k, i, v) clSetKernelArg((k), (cl_uint)(i), sizeof(v), &(v))

/* Groups for start positions [first, limit). */
static size_t groups_for(const ocl_state *st, uint64_t first, uint64_t limit)
{
    uint64_t per = (uint64_t)st->wg * st->bpw;
    return (size_t)((limit - first + per - 1) / per);
}

/* One launch of the mode's kernel over starts [first, limit), reporting
 * ends in (min_end, limit]. */
static cl_int launch(ocl_state *st, int mode, uint64_t first, uint64_t limit,
                     uint64_t min_end)
{
    cl_kernel k = st->k[mode];
    cl_uint f = (cl_uint)first, l = (cl_uint)limit, me = (cl_uint)min_end;
    cl_uint bpw = (cl_uint)st->bpw, staged = (cl_uint)st->staged, cap = (cl_uint)st->cap;
    cl_int use_local = st->kn.local;
    int res = st->algo == ALGO_PFAC ? P_RES : B_RES;
    cl_int err = SET(k, A_TEXT, st->d_text);
    err |= SET(k, A_FIRST, f);
    err |= SET(k, A_LIMIT, l);
    err |= SET(k, A_MIN_END, me);
    err |= SET(k, A_BPW, bpw);
    err |= SET(k, A_USE_LOCAL, use_local);
    err |= SET(k, A_STAGED, staged);
    err |= SET(k, res + R_PARTIAL, st->d_partial);
    err |= SET(k, res + R_COUNTS, st->d_counts);
    err |= SET(k, res + R_LIST, st->d_list);
    err |= SET(k, res + R_FLAGS, st->d_flags);
    err |= SET(k, res + R_CAP, cap);
    if (err != CL_SUCCESS)
        return CL_INVALID_KERNEL_ARGS;
    size_t local = st->wg, global = groups_for(st, first, limit) * st->wg;
    if (global == 0)
        return CL_SUCCESS;
    err = clEnqueueNDRangeKernel(st->q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    return err != CL_SUCCESS ? err : clFinish(st->q);
}

/* LSD radix sort of 64-bit keys, 16 bits a pass, over the bits in use. */
static void sort_keys(uint64_t *a, uint64_t *tmp, size_t n, uint64_t max_key)
{
    static const int DIGIT = 16;
    size_t *cnt = calloc((size_t)1 << DIGIT, sizeof *cnt);
    if (!cnt || n < 64) {
        free(cnt);
        for (size_t i = 1; i < n; i++) {   /* small (or no memory): insertion */
            uint64_t v = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > v; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    for (int shift = 0; shift < 64 && (max_key >> shift); shift += DIGIT) {
        memset(cnt, 0, ((size_t)1 << DIGIT) * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(a[i] >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < ((size_t)1 << DIGIT); d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[cnt[(a[i] >> shift) & 0xffff]++] = a[i];
        memcpy(a, tmp, n * sizeof *a);
    }
    free(cnt);
}

typedef struct sink {
    const hay_patterns *set;
    hay_match_fn fn;
    void *ctx;
    uint64_t base;       /* offset of the piece in the haystack */
    uint64_t matches;
    uint64_t done_end;   /* every match ending at or before this was delivered */
    bool stopped;
} sink;

/*
 * The matches ending in (a, b] of the piece on the device, delivered in
 * order.  When they do not fit the list, the range is split in two and
 * each half is run again; a range of one end position always fits
 * (cap >= number of patterns).
 */
static cl_int list_range(ocl_state *st, uint64_t a, uint64_t b, sink *sk)
{
    uint64_t back = sk->set->max_len - 1;
    uint64_t first = a >= back ? a - back : 0;
    phase_mark m = mark(st);
    cl_int err = zero(st, st->d_flags, 2 * sizeof(cl_uint));
    account(st, PHASE_WRITE, m);
    if (err != CL_SUCCESS)
        return err;
    m = mark(st);
    err = launch(st, MODE_LIST, first, b, a);
    account(st, PHASE_KERNEL, m);
    if (err != CL_SUCCESS)
        return err;
    cl_uint flags[2];
    m = mark(st);
    err = get(st, st->d_flags, flags, sizeof flags);
    bool over = err == CL_SUCCESS && flags[1] != 0;
    size_t n = over ? 0 : flags[0];
    if (err == CL_SUCCESS && n)
        err = get(st, st->d_list, st->keys, n * sizeof *st->keys);
    account(st, PHASE_READ, m);
    if (err != CL_SUCCESS)
        return err;
    if (over) {
        if (b - a <= 1)
            return CL_OUT_OF_RESOURCES;   /* cannot happen: cap >= patterns */
        uint64_t mid = a + (b - a) / 2;
        err = list_range(st, a, mid, sk);
        if (err != CL_SUCCESS || sk->stopped)
            return err;
        return list_range(st, mid, b, sk);
    }
    sort_keys(st->keys, st->tmp, n, ((uint64_t)b << ID_BITS) | ((1u << ID_BITS) - 1));
    sk->matches += n;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = (uint32_t)(st->keys[i] & ((1u << ID_BITS) - 1));
        uint64_t end = sk->base + (st->keys[i] >> ID_BITS);
        if (sk->fn(id, end - sk->set->len[id], end, sk->ctx)) {
            sk->stopped = true;
            break;
        }
    }
    sk->done_end = sk->base + b;
    return CL_SUCCESS;
}

/* The buffers a piece of n bytes needs. */
static cl_int piece_buffers(ocl_state *st, size_t n, int mode)
{
    cl_int err = ensure(st, &st->d_text, &st->text_cap, n, CL_MEM_READ_ONLY);
    if (err == CL_SUCCESS && mode == MODE_COUNT)
        err = ensure(st, &st->d_partial, &st->partial_cap,
                     groups_for(st, 0, n) * sizeof(cl_ulong), CL_MEM_READ_WRITE);
    return err;
}

typedef struct scan_req {
    int mode;
    hay_match_fn fn;
    void *ctx;
    uint64_t *count;
    uint64_t *counts;
} scan_req;

/* One piece: the text data[lo, e) on the device, matches ending in (s, e]. */
static cl_int run_piece(ocl_state *st, const hay_patterns *set,
                        const uint8_t *data, uint64_t lo, uint64_t s,
                        uint64_t e, const scan_req *rq, sink *sk)
{
    size_t n = (size_t)(e - lo);
    phase_mark m = mark(st);
    cl_int err = piece_buffers(st, n, rq->mode);
    if (err == CL_SUCCESS)
        err = put(st, st->d_text, data + lo, n);
    if (err == CL_SUCCESS && rq->mode == MODE_EACH)
        err = zero(st, st->d_counts, set->n * sizeof(cl_uint));
    account(st, PHASE_WRITE, m);
    if (err != CL_SUCCESS)
        return err;
    if (rq->mode == MODE_LIST) {
        sk->base = lo;
        return list_range(st, s - lo, n, sk);
    }
    m = mark(st);
    err = launch(st, rq->mode, 0, n, s - lo);
    account(st, PHASE_KERNEL, m);
    if (err != CL_SUCCESS)
        return err;
    m = mark(st);
    if (rq->mode == MODE_COUNT) {
        /* The groups' sums, read in slices of the host list buffer. */
        size_t g = groups_for(st, 0, n);
        uint64_t *part = st->keys, c = 0;
        for (size_t done = 0; done < g && err == CL_SUCCESS;) {
            size_t now = g - done < st->cap ? g - done : st->cap;
            err = get_at(st, st->d_partial, done * sizeof *part, part, now * sizeof *part);
            for (size_t i = 0; i < now && err == CL_SUCCESS; i++)
                c += part[i];
            done += now;
        }
        if (err == CL_SUCCESS)
            *rq->count += c;
    } else {
        err = get(st, st->d_counts, st->hcounts, set->n * sizeof(cl_uint));
        for (size_t i = 0; i < set->n && err == CL_SUCCESS; i++)
            rq->counts[i] += st->hcounts[i];
    }
    account(st, PHASE_READ, m);
    return err;
}

static hay_status run_scan(const hay_patterns *set, const uint8_t *data,
                           uint64_t len, const hay_scan_opts *o,
                           const scan_req *rq)
{
    ocl_state *st = set->state;
    double t0 = hay_now();
    pthread_mutex_lock(&st->lock);
    for (int i = 0; i < NPHASES; i++)
        st->phase_s[i] = st->phase_j[i] = 0;
    st->metering = o->stats != NULL;
    double j0 = joules(st);
    sink sk = { set, rq->fn, rq->ctx, 0, 0, 0, false };
    uint64_t back = set->max_len - 1;
    hay_status status = HAY_OK;
    for (uint64_t s = 0; s < len && !sk.stopped;) {
        uint64_t lo = s >= back ? s - back : 0;
        uint64_t e = len - s > st->piece ? s + st->piece : len;
        cl_int err = run_piece(st, set, data, lo, s, e, rq, &sk);
        if (err != CL_SUCCESS) {
            /* Out of device memory: smaller pieces, down to MIN_PIECE.
             * Nothing is counted twice: counts are added only when a
             * piece has completed, and the match list goes on from the
             * last end it delivered. */
            if (hay_ocl_is_oom(err) && st->piece / 2 >= MIN_PIECE) {
                st->piece /= 2;
                release(&st->d_text);
                release(&st->d_partial);
                st->text_cap = st->partial_cap = 0;
                stage_release(st);
                if (sk.done_end > s)
                    s = sk.done_end;
                continue;
            }
            status = hay_ocl_is_oom(err) ? HAY_ERR_NOMEM : hay_ocl_status(err);
            break;
        }
        s = e;
        if (o->progress)
            o->progress(s, len, o->progress_ctx);
    }
    double j1 = joules(st);
    if (o->stats) {
        hay_scan_stats *x = o->stats;
        memset(x, 0, sizeof *x);
        x->backend = HAY_BACKEND_OPENCL;
        x->algo = st->algo == ALGO_PFAC ? "pfac" : "brute";
        if (!st->reported) {
            x->init_seconds = st->init_s;
            x->prepare_seconds = st->prep_s;
        }
        x->copy_in_seconds = st->phase_s[PHASE_WRITE];
        x->kernel_seconds = st->phase_s[PHASE_KERNEL];
        x->copy_out_seconds = st->phase_s[PHASE_READ];
        x->bytes = len;
        x->matches = rq->mode == MODE_LIST ? sk.matches
                   : rq->mode == MODE_COUNT ? *rq->count : 0;
        if (rq->mode == MODE_EACH)
            for (size_t i = 0; i < set->n; i++)
                x->matches += rq->counts[i];
        x->energy_joules = j0 >= 0 && j1 >= 0 ? j1 - j0 : -1;
        x->init_joules = st->reported ? 0 : st->init_j;
        x->prepare_joules = st->reported ? 0 : st->prep_j;
        x->copy_in_joules = st->phase_j[PHASE_WRITE];
        x->kernel_joules = st->phase_j[PHASE_KERNEL];
        x->copy_out_joules = st->phase_j[PHASE_READ];
        if (!st->meter || j0 < 0 || j1 < 0)
            x->init_joules = x->prepare_joules = x->copy_in_joules =
                x->kernel_joules = x->copy_out_joules = -1;
        x->energy_method = hay_energy_method(st->meter);
        x->total_seconds = hay_now() - t0;
    }
    st->reported = true;
    pthread_mutex_unlock(&st->lock);
    if (status == HAY_OK && sk.stopped)
        status = HAY_STOPPED;
    return status;
}

/* The ops ------------------------------------------------------------------------------ */

static hay_status opencl_scan(const hay_patterns *set, hay_scratch *scratch,
                              const uint8_t *data, uint64_t len,
                              const hay_scan_opts *o, hay_match_fn fn, void *ctx)
{
    (void)scratch;
    scan_req rq = { MODE_LIST, fn, ctx, NULL, NULL };
    return run_scan(set, data, len, o, &rq);
}

static hay_status opencl_count(const hay_patterns *set, hay_scratch *scratch,
                               const uint8_t *data, uint64_t len,
                               const hay_scan_opts *o, uint64_t *count)
{
    (void)scratch;
    *count = 0;
    scan_req rq = { MODE_COUNT, NULL, NULL, count, NULL };
    hay_status s = run_scan(set, data, len, o, &rq);
    if (s < 0)
        *count = 0;
    return s;
}

static hay_status opencl_count_each(const hay_patterns *set, hay_scratch *scratch,
                                    const uint8_t *data, uint64_t len,
                                    const hay_scan_opts *o, uint64_t *counts)
{
    (void)scratch;
    scan_req rq = { MODE_EACH, NULL, NULL, NULL, counts };
    return run_scan(set, data, len, o, &rq);
}

static void state_free(const hay_patterns *set, ocl_state *st)
{
    if (!st)
        return;
    for (int i = 0; i < NMODES; i++)
        if (st->k[i])
            clReleaseKernel(st->k[i]);
    if (st->q)
        stage_release(st);
    cl_mem *bufs[] = { &st->d_root, &st->d_cls, &st->d_t0, &st->d_t2, &st->d_t3,
                       &st->d_out_first, &st->d_out_id, &st->d_pat, &st->d_text,
                       &st->d_partial, &st->d_counts, &st->d_list, &st->d_flags };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        release(bufs[i]);
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
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, scan_flags(st, CL_MEM_READ_WRITE),
                                    st->cap * 8, &st->d_list, &err));
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, scan_flags(st, CL_MEM_READ_WRITE),
                                    2 * sizeof(cl_uint), &st->d_flags, &err));
    FORWARD_IF_ERROR(hay_ocl_buffer(st->dev, scan_flags(st, CL_MEM_READ_WRITE),
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
        RETURN_ERROR_IF(set->n > 1, HAY_ERR_UNSUPPORTED);
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
    phase_mark m0 = mark(st);
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
    phase_mark m1 = mark_end(st);
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
    phase_mark m2 = mark_end(st);
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
    .scan = opencl_scan, .count = opencl_count, .count_each = opencl_count_each,
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
};
#endif
