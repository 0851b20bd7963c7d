/*
 * cases.h - the conformance table: haystacks, pattern sets and the caseless
 * flag, each run by conformance.c on every engine and by stream.c through
 * the streaming API.
 */
#ifndef HAY_TEST_CASES_H
#define HAY_TEST_CASES_H

#include "testutil.h"

typedef struct tu_case {
    char name[80];
    uint8_t *hay;          /* owned; len bytes */
    size_t len;
    hay_pattern *pats;     /* owned, bytes owned too */
    size_t npats;
    bool caseless;
    uint8_t pad;           /* a byte no pattern contains (either case) */
    tu_mlist exp;          /* the oracle's matches in hay */
} tu_case;

/* Builds the whole table (fixed cases, then generated ones) with each
 * case's expected matches.  Returns the number of cases. */
size_t tu_cases_build(tu_case **out);
void tu_cases_free(tu_case *cases, size_t n);

/* A fresh, exactly sized allocation of pb pad bytes, the case's haystack
 * and pa pad bytes: reading past either end is caught by ASan. */
uint8_t *tu_case_padded(const tu_case *c, size_t pb, size_t pa);

#endif
