/*
 * pipeline.c - one scan on the GPU: a host input is cut into pieces of
 * `chunk` bytes; piece i goes to slot i mod streams: staged (parallel
 * memcpy into pinned memory, stage.c, or copied where it lies, hostreg.c),
 * copied in, searched and its counters copied out on the slot's stream, so
 * copies and kernels of different pieces overlap.  Results are taken in
 * piece order, which keeps matches in order of end.  Every piece is handed
 * to the engine with the longest pattern - 1 bytes before it
 * (cuda_engine.h), so each match is found in exactly one piece.  A split's
 * GPU side takes its pieces from a hay_piece_source instead.
 *
 * Lists: a piece's matches are sorted on the device by (end, id) with CUB
 * and copied back on the slot's second stream as soon as its count is in,
 * and handed to the callback one piece later (take below, hay_cuda_deliver in sinks.c), so
 * that the sort and copy back overlap the next pieces' copy-in and kernels
 * and the host's delivery overlaps all of them; in batches, the scan's
 * threads turn the keys into records (list.h).  A piece whose matches
 * overflow the slot's list is searched again in parts that fit, planned
 * from counts of its parts (the text is still on the device; overflow.h);
 * end positions with more matches than slots (more duplicate patterns
 * than slots) are searched on the host with the PFAC tables.  Nothing is
 * lost and device memory stays bounded.
 *
 * Marks and the first match (engines with `outs`, cuda_engine.h): the
 * kernel sets a piece's bitmap of match ends, or the least match key, in
 * device memory; the bitmap (1/8 of the piece) comes back with the count
 * and is written into the caller's at the piece's start (marks.h: every
 * word is written, so the caller's need not be zeroed first), the
 * key ends the scan at the first piece that has one.  Other engines
 * answer both from the list.
 */
#include "../core/fill.h"
#include "scan.h"

#include <stdlib.h>

/* Lists of up to PEEK matches come back unsorted with their piece's count
 * and are sorted on the host: one round trip per piece instead of two
 * (the device sort and copy back wait for the count).  Small inputs, and
 * pieces with few matches, are common (tests, short files); 4 KiB more
 * per piece is nothing beside a piece's copy in. */
enum { PEEK = 512 };

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

/* Enqueues the sort of the slot's n keys (local to `lo`, ends at most
 * sl->ge - lo) and their copy back on the slot's output stream, behind the
 * kernel that wrote them (ev[2]); the slot's next kernel waits for the
 * sort (ev_out[1], enqueue and over_list). */
static hay_status enqueue_out(const scan_req *r, cuda_slot *sl, uint64_t lo, uint64_t n)
{
    CU(cudaStreamWaitEvent(sl->ost, sl->ev[2], 0));
    /* Diagnostics (docs/notes/2026-11-26-listfast.md): the sort alone on
     * the device, so that its events time it alone. */
    bool alone = getenv("HAY_CUDA_LIST_SERIAL") != NULL;
    if (alone)
        CU(cudaDeviceSynchronize());
    CU(cudaEventRecord(sl->ev_out[0], sl->ost));
    sl->later.deferred = 0;
    if (n) {
        int bits = end_bits(sl->ge - lo), idb = 1;
        while (idb < HAY_CUDA_ID_BITS && (r->set->n - 1) >> idb)
            idb++;   /* the set's ids: sort.cu packs them with the end */
        /* Device-reachable arrays: the regions' sort is finished where the
         * list is delivered, straight into the arrays where it goes whole
         * (list_dev.c). */
        CU((cudaError_t)hay_cuda_sort_keys(sl->d_tmp, &sl->tmp_bytes, sl->d_m, sl->d_sorted, n,
                                            bits, sl->ge - lo, idb, r->dl ? &sl->later : NULL,
                                            sl->ost));
    }
    CU(cudaEventRecord(sl->ev_out[1], sl->ost));
    if (alone)
        CU(cudaDeviceSynchronize());
    if (n && !r->dl)   /* device-reachable arrays: the keys stay (list_dev.h) */
        CU(cudaMemcpyAsync(sl->h_m, sl->d_sorted, n * sizeof *sl->h_m,
                           cudaMemcpyDeviceToHost, sl->ost));
    CU(cudaEventRecord(sl->ev_out[2], sl->ost));
    sl->out = true;
    sl->out_lo = lo;
    sl->out_n = n;
    return HAY_OK;
}

/*
 * A piece whose list overflowed is searched again in parts that fit
 * (overflow.h), synchronously on its slot (the text is still on the
 * device); these are the device operations.
 */

/* Where the text of ends above x starts (the look-back, within the piece). */
static uint64_t part_lo(const scan_req *r, const cuda_slot *sl, uint64_t x)
{
    uint64_t lo = x >= r->back ? x - r->back : 0;
    return lo < sl->lo ? sl->lo : lo;
}

typedef struct over_ctx {
    scan_req *r;
    cuda_slot *sl;
} over_ctx;

/* The matches of the parts (b[i], b[i + 1]]: count-only launches into the
 * slot's part counters, one synchronisation. */
static hay_status over_count(void *ctx, const uint64_t *b, unsigned k, uint64_t *c)
{
    scan_req *r = ((over_ctx *)ctx)->r;
    cuda_slot *sl = ((over_ctx *)ctx)->sl;
    size_t bytes = HAY_OVERFLOW_PARTS * sizeof *sl->d_parts;
    if (!sl->d_parts)
        CU(cudaMalloc((void **)&sl->d_parts, bytes));
    if (!sl->h_parts)
        CU(cudaHostAlloc((void **)&sl->h_parts, bytes, cudaHostAllocDefault));
    CU(cudaMemsetAsync(sl->d_parts, 0, k * sizeof *sl->d_parts, sl->st));
    for (unsigned i = 0; i < k; i++) {
        uint64_t lo = part_lo(r, sl, b[i]);
        hay_cuda_job job = { slot_text(r, sl) + (lo - sl->lo), b[i + 1] - lo, b[i] - lo,
                             sl->d_parts + i, NULL, NULL, NULL, 0, sl->st, NULL, NULL,
                             sl->d_scratch, sl->scratch_bytes };
        FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    }
    CU(cudaMemcpyAsync(sl->h_parts, sl->d_parts, k * sizeof *sl->d_parts,
                       cudaMemcpyDeviceToHost, sl->st));
    CU(cudaStreamSynchronize(sl->st));
    for (unsigned i = 0; i < k; i++)
        c[i] = sl->h_parts[i];
    return HAY_OK;
}

static hay_overflow_ops over_ops_of(over_ctx *oc);

/* The n matches ending in (x, y]: the kernel, then (on the output stream)
 * the sort of n keys and the copy back, one synchronisation; then the
 * callback.  Should the list's count differ from the part's, the list
 * counted is what holds. */
static hay_status over_list(void *ctx, uint64_t x, uint64_t y, uint64_t n)
{
    scan_req *r = ((over_ctx *)ctx)->r;
    cuda_slot *sl = ((over_ctx *)ctx)->sl;
    uint64_t lo = part_lo(r, sl, x);
    /* The kernel rewrites d_m: the slot's last sort must be done. */
    CU(cudaStreamWaitEvent(sl->st, sl->ev_out[1], 0));
    CU(cudaMemsetAsync(sl->d_ctr, 0, 2 * sizeof(unsigned long long), sl->st));
    hay_cuda_job job = { slot_text(r, sl) + (lo - sl->lo), y - lo, x - lo, sl->d_ctr, NULL,
                         sl->d_m, sl->d_ctr + 1, r->cap, sl->st, NULL, NULL,
                         sl->d_scratch, sl->scratch_bytes };
    FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    CU(cudaEventRecord(sl->ev[2], sl->st));
    CU(cudaMemcpyAsync(sl->h_ctr, sl->d_ctr, 2 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, sl->st));
    FORWARD_IF_ERROR(enqueue_out(r, sl, lo, n));
    CU(cudaStreamSynchronize(sl->st));
    uint64_t got = sl->h_ctr[1];
    if (got != n) {
        CU(cudaStreamSynchronize(sl->ost));
        sl->out = false;
        if (got > r->cap) {
            hay_overflow_ops ops = over_ops_of(ctx);
            return hay_overflow_search(&ops, r->cap, x, y, got, &r->tl.over);
        }
        FORWARD_IF_ERROR(enqueue_out(r, sl, lo, got));
    }
    return hay_cuda_finish_out(r, sl);
}

/* The matches ending in (x, y] (end positions with more matches than the
 * list has slots) from the PFAC tables on the host: over the input where
 * it is on the host, else over a copy of the device text. */
static hay_status over_host(void *ctx, uint64_t x, uint64_t y)
{
    scan_req *r = ((over_ctx *)ctx)->r;
    cuda_slot *sl = ((over_ctx *)ctx)->sl;
    uint64_t lo = part_lo(r, sl, x);
    const uint8_t *h = r->dev ? NULL : r->host + lo;
    uint8_t *copy = NULL;
    if (!h) {
        copy = malloc(y - lo);
        RETURN_ERROR_IF(!copy, HAY_ERR_NOMEM);
        hay_status s = cuda_status(cudaMemcpy(copy, slot_text(r, sl) + (lo - sl->lo), y - lo,
                                              cudaMemcpyDeviceToHost));
        if (s != HAY_OK) {
            free(copy);
            return s;
        }
        h = copy;
    }
    hay_status s = hay_cuda_hand_host(r, h, y - lo, x - lo, lo);
    free(copy);
    return s;
}

static hay_overflow_ops over_ops_of(over_ctx *oc)
{
    return (hay_overflow_ops){ oc, over_count, over_list, over_host };
}

/* The slot's piece holds n > r->cap matches: searched again in parts
 * that fit (overflow.h). */
static hay_status overflow(scan_req *r, cuda_slot *sl, uint64_t n)
{
    r->tl.reruns++;
    /* Pieces issued from now on are cut to fill three quarters of the
     * list at this piece's density, so that they are not searched again
     * (synchronously, as below): et-open's 32 MiB pieces hold 23M matches
     * against 16M slots.  A split's pieces and pinned blocks keep their
     * size. */
    if (!r->pieces && !r->reg) {
        uint64_t least = hay_cuda_tuning_default.min_chunk;
        uint64_t fit = (uint64_t)((double)(sl->ge - sl->gs) * (double)r->cap * 0.75 / (double)n);
        fit -= fit % least;
        if (fit < least)
            fit = least;
        if (fit < r->chunk)   /* never larger: the pipeline's buffers hold r->chunk */
            r->chunk = fit;
        /* A resumed list's next call starts with pieces that fit (each call
         * of a small cap overflowed its first piece again). */
        if (hay_list_room(&r->sink) != UINT64_MAX)
            __atomic_store_n(&r->cs->list_chunk, r->chunk, __ATOMIC_RELAXED);
    }
    over_ctx oc = { r, sl };
    hay_overflow_ops ops = over_ops_of(&oc);
    return hay_overflow_search(&ops, r->cap, sl->gs, sl->ge, n, &r->tl.over);
}

/* Waits for the slot's count and takes it: a count is added; a list is
 * enqueued (r->taken), or, when short or overflowing, handed over now,
 * after the lists before it. */
static hay_status take(scan_req *r, cuda_slot *sl)
{
    sl->busy = false;
    double t0 = hay_now();
    CU(cudaStreamSynchronize(sl->st));
    r->tl.wait_count += hay_now() - t0;
    float ms = 0;
    if (!r->dev && cudaEventElapsedTime(&ms, sl->ev[0], sl->ev[1]) == cudaSuccess)
        r->st.copy_in_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev[1], sl->ev[2]) == cudaSuccess)
        r->st.kernel_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev[2], sl->ev[3]) == cudaSuccess)
        r->st.copy_out_seconds += ms / 1e3;
    cudaGetLastError();
    hay_cuda_take_answer(r, sl);
    if (r->ask != HAY_ASK_LIST) {
        if (r->pieces)
            r->pieces->done(r->pieces->src, sl->piece, sl->h_ctr[0]);
        if (r->o->progress)
            r->o->progress(sl->ge, r->len, r->o->progress_ctx);
        return HAY_OK;
    }
    uint64_t n = sl->h_ctr[1];
    hay_status s = HAY_OK;
    if (n <= r->cap && n > r->peek) {
        /* One slot (streams=1): its held list must be out of h_m first. */
        if (r->held == sl || r->taken)
            s = hay_cuda_deliver_all(r);
        if (s == HAY_OK)
            s = enqueue_out(r, sl, sl->lo, n);
        if (s == HAY_OK) {
            sl->out_ge = sl->ge;
            sl->out_piece = sl->piece;
            r->taken = sl;
        }
        return s;
    }
    /* A short list (its keys came back with the count, enqueue) or one
     * that overflowed: handed over now, after the lists before it. */
    s = hay_cuda_deliver_all(r);
    if (s != HAY_OK)
        return s;
    uint64_t before = r->count;
    if (r->pieces)
        r->pieces->collect_into(r->pieces->src, sl->piece);
    if (n <= r->cap)
        s = hay_cuda_hand_short(r, sl, n);
    else
        s = overflow(r, sl, n);
    if (s == HAY_OK && r->pieces)
        r->pieces->done(r->pieces->src, sl->piece, r->count - before);
    if (s == HAY_OK && r->o->progress)
        r->o->progress(sl->ge, r->len, r->o->progress_ctx);
    return s;
}

/* The copies, kernel and counters of the slot's piece onto its stream
 * (after its staging copy, when that was started by issue). */
static hay_status enqueue(scan_req *r, cuda_slot *sl)
{
    uint64_t lo = sl->lo, gs = sl->gs, ge = sl->ge, n = ge - lo;
    CU(cudaEventRecord(sl->ev[0], sl->st));
    if (r->staging == sl) {
        double t0 = hay_now();
        hay_copy_pool_wait(r->pool);
        r->staging = NULL;
        r->tl.stage += hay_now() - t0;
        CU(cudaMemcpyAsync(sl->d_text, sl->h_stage, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    } else if (r->dev) {
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
        double t0 = hay_now();
        if (r->pieces)
            hay_copy_pool_copy(r->pool, sl->h_stage, r->host + lo, n);
        else
            hay_cuda_stage_copy(sl->h_stage, r->host + lo, n, r->stage_threads);
        r->tl.stage += hay_now() - t0;
        CU(cudaMemcpyAsync(sl->d_text, sl->h_stage, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    } else {
        CU(cudaMemcpyAsync(sl->d_text, r->host + lo, n, cudaMemcpyHostToDevice, sl->st));
        r->staged_bytes += n;
    }
    CU(cudaEventRecord(sl->ev[1], sl->st));
    bool list = r->ask == HAY_ASK_LIST;
    /* The kernel rewrites d_m: the sort of the slot's last piece must be
     * done (its copy back may still run). */
    if (list)
        CU(cudaStreamWaitEvent(sl->st, sl->ev_out[1], 0));
    CU(cudaMemsetAsync(sl->d_ctr, 0, 2 * sizeof(unsigned long long), sl->st));
    hay_cuda_job job = { slot_text(r, sl), n, gs - lo, sl->d_ctr, r->d_pc,
                         list ? sl->d_m : NULL, sl->d_ctr + 1, list ? r->cap : 0, sl->st,
                         NULL, NULL, sl->d_scratch, sl->scratch_bytes };
    uint64_t mk = (ge - gs + 31) / 32;   /* the bitmap's words (HAY_ASK_MARK) */
    if (r->ask == HAY_ASK_MARK) {
        CU(cudaMemsetAsync(sl->d_mk, 0, mk * sizeof *sl->d_mk, sl->st));
        job.d_marks = sl->d_mk;
    } else if (r->ask == HAY_ASK_FIRST) {
        CU(cudaMemsetAsync(sl->d_ctr + 2, 0xff, sizeof(unsigned long long), sl->st));
        job.d_first = sl->d_ctr + 2;
    }
    FORWARD_IF_ERROR(r->cs->eng->launch(r->cs->estate, &job));
    CU(cudaEventRecord(sl->ev[2], sl->st));
    CU(cudaMemcpyAsync(sl->h_ctr, sl->d_ctr, 3 * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost, sl->st));
    if (r->ask == HAY_ASK_MARK)
        CU(cudaMemcpyAsync(sl->h_mk, sl->d_mk, mk * sizeof *sl->h_mk,
                           cudaMemcpyDeviceToHost, sl->st));
    if (list)   /* a short list comes back with its count (take, hay_cuda_hand_short) */
        CU(cudaMemcpyAsync(sl->h_peek, sl->d_m, r->peek * sizeof *sl->h_peek,
                           cudaMemcpyDeviceToHost, sl->st));
    CU(cudaEventRecord(sl->ev[3], sl->st));
    sl->busy = true;
    return HAY_OK;
}

/* Puts the piece with owned ends (gs, ge] on slot sl: at once, or, for a
 * list staged on its own copy threads (r->stage_async), starts the staging
 * copy and leaves the rest to enqueue() after the delivery of the list
 * before (r->staging). */
static hay_status issue(scan_req *r, cuda_slot *sl, uint64_t gs, uint64_t ge)
{
    sl->lo = gs >= r->back ? gs - r->back : 0;
    sl->gs = gs;
    sl->ge = ge;
    /* Pieces smaller than a thread's share are copied at once (waking
     * the copy threads would cost more); the threads start with the first
     * large piece. */
    if (!r->stage_async || ge - sl->lo < hay_cuda_tuning_default.stage_block)
        return enqueue(r, sl);
    if (!r->pool)
        r->pool = hay_copy_pool_start((r->stage_threads < 8 ? r->stage_threads : 8) + 1);
    if (!r->pool)
        return enqueue(r, sl);
    if (!sl->h_stage)
        CU(cudaHostAlloc((void **)&sl->h_stage, r->pp->text_cap + HAY_CUDA_PAD,
                         cudaHostAllocDefault));
    hay_copy_pool_begin(r->pool, sl->h_stage, r->host + sl->lo, ge - sl->lo);
    r->staging = sl;
    return HAY_OK;
}

/* The slot's piece is copied in and counted: a split's GPU side (pieces
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
    cuda_pipe *pp = r->pp;
    unsigned ns = pp->nslots;
    uint64_t i = 0, next = 0;
    hay_status s = HAY_OK;
    for (; s == HAY_OK; i++) {
        cuda_slot *sl = &pp->s[i % ns];
        if (sl->busy) {
            s = take(r, sl);
            if (s != HAY_OK)
                break;
            reg_done(r, sl);
        }
        /* The first match is in: no more pieces (those in flight are
         * taken below, and found nothing earlier). */
        if (r->ask == HAY_ASK_FIRST && r->first->end)
            break;
        /* The next piece: in order, or (split) from the back of what the
         * CPU has not taken, claimed only now that a slot is free. */
        uint64_t gs, ge;
        if (r->pieces) {
            if (!r->pieces->claim(r->pieces->src, r->chunk, &sl->piece, &gs, &ge))
                break;
        } else {
            if (next >= r->len || hay_cuda_list_full_ahead(r))
                break;
            uint64_t want = r->ramp && r->ramp < r->chunk ? r->ramp : r->chunk;
            r->ramp = r->ramp && r->ramp < r->chunk ? 2 * r->ramp : 0;
            gs = next;
            ge = r->len - gs > want ? gs + want : r->len;
            next = ge;
        }
        s = issue(r, sl, gs, ge);
        /* The list before the one just taken, while the GPU works (and
         * the copy threads stage the next piece). */
        if (s == HAY_OK)
            s = hay_cuda_deliver(r);
        if (s == HAY_OK && r->staging)
            s = enqueue(r, sl);
    }
    if (r->staging) {   /* stopped or failed while staging */
        hay_copy_pool_wait(r->pool);
        r->staging = NULL;
    }
    /* The pieces still in flight, oldest first, then the lists held. */
    for (unsigned k = 0; k < ns && s == HAY_OK; k++) {
        cuda_slot *sl = &pp->s[(i + k) % ns];
        if (sl->busy)
            s = take(r, sl);
        if (s == HAY_OK)
            s = hay_cuda_deliver(r);
    }
    if (s == HAY_OK)
        s = hay_cuda_deliver_all(r);
    if (s != HAY_OK) {
        for (unsigned k = 0; k < ns; k++) {
            cudaStreamSynchronize(pp->s[k].st);
            cudaStreamSynchronize(pp->s[k].ost);
            pp->s[k].busy = pp->s[k].out = false;
        }
        r->held = r->taken = NULL;
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
    /* Resident counts need no pieces (the engine reports only counts);
     * marks come back a piece at a time, and the first match stops at
     * the first piece with one. */
    bool whole = r->ask == HAY_ASK_COUNT || r->ask == HAY_ASK_EACH;
    r->chunk = o->chunk_size ? o->chunk_size
               : (r->dev && whole) ? r->len : cs->chunk;
    uint64_t fit = __atomic_load_n(&cs->list_chunk, __ATOMIC_RELAXED);
    bool fill = !o->chunk_size && !run->pieces && hay_fill_of(r->fn, r->ctx);
    if (fill && fit && fit < r->chunk)
        r->chunk = fit;   /* hay_scan_list: what an overflow cut them to (overflow) */
    /* hay_scan_list: an eighth of a piece first, then doubling: a call
     * waits for its first list (copy in, search, sort, copy back) before
     * the host converts anything, once per call of a small cap. */
    uint64_t least = hay_cuda_tuning_default.min_chunk;
    r->ramp = fill && r->chunk / 8 >= least ? r->chunk / 8 - r->chunk / 8 % least : 0;
    FORWARD_IF_ERROR(hay_cuda_pipe_acquire(cs->dev, cs->streams, &r->chunk,
                                           !r->dev && !cs->pageable, r->dev != NULL,
                                           &r->pp));
    for (unsigned k = 0; r->ask == HAY_ASK_MARK && k < r->pp->nslots; k++)
        FORWARD_IF_ERROR(hay_cuda_slot_marks(&r->pp->s[k], r->chunk / 32 + 2));
    /* The engine's scratch; short of device memory its jobs go without
     * (fdr-gpu: the chunks dealt out in a fixed order). */
    for (unsigned k = 0; cs->eng->scratch && k < r->pp->nslots; k++) {
        hay_status e = hay_cuda_slot_scratch(&r->pp->s[k], cs->eng->scratch(cs->estate));
        if (e == HAY_ERR_NOMEM)
            cudaGetLastError();
        else
            FORWARD_IF_ERROR(e);
    }
    if (r->ask == HAY_ASK_LIST) {
        /* A pooled pipeline keeps the lists of an earlier set: a smaller
         * result_cap still holds (the split path is tested with tiny ones). */
        r->cap = cs->result_cap;
        for (unsigned k = 0; k < r->pp->nslots; k++) {
            cuda_slot *sl = &r->pp->s[k];
            FORWARD_IF_ERROR(hay_cuda_slot_list(sl, cs->result_cap));
            if (sl->cap < r->cap)
                r->cap = sl->cap;
            if (!sl->h_peek)
                CU(cudaHostAlloc((void **)&sl->h_peek, PEEK * sizeof *sl->h_peek,
                                 cudaHostAllocDefault));
        }
        r->peek = r->cap < PEEK ? r->cap : PEEK;
        /* Batches: a helper thread turns the sorted keys into records
         * (list.h) unless threads = 1, started at the first long list; a
         * per-match callback is called from this thread. */
        r->sink = (hay_list_sink){ r->fn, r->ctx, r->set->len, 0, NULL, 0 };
        if (hay_batcher_of(r->fn, r->ctx))
            r->sink.threads = o->threads ? o->threads : hay_cpu_count();
        hay_fill *f = run->pieces ? NULL : hay_fill_of(r->fn, r->ctx);
        if (f)
            FORWARD_IF_ERROR(hay_dlist_start(cs, r->set, r->pp, f, o, &r->dl));
    }
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
    /* A list from host memory: the staging copies run on threads of their
     * own (at most 8: the list's helpers convert meanwhile), beside the
     * calling thread's delivery (issue). */
    r->stage_async = r->ask == HAY_ASK_LIST && !run->pieces && !r->reg && !r->dev &&
                     r->pp->pinned;
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
    r.dev = buf ? buf->d_data + run->skip : NULL;   /* skip: a resumed list (fill.h) */
    r.len = run->len;
    r.o = run->opts;
    r.ask = run->ask;
    r.fn = run->fn;
    r.ctx = run->ctx;
    r.marks = run->marks;
    r.first = run->first;
    if ((r.ask == HAY_ASK_MARK || r.ask == HAY_ASK_FIRST) && !cs->eng->outs) {
        /* An engine without marks or a least key: from its list. */
        if (r.ask == HAY_ASK_MARK)
            hay_marks_clear(run);
        r.fn = r.ask == HAY_ASK_MARK ? hay_mark_cb : hay_first_cb;
        r.ctx = r.ask == HAY_ASK_MARK ? (void *)run->marks : (void *)run->first;
        r.ask = HAY_ASK_LIST;
    }
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
    if (r.ask == HAY_ASK_LIST)
        hay_log(r.o, "cuda list: %llu pieces (%llu short, %llu overflowed: %llu count rounds "
                "of %llu parts, %llu lists, %llu host runs), %llu matches; GPU: sort %.1f ms, "
                "copy back %.1f ms; calling thread: staging %.1f ms, waiting for counts "
                "%.1f ms, for lists %.1f ms, delivering %.1f ms (%u helper threads); "
                "total %.1f ms", (unsigned long long)r.tl.pieces,
                (unsigned long long)r.tl.shorts, (unsigned long long)r.tl.reruns, (unsigned long long)r.tl.over.rounds,
                (unsigned long long)r.tl.over.parts, (unsigned long long)r.tl.over.lists,
                (unsigned long long)r.tl.over.host, (unsigned long long)r.count,
                r.tl.sort * 1e3, r.tl.back * 1e3, r.tl.stage * 1e3, r.tl.wait_count * 1e3,
                r.tl.wait_list * 1e3, r.tl.deliver * 1e3, hay_list_pool_threads(r.sink.pool),
                (hay_now() - run->t0) * 1e3);
    hay_status ds = hay_dlist_stop(r.dl, r.o);   /* the arrays complete; its line */
    if (ds < 0 && s >= 0)
        s = ds;
    if (s == HAY_OK && r.ask == HAY_ASK_EACH) {
        double c0 = hay_now();
        s = cuda_status(cudaMemcpy(run->counts, r.d_pc, set->n * sizeof *run->counts,
                                   cudaMemcpyDeviceToHost));
        r.st.copy_out_seconds += hay_now() - c0;
    }
    hay_list_pool_stop(r.sink.pool);
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
    /* The first match from a list stopped it (hay_first_cb). */
    if (s == HAY_STOPPED && run->ask == HAY_ASK_FIRST && run->first->end)
        s = HAY_OK;
    return s;
}
