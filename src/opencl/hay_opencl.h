/*
 * hay_opencl.h - entry points of the OpenCL backend beyond the ops table,
 * for tests, benchmarks and the alignment front end.  Plain C, no OpenCL
 * headers.  (Smith-Waterman: see src/align/sw_device.h.)
 */
#ifndef HAY_OPENCL_H
#define HAY_OPENCL_H

#include "haystack.h"

#include <stddef.h>

/*
 * Writes the knobs in effect for a set compiled for the OpenCL backend
 * (device, algorithm, transfer, local, wg, bpw, table, staged bytes, list
 * capacity, piece size, energy method) into buf as "key=value" words.
 * HAY_ERR_INVALID for a set of another backend.
 */
hay_status hay_opencl_describe_set(const hay_patterns *set, char *buf,
                                   size_t cap);

/* The keys of hay_opencl_sw_score's params (ocl_sw.c, built with OpenCL
 * only; core/params.h). */
struct hay_param_table;
extern const struct hay_param_table hay_opencl_sw_param_table;

/* The keys of a set's params on backend opencl (opencl_backend.c, built in
 * every build, so that the keys are checked the same way everywhere). */
extern const struct hay_param_table hay_opencl_param_table;

#endif
