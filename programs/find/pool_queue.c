/* pool_queue.c - the pool's queue of ranges (see pool_queue.h). */
#include "pool_queue.h"

#include <stdlib.h>

/* Whether a comes before b in the walk's order. */
static bool before(const node *a, const node *b)
{
    bool deeper = false;   /* a was below b's level: after b if under it */
    while (a->depth > b->depth) {
        a = a->parent;
        deeper = true;
    }
    while (b->depth > a->depth)
        b = b->parent;
    if (a == b)
        return !deeper;
    while (a->parent != b->parent) {
        a = a->parent;
        b = b->parent;
    }
    return a->parent ? a < b : a->seq < b->seq;
}

static bool less(const find_queue *q, size_t i, size_t j)
{
    return before(q->v[i].first, q->v[j].first);
}

static void swap(find_queue *q, size_t i, size_t j)
{
    range t = q->v[i];
    q->v[i] = q->v[j];
    q->v[j] = t;
}

bool find_queue_push(find_queue *q, node *first, size_t n)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 256;
        range *h = realloc(q->v, cap * sizeof *h);
        if (!h)
            return false;
        q->v = h;
        q->cap = cap;
    }
    size_t i = q->n++;
    q->v[i] = (range){ first, n };
    while (i && less(q, i, (i - 1) / 2)) {
        swap(q, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return true;
}

range find_queue_pop(find_queue *q)
{
    range top = q->v[0];
    q->v[0] = q->v[--q->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < q->n && less(q, l, m))
            m = l;
        if (l + 1 < q->n && less(q, l + 1, m))
            m = l + 1;
        if (m == i)
            break;
        swap(q, i, m);
        i = m;
    }
    return top;
}
