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
} find_matcher;

/* Compiles cf's patterns.  Returns 0, or -1 after printing why;
 * find_matcher_close() either way. */
int find_matcher_open(const find_config *cf, find_matcher *m);
void find_matcher_close(find_matcher *m);

#endif
