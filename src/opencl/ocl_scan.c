/*
 * ocl_scan.c - the scan of the OpenCL search backend (opencl_backend.c
 * compiles the set; ocl_search.h): buffers and transfers (transfer=copy,
 * map or pinned), the write, kernel and read phases with their time and
 * energy, the launches, the match list, and the text in pieces.
 *
 * Matches reach the callback in order of end, then pattern id: each launch
 * returns its list unordered and the host sorts it (radix sort on the
 * 64-bit key end << 20 | id).  Device memory stays bounded: the text moves
 * in pieces, the list in launches of at most `cap` matches; when the device
 * runs out of memory the piece size is halved and the piece retried.
 */
#include "ocl_search.h"

#include <stdlib.h>

#define ID_BITS 20
#define MIN_PIECE ((uint64_t)64 << 10)

/* Energy --------------------------------------------------------------------------- */

static double joules(ocl_state *st)
{
    return st->meter && st->metering ? hay_energy_read(st->meter) : -1;
}

/* Buffers ---------------------------------------------------------------------------- */

void hay_ocl_release(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

/* Scan buffers: host-accessible in map mode. */
cl_mem_flags hay_ocl_scan_flags(const ocl_state *st, cl_mem_flags f)
{
    return st->map ? f | CL_MEM_ALLOC_HOST_PTR : f;
}

/* Makes *m at least `size` bytes. */
static cl_int ensure(ocl_state *st, cl_mem *m, size_t *have, size_t size,
                     cl_mem_flags flags)
{
    if (*m && *have >= size)
        return CL_SUCCESS;
    hay_ocl_release(m);
    *have = 0;
    cl_int err;
    hay_ocl_buffer(st->dev, hay_ocl_scan_flags(st, flags), size, m, &err);
    if (err == CL_SUCCESS)
        *have = size;
    return err;
}

void hay_ocl_stage_release(ocl_state *st)
{
    if (st->stage)
        clEnqueueUnmapMemObject(st->q, st->h_stage, st->stage, 0, NULL, NULL);
    if (st->h_stage)
        clFinish(st->q);
    hay_ocl_release(&st->h_stage);
    st->stage = NULL;
    st->stage_cap = 0;
}

/* transfer=pinned: a staging buffer of at least n bytes, mapped. */
static cl_int stage_ensure(ocl_state *st, size_t n)
{
    if (st->stage && st->stage_cap >= n)
        return CL_SUCCESS;
    hay_ocl_stage_release(st);
    size_t size = n < ((size_t)1 << 20) ? (size_t)1 << 20 : n;
    cl_int err;
    hay_ocl_buffer(st->dev, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, &st->h_stage, &err);
    if (err != CL_SUCCESS)
        return err;
    st->stage = clEnqueueMapBuffer(st->q, st->h_stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                   0, size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        st->stage = NULL;
        hay_ocl_release(&st->h_stage);
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

/* Phases of a scan: time and energy from begin to end ---------------------------- */

/* The start of a phase: the meter first, so that the time of reading it
 * (a driver call) stays out of the phase. */
phase_mark hay_ocl_mark(ocl_state *st)
{
    phase_mark m;
    m.j = joules(st);
    m.t = hay_now();
    return m;
}

/* The end of a phase: the clock first. */
phase_mark hay_ocl_mark_end(ocl_state *st)
{
    phase_mark m;
    m.t = hay_now();
    m.j = joules(st);
    return m;
}

static void account(ocl_state *st, int phase, phase_mark m0)
{
    phase_mark m1 = hay_ocl_mark_end(st);
    st->phase_s[phase] += m1.t - m0.t;
    if (m0.j >= 0 && m1.j >= 0 && st->phase_j[phase] >= 0)
        st->phase_j[phase] += m1.j - m0.j;
    else
        st->phase_j[phase] = -1;
}

/* Launches ----------------------------------------------------------------------------- */

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

/* The sorted keys[0, n) into a batch's array, with no call per match;
 * false when the caller's callback stopped. */
static bool deliver_batch(const sink *sk, const uint64_t *keys, size_t n, hay_batcher *bt)
{
    for (size_t k = 0; k < n;) {
        size_t room;
        hay_match *d = hay_batch_room(bt, &room);
        if (!d)
            return false;
        size_t take = n - k < room ? n - k : room;
        for (size_t j = 0; j < take; j++) {
            uint32_t id = (uint32_t)(keys[k + j] & ((1u << ID_BITS) - 1));
            uint64_t end = sk->base + (keys[k + j] >> ID_BITS);
            d[j] = (hay_match){ id, 0, end - sk->set->len[id], end };
        }
        k += take;
        if (hay_batch_commit(bt, take))
            return false;
    }
    return true;
}

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
    phase_mark m = hay_ocl_mark(st);
    cl_int err = zero(st, st->d_flags, 2 * sizeof(cl_uint));
    account(st, PHASE_WRITE, m);
    if (err != CL_SUCCESS)
        return err;
    m = hay_ocl_mark(st);
    err = launch(st, MODE_LIST, first, b, a);
    account(st, PHASE_KERNEL, m);
    if (err != CL_SUCCESS)
        return err;
    cl_uint flags[2];
    m = hay_ocl_mark(st);
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
    hay_batcher *bt = hay_batcher_of(sk->fn, sk->ctx);
    if (bt)
        sk->stopped = !deliver_batch(sk, st->keys, n, bt);
    for (size_t i = 0; i < n && !bt; i++) {
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
    phase_mark m = hay_ocl_mark(st);
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
    m = hay_ocl_mark(st);
    err = launch(st, rq->mode, 0, n, s - lo);
    account(st, PHASE_KERNEL, m);
    if (err != CL_SUCCESS)
        return err;
    m = hay_ocl_mark(st);
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
                hay_ocl_release(&st->d_text);
                hay_ocl_release(&st->d_partial);
                st->text_cap = st->partial_cap = 0;
                hay_ocl_stage_release(st);
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

/* The ops' scans ---------------------------------------------------------------------- */

hay_status hay_ocl_scan(const hay_patterns *set, hay_scratch *scratch,
                        const uint8_t *data, uint64_t len,
                        const hay_scan_opts *o, hay_match_fn fn, void *ctx)
{
    (void)scratch;
    scan_req rq = { MODE_LIST, fn, ctx, NULL, NULL };
    return run_scan(set, data, len, o, &rq);
}

hay_status hay_ocl_count(const hay_patterns *set, hay_scratch *scratch,
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

hay_status hay_ocl_count_each(const hay_patterns *set, hay_scratch *scratch,
                              const uint8_t *data, uint64_t len,
                              const hay_scan_opts *o, uint64_t *counts)
{
    (void)scratch;
    scan_req rq = { MODE_EACH, NULL, NULL, NULL, counts };
    return run_scan(set, data, len, o, &rq);
}
