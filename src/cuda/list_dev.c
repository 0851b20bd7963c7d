/*
 * list_dev.c - hay_scan_list into device or pinned arrays, converted on
 * the device (list_dev.h).
 *
 * Pinned arrays: the keys are converted into the slot's device staging and
 * copied into the arrays by DMA (cudaMemcpyAsync on the slot's output
 * stream), rather than stored by the kernel through the mapped host
 * pointer: the copy engine moves the 12-20 bytes a match at the link's
 * rate beside the kernels, no SM waits on stores across PCIe, and pages
 * registered without a device mapping (cudaHostRegister without
 * cudaHostRegisterMapped) are served the same way.  The staging costs
 * 20 bytes a list slot per pipeline slot (320 MiB for the default 16M
 * slots); when it cannot be had, the pinned arrays take the host path.
 * To measure the other choice, the environment variable
 * HAY_CUDA_LIST_PINNED=mapped has the kernel store through the arrays'
 * device mapping instead (when every array has one; EXPERIMENTAL, for
 * cuda_pfac_bench's pinned rows).
 */
#include "list_dev.h"

#include <stdlib.h>
#include <string.h>

int hay_cuda_list_cut(const unsigned long long *d_keys, uint64_t n, uint64_t below,
                      uint64_t room, unsigned long long *d_out, void *stream);
int hay_cuda_list_convert(const unsigned long long *d_keys, uint64_t n,
                          const hay_cuda_sort_sink *to, void *stream);

enum { CUT_WORDS = 5 };   /* list_convert.cu cut_kernel */

struct hay_dlist {
    cuda_pipe *pp;
    hay_fill *f;
    bool pinned;
    bool dma;                 /* pinned arrays through the slots' staging */
    uint32_t *ids;            /* else where the kernel writes: the device */
    uint64_t *starts, *ends;  /* arrays, or the pinned ones' mapping */
    const uint32_t *d_plen;
    uint64_t pieces, matches;
    uint64_t whole;           /* pieces sorted straight into the arrays */
    double wait;              /* the calling thread waiting for cuts */
    double gpu;               /* the cuts and conversions on the device */
    cudaEvent_t ev[2 * HAY_CUDA_MAX_STREAMS];   /* a slot's last cut and conversion */
    cudaEvent_t cut[HAY_CUDA_MAX_STREAMS];      /* a slot's cut words in (whole) */
    bool timed[HAY_CUDA_MAX_STREAMS];           /* ... recorded, not yet read */
};

/* Adds slot k's last cut and conversion to d->gpu, once done. */
static void read_time(hay_dlist *d, unsigned k)
{
    float ms = 0;
    if (d->timed[k] && cudaEventSynchronize(d->ev[2 * k + 1]) == cudaSuccess &&
        cudaEventElapsedTime(&ms, d->ev[2 * k], d->ev[2 * k + 1]) == cudaSuccess)
        d->gpu += ms / 1e3;
    cudaGetLastError();
    d->timed[k] = false;
}

/* The set's pattern lengths on the device, made by the first list that
 * needs them (of two threads at once, one keeps its table). */
static hay_status plen_table(cuda_set *cs, const hay_patterns *set, const uint32_t **out)
{
    uint32_t *d = __atomic_load_n(&cs->d_plen, __ATOMIC_ACQUIRE);
    if (!d) {
        uint32_t *h = malloc(set->n * sizeof *h);
        RETURN_ERROR_IF(!h, HAY_ERR_NOMEM);
        for (size_t i = 0; i < set->n; i++)
            h[i] = (uint32_t)set->len[i];
        hay_status s = cuda_status(cudaMalloc((void **)&d, set->n * sizeof *h));
        if (s == HAY_OK)
            s = cuda_status(cudaMemcpy(d, h, set->n * sizeof *h, cudaMemcpyHostToDevice));
        /* The pipeline's streams do not wait for the default stream. */
        if (s == HAY_OK)
            s = cuda_status(cudaDeviceSynchronize());
        free(h);
        if (s != HAY_OK) {
            cudaFree(d);
            return s;
        }
        uint32_t *none = NULL;
        if (!__atomic_compare_exchange_n(&cs->d_plen, &none, d, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            cudaFree(d);
            d = none;
        }
    }
    *out = d;
    return HAY_OK;
}

/* The slot's cut words, and for pinned arrays its staging of cap
 * entries (ends, starts, ids), kept with the slot. */
static hay_status slot_ready(cuda_slot *sl, bool pinned)
{
    if (!sl->d_cut)
        CU(cudaMalloc((void **)&sl->d_cut, CUT_WORDS * sizeof *sl->d_cut));
    if (!sl->h_cut)
        CU(cudaHostAlloc((void **)&sl->h_cut, CUT_WORDS * sizeof *sl->h_cut,
                         cudaHostAllocDefault));
    if (!pinned || sl->rec_cap >= sl->cap)
        return HAY_OK;
    cudaFree(sl->d_rec);
    sl->d_rec = NULL;
    sl->rec_cap = 0;
    CU(cudaMalloc(&sl->d_rec, sl->cap * (2 * sizeof(uint64_t) + sizeof(uint32_t))));
    sl->rec_cap = sl->cap;
    return HAY_OK;
}

hay_status hay_dlist_start(cuda_set *cs, const hay_patterns *set, cuda_pipe *pp, hay_fill *f,
                           const hay_scan_opts *o, hay_dlist **out)
{
    *out = NULL;
    if (f->mem == HAY_MEM_HOST)
        return HAY_OK;
    if (f->mem == HAY_MEM_DEVICE && f->device != cs->dev) {
        hay_log(o, "hay_scan_list: the arrays are device memory of device %d, the set's "
                "device is %d", f->device, cs->dev);
        return HAY_ERR_INVALID;
    }
    bool pinned = f->mem == HAY_MEM_PINNED;
    hay_match_list *l = f->list;
    void *at[3] = { l->ids, l->starts, l->ends };
    const char *how = getenv("HAY_CUDA_LIST_PINNED");
    bool dma = pinned && !(how && !strcmp(how, "mapped"));
    for (int i = 0; i < 3 && pinned && !dma; i++)
        if (at[i] && cudaHostGetDevicePointer(&at[i], at[i], 0) != cudaSuccess) {
            cudaGetLastError();
            dma = true;   /* no mapping: by DMA after all */
        }
    const uint32_t *plen = NULL;
    hay_status s = plen_table(cs, set, &plen);
    for (unsigned k = 0; s == HAY_OK && k < pp->nslots; k++)
        s = slot_ready(&pp->s[k], dma);
    /* Short of device memory: the host path serves any arrays (device
     * ones through fill.c's bounce). */
    if (s == HAY_ERR_NOMEM) {
        cudaGetLastError();
        hay_log(o, "cuda list arrays: no device memory for the conversion; the host path");
        return HAY_OK;
    }
    FORWARD_IF_ERROR(s);
    hay_dlist *d = calloc(1, sizeof *d);
    RETURN_ERROR_IF(!d, HAY_ERR_NOMEM);
    *d = (hay_dlist){ .pp = pp, .f = f, .pinned = pinned, .dma = dma, .ids = at[0],
                      .starts = at[1], .ends = at[2], .d_plen = plen };
    for (unsigned k = 0; k < 2 * pp->nslots && k < 2 * HAY_CUDA_MAX_STREAMS; k++)
        if (cudaEventCreate(&d->ev[k]) != cudaSuccess) {
            cudaGetLastError();
            d->ev[k] = NULL;
        }
    for (unsigned k = 0; k < pp->nslots && k < HAY_CUDA_MAX_STREAMS; k++)
        if (cudaEventCreateWithFlags(&d->cut[k], cudaEventDisableTiming) != cudaSuccess) {
            cudaGetLastError();
            d->cut[k] = NULL;
        }
    *out = d;
    return HAY_OK;
}

/* Where the device writes the piece's converted matches: entry f->n of
 * the arrays, or (DMA) the slot's staging. */
static hay_cuda_sort_sink targets(const hay_dlist *d, const cuda_slot *sl, uint64_t base)
{
    const hay_match_list *l = d->f->list;
    size_t at = d->f->n;
    if (!d->dma)
        return (hay_cuda_sort_sink){ d->ids + at, d->starts ? d->starts + at : NULL,
                                     d->ends ? d->ends + at : NULL, d->d_plen, base };
    uint64_t *ends = sl->d_rec, *starts = ends + sl->rec_cap;
    return (hay_cuda_sort_sink){ (uint32_t *)(starts + sl->rec_cap),
                                 l->starts ? starts : NULL, l->ends ? ends : NULL, d->d_plen,
                                 base };
}

/* DMA: the staging's take matches into the pinned arrays at f->n. */
static hay_status copy_out(hay_dlist *d, cuda_slot *sl, const hay_cuda_sort_sink *t,
                           uint64_t take)
{
    hay_match_list *l = d->f->list;
    size_t at = d->f->n;
    if (!d->dma)
        return HAY_OK;
    uint32_t *ids = t->ids;
    uint64_t *starts = t->starts, *ends = t->ends;
    CU(cudaMemcpyAsync(l->ids + at, ids, take * sizeof *ids, cudaMemcpyDeviceToHost, sl->ost));
    if (l->starts)
        CU(cudaMemcpyAsync(l->starts + at, starts, take * sizeof *starts,
                           cudaMemcpyDeviceToHost, sl->ost));
    if (l->ends)
        CU(cudaMemcpyAsync(l->ends + at, ends, take * sizeof *ends, cudaMemcpyDeviceToHost,
                           sl->ost));
    return HAY_OK;
}

/* keys[0, take) converted and written at entry f->n of the arrays. */
static hay_status convert(hay_dlist *d, cuda_slot *sl, const unsigned long long *keys,
                          uint64_t take, uint64_t base)
{
    hay_cuda_sort_sink t = targets(d, sl, base);
    CU((cudaError_t)hay_cuda_list_convert(keys, take, &t, sl->ost));
    return copy_out(d, sl, &t, take);
}

/* The slot's whole list (n keys whose sort was left at its regions,
 * sl->later), with nothing to skip and room for all: each region sorted
 * straight into the arrays, no pass over sorted keys; the cut's words
 * from the last region. */
static hay_status whole(hay_dlist *d, cuda_slot *sl, unsigned ks, uint64_t n, uint64_t base)
{
    double t0 = hay_now();
    CU((cudaError_t)hay_cuda_sort_last(&sl->later, sl->d_tmp, sl->d_sorted, sl->d_cut,
                                       sl->ost));
    CU(cudaMemcpyAsync(sl->h_cut, sl->d_cut, 2 * sizeof *sl->h_cut, cudaMemcpyDeviceToHost,
                       sl->ost));
    /* The words are waited for, not the sorts enqueued after them. */
    cudaEvent_t cut = ks < HAY_CUDA_MAX_STREAMS ? d->cut[ks] : NULL;
    if (cut)
        CU(cudaEventRecord(cut, sl->ost));
    else
        CU(cudaStreamSynchronize(sl->ost));
    hay_cuda_sort_sink t = targets(d, sl, base);
    CU((cudaError_t)hay_cuda_sort_finish(&sl->later, sl->d_tmp, sl->d_sorted, &t, sl->ost));
    FORWARD_IF_ERROR(copy_out(d, sl, &t, n));
    if (cut)
        CU(cudaEventSynchronize(cut));
    d->wait += hay_now() - t0;
    hay_fill_commit(d->f, (size_t)n, (size_t)sl->h_cut[0], base + sl->h_cut[1]);
    return HAY_OK;
}

hay_status hay_dlist_deliver(hay_dlist *d, cuda_slot *sl, hay_list_sink *k, bool *stop)
{
    hay_fill *f = d->f;
    hay_batcher *bt = hay_batcher_of(k->fn, k->ctx);
    *stop = false;
    if (hay_batch_flush(bt)) {   /* matches put before (a host run) go first */
        *stop = true;
        return HAY_OK;
    }
    uint64_t n = sl->out_n, base = sl->out_lo + f->base;
    if (n == 0)
        return HAY_OK;
    /* The cut (list.c fill_deliver's, on the device): the keys ending at
     * or before from, and the room left. */
    uint64_t below = f->from > base ? f->from - base : 0, room = f->list->cap - f->n;
    double t0 = hay_now();
    unsigned ks = (unsigned)(sl - d->pp->s);
    cudaEvent_t *ev = ks < HAY_CUDA_MAX_STREAMS && d->ev[2 * ks] && d->ev[2 * ks + 1]
                          ? d->ev + 2 * ks : NULL;
    /* Diagnostics (HAY_CUDA_LIST_SERIAL, as pipeline.c's sort): the cut
     * and conversion alone on the device. */
    bool alone = getenv("HAY_CUDA_LIST_SERIAL") != NULL;
    if (ev)
        read_time(d, ks);   /* the slot's conversion before (its events are reused) */
    if (alone)
        CU(cudaDeviceSynchronize());
    if (ev)
        CU(cudaEventRecord(ev[0], sl->ost));
    uint64_t take = n, over = 0;
    if (sl->later.deferred && below == 0 && room >= n) {
        FORWARD_IF_ERROR(whole(d, sl, ks, n, base));
        d->whole++;
    } else {
        if (sl->later.deferred)   /* the rest of the sort, in place */
            CU((cudaError_t)hay_cuda_sort_finish(&sl->later, sl->d_tmp, sl->d_sorted, NULL,
                                                 sl->ost));
        CU((cudaError_t)hay_cuda_list_cut(sl->d_sorted, n, below, room, sl->d_cut, sl->ost));
        CU(cudaMemcpyAsync(sl->h_cut, sl->d_cut, CUT_WORDS * sizeof *sl->h_cut,
                           cudaMemcpyDeviceToHost, sl->ost));
        CU(cudaStreamSynchronize(sl->ost));
        d->wait += hay_now() - t0;
        uint64_t skip = sl->h_cut[0], first = sl->h_cut[2], last = sl->h_cut[3];
        take = sl->h_cut[1];
        over = sl->h_cut[4];
        if (take) {
            FORWARD_IF_ERROR(convert(d, sl, sl->d_sorted + skip, take, base));
            hay_fill_commit(f, (size_t)take, (size_t)first, base + last);
        }
    }
    k->count += take;
    d->matches += take;
    if (ev) {
        CU(cudaEventRecord(ev[1], sl->ost));
        d->timed[ks] = true;
    }
    if (alone)
        CU(cudaDeviceSynchronize());
    d->pieces++;
    if (over) {
        bt->stopped = true;
        hay_fill_stop(f, base + over);
        *stop = true;
    }
    return HAY_OK;
}

hay_status hay_dlist_stop(hay_dlist *d, const hay_scan_opts *o)
{
    if (!d)
        return HAY_OK;
    hay_status s = HAY_OK;
    for (unsigned k = 0; k < d->pp->nslots; k++) {
        hay_status e = cuda_status(cudaStreamSynchronize(d->pp->s[k].ost));
        if (s == HAY_OK)
            s = e;
        if (e == HAY_OK && k < HAY_CUDA_MAX_STREAMS)
            read_time(d, k);
    }
    hay_log(o, "cuda list arrays: %s (converted on the device%s), %llu pieces (%llu sorted "
            "into the arrays), %llu matches, waiting for cuts %.1f ms; GPU: cuts, the "
            "regions' sorts and conversions %.1f ms",
            d->pinned ? "pinned" : "device",
            !d->pinned ? "" : d->dma ? ", copied by DMA" : ", stored through the mapping",
            (unsigned long long)d->pieces, (unsigned long long)d->whole,
            (unsigned long long)d->matches, d->wait * 1e3, d->gpu * 1e3);
    for (unsigned k = 0; k < 2 * HAY_CUDA_MAX_STREAMS; k++)
        if (d->ev[k])
            cudaEventDestroy(d->ev[k]);
    for (unsigned k = 0; k < HAY_CUDA_MAX_STREAMS; k++)
        if (d->cut[k])
            cudaEventDestroy(d->cut[k]);
    free(d);
    return s;
}
