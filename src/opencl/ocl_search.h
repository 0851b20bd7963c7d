/*
 * ocl_search.h - what the two files of the OpenCL search backend share:
 * opencl_backend.c (its parameters, compiling a set: device, queue,
 * kernels, tables and result buffers; the ops table) and ocl_scan.c (the
 * scan: buffers and transfers, time and energy per phase, launches, the
 * match list, pieces).  Internal to src/opencl/.
 */
#ifndef HAY_OCL_SEARCH_H
#define HAY_OCL_SEARCH_H

#include "../core/internal.h"

/* Parameters (their keys: opencl_backend.c). */
enum { TRANSFER_COPY, TRANSFER_MAP, TRANSFER_PINNED };
enum { TABLE_AUTO, TABLE_DENSE, TABLE_COMPACT };
typedef struct knobs {
    uint64_t given;
    char device[64];       /* "" when not given */
    int transfer;          /* TRANSFER_*; when not given: map on unified memory */
    bool local, cache;
    uint64_t wg, bpw;
    int table;             /* TABLE_* */
    uint64_t cap, piece;
} knobs;

#ifdef HAY_HAVE_OPENCL
#include "../core/energy.h"
#include "ocl_rt.h"

#include <pthread.h>

enum { ALGO_BRUTE, ALGO_PFAC };
enum { MODE_COUNT, MODE_EACH, MODE_LIST, NMODES };
enum { PHASE_WRITE, PHASE_KERNEL, PHASE_READ, NPHASES };

/* Kernel argument positions (search.cl). */
enum {
    A_TEXT, A_FIRST, A_LIMIT, A_MIN_END, A_BPW, A_USE_LOCAL, A_STAGED,
    /* PFAC */
    P_ROOT = 7, P_CLS, P_T0, P_NCLS, P_T2, P_T3, P_NFINAL, P_OUT_FIRST,
    P_OUT_ID, P_LROOT, P_LCLS, P_LTEXT, P_RES,
    /* brute force */
    B_PAT = 7, B_M, B_CASELESS, B_LROOT, B_LCLS, B_LTEXT, B_RES
};
/* Offsets from the first result argument. */
enum { R_PARTIAL, R_RED, R_COUNTS, R_LIST, R_FLAGS, R_CAP };


typedef struct ocl_state {
    hay_ocl_dev *dev;
    knobs kn;
    int algo, map, pinned, dense;
    size_t wg, bpw, staged, cap;
    cl_command_queue q;
    cl_kernel k[NMODES];
    hay_pfac *pfac;
    /* tables */
    cl_mem d_root, d_cls, d_t0, d_t2, d_t3, d_out_first, d_out_id, d_pat;
    size_t device_bytes;
    /* scan buffers, grown as needed, guarded by lock */
    pthread_mutex_t lock;
    cl_mem d_text, d_partial, d_counts, d_list, d_flags;
    size_t text_cap, partial_cap;
    uint64_t piece;        /* current piece size (halved on out-of-memory) */
    uint64_t *keys, *tmp;  /* host copies of one launch's list */
    cl_mem h_stage;        /* transfer=pinned: the staging buffer, mapped */
    void *stage;
    size_t stage_cap;
    uint32_t *hcounts;
    /* phases paid at compile, reported by the first scan */
    double init_s, prep_s, init_j, prep_j;
    bool reported;
    hay_energy *meter;     /* the device's (process-wide, see ocl_rt.c) or NULL */
    bool metering;         /* read it in this scan (only when stats are asked:
                              a reading costs a driver call of ~ms) */
    /* per scan */
    double phase_s[NPHASES], phase_j[NPHASES];
} ocl_state;

/* Phases of a scan: time and energy at a boundary (ocl_scan.c). */
typedef struct phase_mark {
    double t, j;
} phase_mark;

/* Sets argument i of kernel k to the value v. */
#define SET(k, i, v) clSetKernelArg((k), (cl_uint)(i), sizeof(v), &(v))

/* Buffers (ocl_scan.c).  Releases *m and sets it to NULL. */
void hay_ocl_release(cl_mem *m);
/* The flags of a scan buffer: host-accessible in map mode. */
cl_mem_flags hay_ocl_scan_flags(const ocl_state *st, cl_mem_flags f);
/* Unmaps and releases the transfer=pinned staging buffer, if any. */
void hay_ocl_stage_release(ocl_state *st);

/* The start of a phase (the meter first, so that the time of reading it
 * stays out of the phase), and its end (the clock first). */
phase_mark hay_ocl_mark(ocl_state *st);
phase_mark hay_ocl_mark_end(ocl_state *st);

/* The ops' scans (ocl_scan.c): the match list, the count, the counts per
 * pattern; set->state is the set's ocl_state. */
hay_status hay_ocl_scan(const hay_patterns *set, hay_scratch *scratch,
                        const uint8_t *data, uint64_t len,
                        const hay_scan_opts *o, hay_match_fn fn, void *ctx);
hay_status hay_ocl_count(const hay_patterns *set, hay_scratch *scratch,
                         const uint8_t *data, uint64_t len,
                         const hay_scan_opts *o, uint64_t *count);
hay_status hay_ocl_count_each(const hay_patterns *set, hay_scratch *scratch,
                              const uint8_t *data, uint64_t len,
                              const hay_scan_opts *o, uint64_t *counts);
#endif /* HAY_HAVE_OPENCL */

#endif
