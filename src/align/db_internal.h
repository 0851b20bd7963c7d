/*
 * db_internal.h - what the database (db.c: format, build, open, checks) and
 * its search (db_search.c) share: the database object.  Its arrays point
 * into one image laid out as the file format of haystack_align.h, held in
 * malloc'd memory (built) or mapped (opened), so that both paths read the
 * same layout and go through the same checks.
 */
#ifndef HAY_DB_INTERNAL_H
#define HAY_DB_INTERNAL_H

#include "haystack_align.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct hay_align_db {
    uint32_t version;
    int alpha, dna;
    char letters[HAY_ALIGN_MAX_ALPHA + 1];
    uint64_t nseq, nres, longest, npart;
    const uint64_t *part;       /* npart x {first, count, min_len, max_len} */
    const uint64_t *offsets;    /* nseq + 1, sorted order */
    const uint32_t *order;      /* sorted -> input */
    uint32_t *rank;             /* input -> sorted (built by the checks) */
    const uint64_t *names_at;   /* nseq + 1, input order */
    const char *names;
    const uint8_t *codes;
    void *image;                /* the whole image */
    size_t image_len;
    int mapped;                 /* image is an mmap, else malloc'd */
    /* The GPU search's device copy of the whole database, kept from one
     * search to the next (db_search.c): used and replaced under gpu_lock. */
    pthread_mutex_t gpu_lock;
    struct hay_db_gpu_cache *gpu;
};

/* Sets up a new database's GPU cache (none yet) and releases it with the
 * database (db_search.c). */
void hay_db_gpu_init(hay_align_db *db);
void hay_db_gpu_release(hay_align_db *db);

#endif
