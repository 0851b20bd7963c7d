/*
 * binary.c - the look for a piece's first NUL, beside the scan (binary.h).
 */
#include "binary.h"

#include <stdlib.h>
#include <string.h>

/* A part of the scan's is looked at only this far beyond the place the
 * printer last asked about: a thread scans at most a few chunks ahead of
 * the lines being printed (the ring of src/core/chunks.c), so while lines are printed
 * all along, every part is; where they stop, the look stops soon after. */
#define LOOK_AHEAD ((uint64_t)64 << 20)
#define ASK_STEP ((uint64_t)1 << 20)
/* Parts waiting beyond `clean` (out of order, or past one not looked at)
 * are kept up to this many; others are dropped (the printer looks). */
#define WAIT_MAX 4096

void find_nul_look_init(find_nul_look *l, const uint8_t *buf)
{
    memset(l, 0, sizeof *l);
    l->buf = buf;
    pthread_mutex_init(&l->lock, NULL);
    atomic_init(&l->clean, 0);
    atomic_init(&l->first, UINT64_MAX);
    atomic_init(&l->asked, 0);
}

void find_nul_look_free(find_nul_look *l)
{
    pthread_mutex_destroy(&l->lock);
    free(l->wait);
    l->wait = NULL;
}

/* Under the lock: [start, end) looked at, its first NUL `nul`; then the
 * waiting parts that now join [0, clean), and the new state published
 * (first before clean, for the readers without the lock). */
static void looked(find_nul_look *l, uint64_t start, uint64_t end, uint64_t nul)
{
    uint64_t clean = atomic_load_explicit(&l->clean, memory_order_relaxed);
    uint64_t first = atomic_load_explicit(&l->first, memory_order_relaxed);
    if (start > clean) {
        if (l->nwait == l->cap && l->cap < WAIT_MAX) {
            size_t cap = l->cap ? 2 * l->cap : 16;
            find_nul_part *w = realloc(l->wait, cap * sizeof *w);
            if (w) {
                l->wait = w;
                l->cap = cap;
            }
        }
        if (l->nwait < l->cap)
            l->wait[l->nwait++] = (find_nul_part){ start, end, nul };
        return;
    }
    if (nul < first)
        first = nul;
    if (end > clean)
        clean = end;
    for (size_t i = 0; i < l->nwait;) {
        find_nul_part *p = &l->wait[i];
        if (p->start > clean) {
            i++;
            continue;
        }
        if (p->nul < first)
            first = p->nul;
        if (p->end > clean)
            clean = p->end;
        *p = l->wait[--l->nwait];
        i = 0;   /* (clean grew: an earlier entry may join now) */
    }
    atomic_store_explicit(&l->first, first, memory_order_relaxed);
    atomic_store_explicit(&l->clean, clean, memory_order_release);
}

void find_nul_look_part(const void *data, uint64_t start, uint64_t end, void *ctx)
{
    find_nul_look *l = ctx;
    /* (Offsets in the piece, wherever in it the scan began.) */
    uint64_t at = (uint64_t)((const uint8_t *)data - l->buf);
    const uint8_t *from = (const uint8_t *)data + start;
    start += at;
    end += at;
    uint64_t asked = atomic_load_explicit(&l->asked, memory_order_relaxed);
    if (!asked || start > asked + LOOK_AHEAD ||
        atomic_load_explicit(&l->first, memory_order_relaxed) < start)
        return;
    const uint8_t *z = memchr(from, 0, (size_t)(end - start));
    uint64_t nul = z ? (uint64_t)(z - l->buf) : UINT64_MAX;
    pthread_mutex_lock(&l->lock);
    looked(l, start, end, nul);
    pthread_mutex_unlock(&l->lock);
}

uint64_t find_nul_look_below(find_nul_look *l, uint64_t end)
{
    uint64_t clean = atomic_load_explicit(&l->clean, memory_order_acquire);
    uint64_t first = atomic_load_explicit(&l->first, memory_order_relaxed);
    if (first < end)
        return first;
    /* (Told in steps, not at every line: the scan's threads read it.) */
    uint64_t asked = atomic_load_explicit(&l->asked, memory_order_relaxed);
    if (!asked || end > asked + ASK_STEP)
        atomic_store_explicit(&l->asked, end, memory_order_relaxed);
    if (clean >= end)
        return UINT64_MAX;
    /* Not covered yet: looked at here, from where [0, clean) ends. */
    const uint8_t *z = memchr(l->buf + clean, 0, (size_t)(end - clean));
    uint64_t nul = z ? (uint64_t)(z - l->buf) : UINT64_MAX;
    pthread_mutex_lock(&l->lock);
    /* (Parts may have joined meanwhile: clean only grew, so what was
     * looked at here still starts inside [0, clean).) */
    looked(l, clean, z ? nul + 1 : end, nul);
    first = atomic_load_explicit(&l->first, memory_order_relaxed);
    pthread_mutex_unlock(&l->lock);
    return first < end ? first : UINT64_MAX;
}
