/*
 * pool_queue.h - the pool's entries (pool.h) and its queue of ranges of
 * them not taken yet, earliest in the walk's order on top (a binary heap:
 * workers take the earliest work first, so the ordered output's window
 * fills least).
 */
#ifndef HAY_FIND_POOL_QUEUE_H
#define HAY_FIND_POOL_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walk.h"

/* An operand or an entry of a directory being walked.  A directory's
 * entries sit in one array, in the walk's order; they, the directory's
 * descriptor and its ignore rules live until all of them are done with
 * (printed, ordered). */
typedef struct node node;
struct node {
    node *parent;             /* NULL: an operand */
    node *next;               /* an operand: the next one (ordered) */
    char *name;               /* the path printed */
    size_t base;              /* where the entry's own name starts in it */
    uint64_t seq;             /* an operand: its place among them */
    unsigned depth;           /* 0: an operand */
    int fd;                   /* an operand's (open); a listed directory's
                                 while entries are left to open; else -1 */
    bool is_dir, walked;
    bool whole;               /* a directory walked by one worker: printed
                                 as a file, its files' output its own */
    bool done;                /* searched; a directory: listed */
    char *out;                /* ordered: the output held back */
    size_t len;
    node *kids;               /* a listed directory's entries */
    size_t nkids;
    atomic_size_t to_open;    /* entries not opened yet (fd closes at 0) */
    size_t live;              /* unordered: entries not done with */
    find_ignore *rules;       /* the rules for its entries */
    find_walk_link link;      /* -R's loop test */
};

/* Consecutive entries of one directory (or one operand), not taken yet. */
typedef struct range {
    node *first;
    size_t n;
} range;

typedef struct find_queue {
    range *v;              /* v[0]: the earliest */
    size_t n, cap;
} find_queue;

/* Queues the n entries from `first` (consecutive entries of one directory,
 * or one operand).  Returns false when out of memory. */
bool find_queue_push(find_queue *q, node *first, size_t n);

/* Takes the earliest range (q->n > 0). */
range find_queue_pop(find_queue *q);

#endif
