/*
 * stats.h - what a `hay find` run cost and found, summed over its files,
 * and the --stats report (on stderr).
 */
#ifndef HAY_FIND_STATS_H
#define HAY_FIND_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "haystack.h"
#include "options.h"

typedef struct find_totals {
    double compile_s, map_s, scan_s;
    uint64_t bytes;
    bool any_match, error;
    unsigned dev_scans;   /* scans that ran on a GPU backend */
    hay_scan_stats lib;   /* the library's per-scan stats, summed */
    bool lib_ran;
    /* --json's summary */
    uint64_t searches, searches_with_match, matched_lines, matches;
} find_totals;

/* Adds one scan's library stats (when the library filled them in). */
void find_totals_add_scan(find_totals *t, const hay_scan_stats *scan);

/* The --stats lines: the set (NULL when only empty patterns were given),
 * the phases, and the device's phases and energy where a GPU ran. */
void find_stats_print(const find_config *cf, const hay_patterns *set,
                      const find_totals *t, double total_s);

#endif
