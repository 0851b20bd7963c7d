/*
 * list_arrays.h - cuda_pfac_bench's "list arrays" rows (list_arrays.c):
 * the full ordered list through hay_scan_list / hay_scan_buffer_list into
 * the caller's arrays, the whole list in one call, with a 16M cap (resumed
 * until done) and with ids and ends only (no starts), checked against the
 * per-match list's checksum; and into arrays the device fills itself
 * (src/cuda/list_dev.h): pinned ones of hay_match_list_alloc, and device
 * memory of cudaMalloc (copied back after the timed calls to be checked).
 */
#ifndef HAY_BENCH_LIST_ARRAYS_H
#define HAY_BENCH_LIST_ARRAYS_H

#include "haystack.h"

/* The caller's arrays, made (and faulted in) once for every row: pageable,
 * pinned (made at the first pinned row) and device (at the first device
 * row; builds with CUDA). */
typedef struct list_arrays {
    uint32_t *ids;
    uint64_t *starts, *ends;
    size_t cap;
    hay_match_list pin;
    uint32_t *d_ids;
    uint64_t *d_starts, *d_ends;
    size_t dcap;
} list_arrays;

void list_arrays_free(list_arrays *a);

/* The rows for set over d[0, len) (from host memory) and, with buf, the
 * resident ones: all of them, or with few only the whole list end to end
 * and resident.  ref and want_sum: the per-match list's count and
 * checksum; log/last_log: where the library's timeline line goes (printed
 * under each row, then cleared).  Returns non-zero when a row is wrong. */
/* Some rows only (cuda_pfac_bench list --only): those whose names hold
 * one of the '|'-separated parts of `only`, printed with `tag` after the
 * name, checked against the checksums of list_arrays_ref. */
typedef struct list_filter {
    const char *only, *tag;
    uint64_t sum_nostarts;   /* the checksum without starts */
} list_filter;

int list_arrays_rows(const hay_patterns *set, const uint8_t *d, uint64_t len,
                     const hay_buffer *buf, list_arrays *a, uint64_t ref, uint64_t want_sum,
                     double gb, int reps, int few, const list_filter *flt,
                     void (*log)(const char *line, void *ctx), char *last_log);

/* The reference of filtered rows: the whole list of set over d[0, len)
 * in one call into the pageable arrays, folded with and without starts
 * (*sum, flt->sum_nostarts).  Non-zero when it fails or its count is not
 * ref. */
int list_arrays_ref(const hay_patterns *set, const uint8_t *d, uint64_t len, list_arrays *a,
                    uint64_t ref, uint64_t *sum, list_filter *flt);

#endif
