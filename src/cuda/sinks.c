/*
 * sinks.c - where one GPU scan's results go (scan.h): a piece's sorted
 * keys to the callback or its batches (list.h), or converted on the device
 * into the caller's arrays (list_dev.h); its bitmap of match ends into the
 * caller's (marks.h); its first match; its count.  pipeline.c calls these
 * when a piece's count or list is in.
 */
#include "marks.h"
#include "scan.h"

#include <stdlib.h>

/* Hands n sorted keys (ends local to lo) to the callback; keys NULL: the
 * slot's, still on the device, into device-reachable arrays (list_dev.h). */
static hay_status hand(scan_req *r, const unsigned long long *keys, uint64_t n, uint64_t lo,
                       cuda_slot *sl)
{
    double t0 = hay_now();
    r->sink.count = r->count;
    bool stop = false;
    if (keys)
        stop = hay_list_deliver(&r->sink, keys, n, lo);
    else
        FORWARD_IF_ERROR(hay_dlist_deliver(r->dl, sl, &r->sink, &stop));
    r->count = r->sink.count;
    r->tl.deliver += hay_now() - t0;
    r->tl.pieces++;
    if (stop) {
        r->stopped = true;
        return HAY_STOPPED;
    }
    return HAY_OK;
}

hay_status hay_cuda_finish_out(scan_req *r, cuda_slot *sl)
{
    sl->out = false;
    /* Device-reachable arrays: the keys stay; the cut waits for the sort
     * (its time is read after). */
    hay_status s = r->dl ? hand(r, NULL, sl->out_n, sl->out_lo, sl) : HAY_OK;
    double t0 = hay_now();
    if (!r->dl)
        CU(cudaEventSynchronize(sl->ev_out[2]));
    double t1 = hay_now();
    float ms = 0;
    if (cudaEventElapsedTime(&ms, sl->ev_out[0], sl->ev_out[2]) == cudaSuccess)
        r->st.copy_out_seconds += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev_out[0], sl->ev_out[1]) == cudaSuccess)
        r->tl.sort += ms / 1e3;
    if (cudaEventElapsedTime(&ms, sl->ev_out[1], sl->ev_out[2]) == cudaSuccess)
        r->tl.back += ms / 1e3;
    cudaGetLastError();
    r->tl.wait_list += t1 - t0;
    return r->dl ? s : hand(r, sl->h_m, sl->out_n, sl->out_lo, sl);
}

hay_status hay_cuda_deliver(scan_req *r)
{
    cuda_slot *sl = r->held;
    r->held = r->taken;
    r->taken = NULL;
    if (!sl)
        return HAY_OK;
    uint64_t before = r->count;
    if (r->pieces)
        r->pieces->collect_into(r->pieces->src, sl->out_piece);
    hay_status s = hay_cuda_finish_out(r, sl);
    if (s == HAY_OK && r->pieces)
        r->pieces->done(r->pieces->src, sl->out_piece, r->count - before);
    if (s == HAY_OK && r->o->progress)
        r->o->progress(sl->out_ge, r->len, r->o->progress_ctx);
    return s;
}

hay_status hay_cuda_deliver_all(scan_req *r)
{
    hay_status s = hay_cuda_deliver(r);
    if (s == HAY_OK)
        s = hay_cuda_deliver(r);
    return s;
}

static int cmp_key(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

hay_status hay_cuda_hand_short(scan_req *r, cuda_slot *sl, uint64_t n)
{
    qsort(sl->h_peek, n, sizeof *sl->h_peek, cmp_key);
    r->tl.shorts++;
    return hand(r, sl->h_peek, n, sl->lo, sl);
}

/* The callback of a host search, counting what it hands over. */
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

hay_status hay_cuda_hand_host(scan_req *r, const uint8_t *h, uint64_t len, uint64_t from,
                              uint64_t lo)
{
    cb_sink cb = { r->fn, r->ctx, 0 };
    hay_status s = HAY_OK;
    if (hay_engine_pfac.scan(r->set, r->cs->pfac, h, len, from, lo, emit_cb, &cb)) {
        s = HAY_STOPPED;
        r->stopped = true;
    }
    r->count += cb.n;
    return s;
}

/* The slot's first match, when its piece has one and none was found
 * before (pieces are taken in order). */
static void take_first(scan_req *r, const cuda_slot *sl)
{
    unsigned long long key = sl->h_ctr[2];
    if (r->first->end || key == ~0ull)
        return;
    uint32_t id = HAY_CUDA_MATCH_ID(key);
    uint64_t end = sl->lo + HAY_CUDA_MATCH_END(key);
    *r->first = (hay_match){ id, 0, end - r->set->len[id], end };
    r->count = 1;
}

void hay_cuda_take_answer(scan_req *r, const cuda_slot *sl)
{
    if (r->ask == HAY_ASK_MARK)
        hay_cuda_put_marks(r->marks, sl->gs, sl->h_mk, sl->ge - sl->gs);
    if (r->ask == HAY_ASK_FIRST)
        take_first(r, sl);
    else if (r->ask != HAY_ASK_LIST)
        r->count += sl->h_ctr[0];
}

bool hay_cuda_list_full_ahead(const scan_req *r)
{
    uint64_t pending = 0;
    const cuda_slot *w[2] = { r->held, r->taken };
    for (int i = 0; i < 2; i++)
        if (w[i] && w[i]->out_lo)
            pending += w[i]->out_n;
    return pending > hay_list_room(&r->sink);
}
