/*
 * pipeline.c - one scan on the GPU: a host input is cut into pieces of
 * `chunk` bytes; piece i goes to slot i mod streams: staged (parallel
 * memcpy into pinned memory, stage.c, or copied where it lies, hostreg.c),
 * copied in, searched and its results copied out on the slot's stream, so
 * copies and kernels of different pieces overlap.  Results are drained in
 * piece order, which keeps matches in order of end.  Every piece is handed
 * to the engine with the longest pattern - 1 bytes before it
 * (cuda_engine.h), so each match is found in exactly one piece.  A split's
 * GPU side takes its pieces from a hay_piece_source instead.
 *
 * A listing piece whose matches overflow the slot's list is split in two
 * and searched again (the text is still on the device), recursively; a
 * range of one end position that still overflows (more duplicate patterns
 * than slots) is searched on the host with the PFAC tables.  Nothing is
 * lost and device memory stays bounded.  Matches are sorted on the device
 * by (end, id) with CUB before they reach the callback.
 */
#include "driver.h"
#include "hostreg.h"

#include <stdlib.h>

int hay_cuda_sort_keys(void *d_temp, size_t *temp_bytes,
                       const unsigned long long *in, unsigned long long *out,
                       size_t n, int end_bit, void *stream);

typedef struct scan_req {
    const hay_patterns *set;
    cuda_set *cs;
    const uint8_t *host;     /* host input, or */
    const uint8_t *dev;      /* device-resident input (padded) */
    uint64_t len;
    const hay_scan_opts *o;
    hay_ask ask;
    hay_match_fn fn;
    void *ctx;
    uint64_t count;
    unsigned long long *d_pc;    /* HAY_ASK_EACH */
    hay_scan_stats st;
    cuda_pipe *pp;
    uint64_t chunk, back;
    bool stopped;
    unsigned stage_threads;  /* threads copying into pinned staging */
    const hay_piece_source *pieces;   /* split scans: pieces come from here */
    hay_hostreg *reg;        /* transfer=register: the input is pinned in place */
    hay_copy_pool *pool;     /* a split's staging copy threads */
    uint64_t direct_bytes;   /* bytes copied from the input itself */
    uint64_t staged_bytes;   /* bytes staged (or copied pageable) */
} scan_req;

typedef struct cb_sink {
    hay_match_fn fn;
    void *ctx;
    uint64_t n;
} cb_sink;

static int emit_cb(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    cb_sink *c = sink;
    c->n++;
    return c->fn(id, start, end, c->ctx);
}

static const uint8_t *slot_text(scan_req *r, cuda_slot *sl)
{
    return r->dev ? r->dev + sl->lo : sl->d_text;
}

static int end_bits(uint64_t len)
{
    int b = HAY_CUDA_ID_BITS + 1;
    while (b < 64 && (len >> (b - HAY_CUDA_ID_BITS)) != 0)
        b++;
    return b;
}

/* The sorted list into a batch's array, with no call per match; false
 * when the caller's callback stopped. */
static bool deliver_batch(scan_req *r, const cuda_slot *sl, uint64_t lo, uint64_t n,
                          hay_batcher *bt)
{
    const size_t *plen = r->set->len;
    for (uint64_t k = 0; k < n;) {
        size_t room;
        hay_match *d = hay_batch_room(bt, &room);
        if (!d)
            return false;
        size_t take = n - k < room ? (size_t)(n - k) : room;
        for (size_t j = 0; j < take; j++) {
            unsigned long long m = sl->h_m[k + j];
            uint64_t end = lo + HAY_CUDA_MATCH_END(m);
            uint32_t id = HAY_CUDA_MATCH_ID(m);
            d[j] = (hay_match){ id, 0, end - plen[id], end };
        }
        k += take;
        r->count += take;
        if (hay_batch_commit(bt, take))
            return false;
    }
    return true;
}

/* Hands the sorted list of n matches (local to `lo`) to the callback. */
static hay_status deliver(scan_req *r, cuda_slot *sl, uint64_t lo, uint64_t n)
{
    double t0 = hay_now();
    int bits = end_bits(sl->ge - lo);
    CU((cudaError_t)hay_cuda_sort_keys(sl->d_tmp, &sl->tmp_bytes, sl->d_m,
                                        sl->d_sorted, n, bits, sl->st));
    CU(cudaMemcpyAsync(sl->h_m, sl->d_sorted, n * sizeof *sl->h_m,
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaStreamSynchronize(sl->st));
    r->st.copy_out_seconds += hay_now() - t0;
    const size_t *plen = r->set->len;
    hay_batcher *bt = hay_batcher_of(r->fn, r->ctx);
    if (bt && !deliver_batch(r, sl, lo, n, bt)) {
        r->stopped = true;
        return HAY_STOPPED;
    }
    for (uint64_t k = 0; k < n && !bt; k++) {
        unsigned long long m = sl->h_m[k];
        uint64_t end = lo + HAY_CUDA_MATCH_END(m);
        uint32_t id = HAY_CUDA_MATCH_ID(m);
        r->count++;
        if (r->fn(id, end - plen[id], end, r->ctx)) {
            r->stopped = true;
            return HAY_STOPPED;
        }
    }
    return HAY_OK;
}

/* Searches again the ends (x, y] of the slot's piece, synchronously,
 * splitting while the list overflows. */
static hay_status rerun(scan_req *r, cuda_slot *sl, uint64_t x, uint64_t y)
{
    uint64_t lo = x >= r->back ? x - r->back : 0;
    if (lo < sl->lo)
        lo = sl->lo;
    const uint8_t *txt = slot_text(r, sl) + (lo - sl->lo);
    CU(cudaMemsetAsync(sl->d_ctr, 0, 2 * sizeof(unsigned long long), sl->st));
    hay_cuda_job job = { txt, y - lo, x - lo, sl->d_ctr, NULL, sl->d_m,
                         sl->d_ctr + 1, sl->cap, sl->st };
    FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    CU(cudaMemcpyAsync(sl->h_ctr, sl->d_ctr, 2 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaStreamSynchronize(sl->st));
    uint64_t n = sl->h_ctr[1];
    if (n <= sl->cap)
        return deliver(r, sl, lo, n);
    if (y - x > 1) {
        uint64_t mid = x + (y - x) / 2;
        hay_status s = rerun(r, sl, x, mid);
        if (s != HAY_OK)
            return s;
        return rerun(r, sl, mid, y);
    }
    /* One end position with more matches than slots: the host walks it. */
    uint8_t *h = malloc(y - lo);
    RETURN_ERROR_IF(!h, HAY_ERR_NOMEM);
    hay_status s = cuda_status(cudaMemcpy(h, txt, y - lo, cudaMemcpyDeviceToHost));
    if (s == HAY_OK) {
        cb_sink cb = { r->fn, r->ctx, 0 };
        if (hay_engine_pfac.scan(r->set, r->cs->pfac, h, y - lo, x - lo, lo, emit_cb,
                                 &cb))
            s = HAY_STOPPED;
        r->count += cb.n;
        if (s == HAY_STOPPED)
            r->stopped = true;
    }
    free(h);
    return s;
}

/* Waits for the slot's piece and takes its results. */
static hay_status drain_slot(scan_req *r, cuda_slot *sl)
{
    sl->busy = false;
    CU(cudaStreamSynchronize(sl->st));
    float ms = 0;
    if (!r->dev && cudaEventElapsedTime(&ms, sl->ev[0], sl->ev[1]) == cudaSuccess)
        r->st.copy_in_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev[1], sl->ev[2]) == cudaSuccess)
        r->st.kernel_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev[2], sl->ev[3]) == cudaSuccess)
        r->st.copy_out_seconds += ms / 1e3;
    cudaGetLastError();
    if (r->ask != HAY_ASK_LIST) {
        r->count += sl->h_ctr[0];
        return HAY_OK;
    }
    uint64_t n = sl->h_ctr[1];
    if (n <= sl->cap)
        return deliver(r, sl, sl->lo, n);
    uint64_t mid = sl->gs + (sl->ge - sl->gs) / 2;
    hay_status s = rerun(r, sl, sl->gs, mid);
    if (s != HAY_OK)
        return s;
    return rerun(r, sl, mid, sl->ge);
}

static hay_status drain(scan_req *r, cuda_slot *sl)
{
    if (!sl->busy)
        return HAY_OK;
    uint64_t before = r->count;
    if (r->pieces)
        r->pieces->collect_into(r->pieces->src, sl->piece);
    hay_status s = drain_slot(r, sl);
    if (s == HAY_OK && r->pieces)
        r->pieces->done(r->pieces->src, sl->piece, r->count - before);
    return s;
}

/* Puts the piece with owned ends (gs, ge] on slot sl. */
static hay_status issue(scan_req *r, cuda_slot *sl, uint64_t gs, uint64_t ge)
{
    uint64_t lo = gs >= r->back ? gs - r->back : 0;
    uint64_t n = ge - lo;
    sl->lo = lo;
    sl->gs = gs;
    sl->ge = ge;
    CU(cudaEventRecord(sl->ev[0], sl->st));
    if (r->dev) {
        /* resident: nothing to copy */
    } else if (r->reg && hay_hostreg_wait(r->reg, lo, ge)) {
        /* Straight from the input: one copy per registered block. */
        for (uint64_t x = lo; x < ge;) {
            uint64_t y = hay_hostreg_block_end(r->reg, x);
            if (y > ge)
                y = ge;
            CU(cudaMemcpyAsync(sl->d_text + (x - lo), r->host + x, y - x,
                               cudaMemcpyHostToDevice, sl->st));
            x = y;
        }
        r->direct_bytes += n;
    } else if (r->pp->pinned) {
        if (!sl->h_stage)
            CU(cudaHostAlloc((void **)&sl->h_stage, r->pp->text_cap + HAY_CUDA_PAD,
                             cudaHostAllocDefault));
        if (r->pieces)
            hay_copy_pool_copy(r->pool, sl->h_stage, r->host + lo, n);
        else
            hay_cuda_stage_copy(sl->h_stage, r->host + lo, n, r->stage_threads);
        CU(cudaMemcpyAsync(sl->d_text, sl->h_stage, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    } else {
        CU(cudaMemcpyAsync(sl->d_text, r->host + lo, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    }
    CU(cudaEventRecord(sl->ev[1], sl->st));
    CU(cudaMemsetAsync(sl->d_ctr, 0, 2 * sizeof(unsigned long long), sl->st));
    hay_cuda_job job = { slot_text(r, sl), n, gs - lo, sl->d_ctr, r->d_pc,
                         r->ask == HAY_ASK_LIST ? sl->d_m : NULL, sl->d_ctr + 1,
                         r->ask == HAY_ASK_LIST ? sl->cap : 0, sl->st };
    FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    CU(cudaEventRecord(sl->ev[2], sl->st));
    CU(cudaMemcpyAsync(sl->h_ctr, sl->d_ctr, 2 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaEventRecord(sl->ev[3], sl->st));
    sl->busy = true;
    return HAY_OK;
}

/* The slot's piece is copied and drained: a split's GPU side (pieces
 * claimed from the back) reads nothing at or above its gs again, an
 * in-order scan nothing below its ge - back. */
static void reg_done(scan_req *r, const cuda_slot *sl)
{
    if (r->reg)
        hay_hostreg_done(r->reg, r->pieces ? sl->gs : sl->ge > r->back ? sl->ge - r->back : 0);
}

/* The pipeline over the whole input. */
static hay_status run_pieces(scan_req *r)
{
    const hay_scan_opts *o = r->o;
    cuda_pipe *pp = r->pp;
    unsigned ns = pp->nslots;
    uint64_t done = 0, i = 0, next = 0;
    hay_status s = HAY_OK;
    for (; s == HAY_OK; i++) {
        cuda_slot *sl = &pp->s[i % ns];
        if (sl->busy) {
            uint64_t e = sl->ge;
            s = drain(r, sl);
            if (s != HAY_OK)
                break;
            reg_done(r, sl);
            done = e;
            if (o->progress)
                o->progress(done, r->len, o->progress_ctx);
        }
        /* The next piece: in order, or (split) from the back of what the
         * CPU has not taken, claimed only now that a slot is free. */
        uint64_t gs, ge;
        if (r->pieces) {
            if (!r->pieces->claim(r->pieces->src, r->chunk, &sl->piece, &gs, &ge))
                break;
        } else {
            if (next >= r->len)
                break;
            gs = next;
            ge = r->len - gs > r->chunk ? gs + r->chunk : r->len;
            next = ge;
        }
        s = issue(r, sl, gs, ge);
    }
    /* The pieces still in flight, oldest first. */
    for (unsigned k = 0; k < ns; k++) {
        cuda_slot *sl = &pp->s[(i + k) % ns];
        if (!sl->busy)
            continue;
        if (s != HAY_OK) {
            cudaStreamSynchronize(sl->st);
            sl->busy = false;
            continue;
        }
        uint64_t e = sl->ge;
        s = drain(r, sl);
        if (s == HAY_OK && o->progress)
            o->progress(e, r->len, o->progress_ctx);
    }
    cudaGetLastError();
    return s;
}

static void report_prepare(cuda_set *cs, hay_scan_stats *st)
{
    if (__atomic_exchange_n(&cs->reported, 1, __ATOMIC_ACQ_REL) == 0) {
        st->init_seconds = cs->init_seconds;
        st->prepare_seconds = cs->prepare_seconds;
    }
}

/* The device memory and threads of one scan, before its pieces run. */
static hay_status scan_setup(scan_req *r, const hay_run *run, bool pin)
{
    cuda_set *cs = r->cs;
    const hay_scan_opts *o = r->o;
    /* Resident counts need no pieces (the engine reports only counts). */
    r->chunk = o->chunk_size ? o->chunk_size
               : (r->dev && r->ask != HAY_ASK_LIST) ? r->len : cs->chunk;
    FORWARD_IF_ERROR(hay_cuda_pipe_acquire(cs->dev, cs->streams, &r->chunk,
                                           !r->dev && !cs->pageable, r->dev != NULL,
                                           &r->pp));
    if (r->ask == HAY_ASK_LIST)
        for (unsigned k = 0; k < r->pp->nslots; k++)
            FORWARD_IF_ERROR(hay_cuda_slot_list(&r->pp->s[k], cs->result_cap));
    if (r->ask == HAY_ASK_EACH) {
        size_t b = r->set->n * sizeof *r->d_pc;
        CU(cudaMalloc((void **)&r->d_pc, b));
        /* The pipeline's streams are non-blocking: they do not wait for
         * work on the default stream, so the zeroing must be complete
         * before the first kernel is queued. */
        CU(cudaMemset(r->d_pc, 0, b));
        CU(cudaDeviceSynchronize());
    }
    /* Pinning in place: block by block on threads of their own. */
    if (pin && hay_hostreg_supported(cs->dev) &&
        hay_hostreg_start(cs->dev, r->host, r->len, r->chunk,
                          hay_cuda_tuning_default.reg_ahead, cs->reg_threads,
                          run->pieces != NULL, &r->reg) != HAY_OK)
        r->reg = NULL;
    if (run->pieces && !r->reg && !r->dev && !cs->pageable)
        r->pool = hay_copy_pool_start(r->stage_threads);
    if (run->pieces)
        hay_log(o, "split: gpu pipeline ready after %.1f ms (%u copy threads)",
                (hay_now() - run->t0) * 1e3, r->stage_threads);
    return HAY_OK;
}

hay_status hay_cuda_run(const hay_patterns *set, cuda_set *cs, const hay_run *run)
{
    const hay_cuda_tuning *tu = &hay_cuda_tuning_default;
    const hay_cuda_buffer *buf = run->buffer;
    const char *note = run->note;
    bool pin = run->pin;
    if (!run->pieces) {
        /* transfer=register pins only shared mappings; anything else is
         * staged, and the note says so. */
        bool asked = run->host && run->len && cs->reg;
        pin = asked && hay_hostreg_eligible(run->host, run->len);
        if (asked && !pin && (!note || !*note))
            note = "transfer=register: the input is not in a shared mapping (heap, or a "
                   "private file mapping); staged";
    }
    scan_req r;
    memset(&r, 0, sizeof r);
    r.set = set;
    r.cs = cs;
    r.host = run->host;
    r.dev = buf ? buf->d_data : NULL;
    r.len = run->len;
    r.o = run->opts;
    r.ask = run->ask;
    r.fn = run->fn;
    r.ctx = run->ctx;
    r.back = set->max_len - 1;
    r.pieces = run->pieces;
    /* A split's CPU threads are searching: the GPU side copies with few,
     * unless the caller says how many (split=heavy). */
    r.stage_threads = cs->stage_threads ? cs->stage_threads
                      : run->stage_threads ? run->stage_threads
                      : run->pieces ? tu->split_stage_threads
                                    : tu->stage_threads;
    if (run->pieces && run->ask == HAY_ASK_LIST) {
        r.fn = run->pieces->collect;
        r.ctx = run->pieces->src;
    }
    hay_stats_reset(&r.st, HAY_BACKEND_CUDA, cs->algo, note);   /* no energy counter here */
    report_prepare(cs, &r.st);
    FORWARD_IF_ERROR(hay_cuda_ctx_enter(cs->dev, NULL));
    hay_status s = scan_setup(&r, run, pin);
    if (s == HAY_OK)
        s = run_pieces(&r);
    hay_copy_pool_stop(r.pool);
    hay_hostreg_stats rst;
    memset(&rst, 0, sizeof rst);
    if (r.reg)
        hay_hostreg_stop(r.reg, &rst);   /* run_pieces left no copy in flight */
    if (pin && r.staged_bytes && !*r.st.note)
        r.st.note = r.reg ? "transfer=register: some blocks could not be registered; "
                            "those pieces were staged"
                          : "transfer=register: the driver cannot pin host memory here; "
                            "staged";
    if (r.reg)
        hay_log(r.o, "hostreg: %llu blocks (%llu failed), register %.2f ms, "
                "unregister %.2f ms, waited %.2f ms, direct %llu of %llu bytes",
                (unsigned long long)rst.blocks, (unsigned long long)rst.failed,
                rst.register_seconds * 1e3, rst.unregister_seconds * 1e3,
                rst.wait_seconds * 1e3, (unsigned long long)r.direct_bytes,
                (unsigned long long)r.len);
    if (s == HAY_OK && r.ask == HAY_ASK_EACH) {
        double c0 = hay_now();
        s = cuda_status(cudaMemcpy(run->counts, r.d_pc, set->n * sizeof *run->counts,
                                   cudaMemcpyDeviceToHost));
        r.st.copy_out_seconds += hay_now() - c0;
    }
    cudaFree(r.d_pc);
    if (r.pp)
        hay_cuda_pipe_release(r.pp, s < 0 && s != HAY_ERR_NOMEM);
    if (run->count)
        *run->count = r.count;
    r.st.bytes = r.len;
    r.st.matches = r.count;
    r.st.total_seconds = hay_now() - run->t0;
    if (r.o->stats)
        *r.o->stats = r.st;
    if (s == HAY_OK && r.stopped)
        s = HAY_STOPPED;
    return s;
}
