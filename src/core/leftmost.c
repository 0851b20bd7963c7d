/*
 * leftmost.c - the non-overlapping match modes (HAY_MATCH_LEFTMOST_FIRST,
 * HAY_MATCH_LEFTMOST_LONGEST) as a filter on the stream of all
 * occurrences, so that every engine and backend gets them by delivering
 * what it already delivers: every match, in order of non-decreasing end.
 *
 * The selection: the match that starts leftmost at or after `pos` (the end
 * of the previous selection), among those the pattern of lowest id
 * (leftmost-first) or the longest, then lowest id (leftmost-longest).
 *
 * Matches arrive by end, so a start c is settled (every match starting at
 * c or before has arrived) once a match ends after c + longest, or at the
 * end of the input.  Until then the best candidate of each start waits in
 * a ring indexed by start: candidates all start within `longest` bytes of
 * the latest end, so the ring needs no more slots than that.  The work is
 * a constant per match plus a constant per byte between candidates.
 */
#include "internal.h"

#define NO_ID UINT32_MAX

typedef struct slot {
    uint64_t end;
    uint32_t id;      /* NO_ID: no candidate starts here */
} slot;

struct hay_leftmost {
    const hay_patterns *set;
    hay_match_mode mode;
    hay_match_fn fn;
    void *ctx;
    slot *ring;
    uint64_t mask;       /* ring size - 1 (a power of two > longest) */
    uint64_t pos;        /* the next selection starts at or after pos */
    uint64_t cur;        /* no candidate starts before cur (cur >= pos) */
    uint64_t pending;    /* candidates in the ring */
    bool stopped;
};

hay_status hay_leftmost_create(const hay_patterns *set, hay_match_fn fn,
                               void *ctx, hay_leftmost **out)
{
    RETURN_ERROR_IF(!set || !fn || !out, HAY_ERR_INVALID);
    *out = NULL;
    const hay_allocator *a = &set->alloc;
    hay_leftmost *f = hay_calloc(a, 1, sizeof *f);
    RETURN_ERROR_IF(!f, HAY_ERR_NOMEM);
    uint64_t size = 16;
    while (size <= set->max_len)
        size *= 2;
    f->ring = hay_malloc(a, (size_t)size * sizeof *f->ring);
    if (!f->ring) {
        hay_free(a, f);
        return HAY_ERR_NOMEM;
    }
    for (uint64_t i = 0; i < size; i++)
        f->ring[i].id = NO_ID;
    f->set = set;
    f->mode = set->mode;
    f->fn = fn;
    f->ctx = ctx;
    f->mask = size - 1;
    *out = f;
    return HAY_OK;
}

void hay_leftmost_free(hay_leftmost *f)
{
    if (!f)
        return;
    const hay_allocator *a = &f->set->alloc;
    hay_free(a, f->ring);
    hay_free(a, f);
}

/* Drops the candidates starting in [cur, to). */
static void drop_before(hay_leftmost *f, uint64_t to)
{
    if (f->pending == 0) {
        f->cur = to > f->cur ? to : f->cur;
        return;
    }
    for (; f->cur < to && f->pending; f->cur++) {
        slot *sl = &f->ring[f->cur & f->mask];
        if (sl->id != NO_ID) {
            sl->id = NO_ID;
            f->pending--;
        }
    }
    if (f->cur < to)
        f->cur = to;
}

/* Reports the selections whose starts are settled: those before `settled`
 * (UINT64_MAX at the end of the input).  Returns non-zero on a stop. */
static int select_settled(hay_leftmost *f, uint64_t settled)
{
    while (f->pending) {
        /* The leftmost candidate, if it is settled. */
        while (f->cur < settled && f->ring[f->cur & f->mask].id == NO_ID)
            f->cur++;
        if (f->cur >= settled)
            return 0;
        slot *sl = &f->ring[f->cur & f->mask];
        uint32_t id = sl->id;
        uint64_t start = f->cur, end = sl->end;
        sl->id = NO_ID;
        f->pending--;
        f->cur++;
        f->pos = end;
        drop_before(f, end);
        if (f->fn(id, start, end, f->ctx)) {
            f->stopped = true;
            return 1;
        }
    }
    return 0;
}

int hay_leftmost_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    hay_leftmost *f = ctx;
    if (f->stopped)
        return 1;
    /* No match still to come starts at or before end - longest - 1. */
    uint64_t longest = f->set->max_len;
    if (end > longest && select_settled(f, end - longest))
        return 1;
    if (start < f->pos)
        return 0;
    /* Slots between start and cur are empty, so cur may move back. */
    if (f->pending == 0 || start < f->cur)
        f->cur = start;
    slot *sl = &f->ring[start & f->mask];
    if (sl->id == NO_ID) {
        sl->id = id;
        sl->end = end;
        f->pending++;
    } else if (f->mode == HAY_MATCH_LEFTMOST_FIRST
                   ? id < sl->id
                   : end > sl->end || (end == sl->end && id < sl->id)) {
        sl->id = id;
        sl->end = end;
    }
    return 0;
}

int hay_leftmost_flush(hay_leftmost *f)
{
    if (f->stopped)
        return 1;
    return select_settled(f, UINT64_MAX);
}
