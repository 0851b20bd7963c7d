/*
 * binary.h - where a piece's first NUL byte lies (binary files, search.c),
 * looked for beside the scan.  The printer must know, before each line it
 * prints, whether a NUL came earlier in the file: a look at every byte up
 * to the last line printed.  On one thread that look costs a third of a
 * scan that prints lines all along a big file, so a scan on several
 * threads hands the look over part by part to its threads (hay_scan_opts
 * .on_part: each part searched for a NUL right after it was scanned),
 * while lines are being printed near that part; the printer looks itself
 * at whatever no thread did.  A file with no line printed costs no look.
 */
#ifndef HAY_FIND_BINARY_H
#define HAY_FIND_BINARY_H

#include <haystack.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct find_nul_part {
    uint64_t start, end, nul;   /* [start, end) looked at; its first NUL or UINT64_MAX */
} find_nul_part;

typedef struct find_nul_look {
    const uint8_t *buf;
    /* [0, clean) was looked at and `first` is its first NUL (UINT64_MAX:
     * none); written under the lock, first before clean, and read without
     * it by the printer. */
    atomic_uint_fast64_t clean, first;
    pthread_mutex_t lock;
    find_nul_part *wait;   /* under the lock: parts looked at beyond clean */
    size_t nwait, cap;
    /* Where the printer last asked about (0: never): parts far beyond it
     * are not looked at (lines may never be printed there). */
    atomic_uint_fast64_t asked;
} find_nul_look;

/* For the piece buf (its own offsets from 0). */
void find_nul_look_init(find_nul_look *l, const uint8_t *buf);
void find_nul_look_free(find_nul_look *l);

/* hay_scan_opts.on_part, with ctx a find_nul_look: data lies inside the
 * piece (a scan of part of it). */
void find_nul_look_part(const void *data, uint64_t start, uint64_t end, void *ctx);

/* The first NUL of the piece if it lies below `end`, else UINT64_MAX;
 * looks itself at what no part covered. */
uint64_t find_nul_look_below(find_nul_look *l, uint64_t end);

#endif
