/*
 * fdr.h - what the fdr engine (fdr.c) shows beyond its hay_engine: test
 * hooks that force its stride and its window width, and tell its table's
 * key bits.
 */
#ifndef HAY_FDR_H
#define HAY_FDR_H

#include "haystack.h"

/*
 * Test hook: makes a set compiled with algo "fdr" look up every 1st, 2nd
 * or 4th window from now on (the filter stays exact after verification at
 * any stride; only its speed and false candidates change).  Call it before
 * any scan, never while one runs.  HAY_ERR_INVALID when the set is not an
 * fdr set or stride is not 1, 2 or 4.  hay_fdr_stride() gives the stride
 * in use (0: not an fdr set).
 */
hay_status hay_fdr_set_stride(hay_patterns *set, unsigned stride);
unsigned hay_fdr_stride(const hay_patterns *set);

/*
 * Test hook: rebuilds an fdr set's filter over windows of 2 or 3 bytes
 * (the stride goes back to the one chosen for that width).  Call it
 * before any scan, never while one runs.  HAY_ERR_INVALID when the set is
 * not an fdr set or width is not 2 or 3; the set is unchanged then and on
 * HAY_ERR_NOMEM.  hay_fdr_width() gives the width in use (0: not an fdr
 * set).
 */
hay_status hay_fdr_set_width(hay_patterns *set, unsigned width);
unsigned hay_fdr_width(const hay_patterns *set);

/* Exact (not caseless) sets with 3-byte windows whose filter prefixes are
 * all 10 bytes take a table of 12 key bits (32 KiB) up to this many
 * literals, else 14 or 16; caseless sets take 16 (choose_shape in
 * fdr_build.c). */
#define FDR_SMALL_DOMAIN_MAX 2700

/* Test hook: the key bits of an fdr set's filter table (its size is 8 <<
 * domain bytes); 0: not an fdr set. */
unsigned hay_fdr_domain(const hay_patterns *set);

#endif
