/*
 * matcher.h - the compiled pattern set `hay find` searches with, built from
 * the config through the public API; a failure is explained in the terms
 * of the command line (which option to change).
 */
#ifndef HAY_FIND_MATCHER_H
#define HAY_FIND_MATCHER_H

#include "haystack.h"
#include "lines.h"
#include "options.h"

typedef struct find_matcher {
    hay_patterns *set;      /* NULL when only empty patterns were given */
    hay_scratch *scratch;
    double compile_s;
    /* The set's pattern ids are the config's (cf->pats.items) unless
     * patterns were left out or -i added case variants: then owner[id] is
     * the config's pattern that set id stands for. */
    uint32_t *owner;
    size_t nvariants;       /* patterns in the set */
    size_t max_len;         /* the longest of them */
    /* A pattern with too many case variants is compiled as its prefix
     * (casefold.h): then covered[id] is how much of owner[id] the set id
     * holds, the rest is checked after the scan (find_matcher_verify), and
     * the set reports every occurrence (HAY_MATCH_ALL); with `reselect`
     * the config's leftmost mode is applied to each line's matches after
     * (find_matcher_select). */
    size_t *covered;        /* NULL: every set id is a whole pattern */
    const hay_pattern *pats;   /* the config's patterns */
    bool reselect;
} find_matcher;

/* The index in cf->pats.items of the pattern that set id `id` reported. */
static inline uint32_t find_matcher_pattern(const find_matcher *m, uint32_t id)
{
    return m->owner ? m->owner[id] : id;
}

/* Whether the match of set id `id` ending at *end in buf[0, len) is one of
 * its pattern (always, but for a prefix); moves *end to the pattern's end. */
bool find_matcher_verify(const find_matcher *m, uint32_t id, const uint8_t *buf,
                         uint64_t len, uint64_t *end);

/* With m->reselect: keeps of spans[0, n) (sorted by start, longest first)
 * those the config's leftmost mode would have reported; returns how many
 * (moved to the front). */
size_t find_matcher_select(hay_match_mode mode, find_span *spans, size_t n);

/* Compiles cf's patterns.  Returns 0, or -1 after printing why;
 * find_matcher_close() either way. */
/* hay_scan with the matches taken from the library in batches
 * (hay_scan_batch) and handed one by one to fn; fn's non-zero return stops
 * the scan as hay_scan's would. */
hay_status find_matcher_scan(const hay_patterns *set, hay_scratch *scratch,
                             const uint8_t *buf, uint64_t len, const hay_scan_opts *so,
                             hay_match_fn fn, void *ctx);

int find_matcher_open(const find_config *cf, find_matcher *m);
void find_matcher_close(find_matcher *m);

#endif
