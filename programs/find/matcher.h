/*
 * matcher.h - the compiled pattern set `hay find` searches with, built from
 * the config through the public API; a failure is explained in the terms
 * of the command line (which option to change).
 */
#ifndef HAY_FIND_MATCHER_H
#define HAY_FIND_MATCHER_H

#include "haystack.h"
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
} find_matcher;

/* The index in cf->pats.items of the pattern that set id `id` reported. */
static inline uint32_t find_matcher_pattern(const find_matcher *m, uint32_t id)
{
    return m->owner ? m->owner[id] : id;
}

/* Compiles cf's patterns.  Returns 0, or -1 after printing why;
 * find_matcher_close() either way. */
int find_matcher_open(const find_config *cf, find_matcher *m);
void find_matcher_close(find_matcher *m);

#endif
