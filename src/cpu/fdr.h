/*
 * fdr.h - what the fdr engine (fdr.c) shows beyond its hay_engine: a test
 * hook that forces its stride.
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

#endif
