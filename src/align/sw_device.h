/*
 * sw_device.h - the contract between the alignment front end (src/align/)
 * and the GPU Smith-Waterman kernels (src/cuda/sw_*.cu, src/opencl/).
 * Plain C, included from C and from .cu files.
 *
 * One pair, local alignment, affine gaps: a gap of length k costs
 * gap_open + (k - 1) * gap_extend (parasail's and EMBOSS's rule; both are
 * positive penalties).  Sequences are residue codes 0 .. alpha - 1 and
 * matrix[a * alpha + b] scores query code a against target code b.
 *
 * The result is the best score and the cell where it is reached: q_end,
 * t_end are 0-based and inclusive.  Ties go to the smallest q_end, then
 * the smallest t_end, on every backend and variant, so that results can be
 * compared exactly.  A score of 0 (nothing aligns) gives q_end = t_end = 0
 * and is flagged by score == 0.  Scores are 32-bit.
 */
#ifndef HAY_SW_DEVICE_H
#define HAY_SW_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HAY_SW_MAX_ALPHA 32

typedef struct hay_sw_problem {
    const uint8_t *q;          /* query codes, m of them (host memory) */
    size_t m;
    const uint8_t *t;          /* target codes, n of them (host memory) */
    size_t n;
    const int32_t *matrix;     /* alpha x alpha */
    int alpha;                 /* 1 .. HAY_SW_MAX_ALPHA */
    int32_t gap_open, gap_extend;
} hay_sw_problem;

typedef struct hay_sw_device_result {
    int32_t score;
    uint64_t q_end, t_end;     /* best cell, 0-based inclusive */
    uint64_t cells;            /* m * n */
    double seconds_total;      /* the whole call, transfers included */
    double seconds_compute;    /* kernels doing cell updates */
    double seconds_sync;       /* synchronization: launches, barriers, flags */
    double seconds_copy;       /* host <-> device transfers */
    int blocks, threads;       /* the launch shape used */
} hay_sw_device_result;

/*
 * Scores one pair on the GPU with the named variant (NULL: the fastest).
 * params: "key=value,..." (e.g. "blocks=264,threads=128") or NULL.
 * Returns 0 or a negative hay_status (HAY_ERR_NO_DEVICE, HAY_ERR_DEVICE,
 * HAY_ERR_NOMEM, HAY_ERR_UNKNOWN_NAME, HAY_ERR_INVALID, HAY_ERR_TOO_LARGE).
 */
int hay_cuda_sw_score(const hay_sw_problem *p, const char *variant,
                      const char *params, hay_sw_device_result *r);
/* The i-th CUDA variant name, or NULL past the end. */
const char *hay_cuda_sw_variant(size_t i);

int hay_opencl_sw_score(const hay_sw_problem *p, const char *variant,
                        const char *params, hay_sw_device_result *r);
const char *hay_opencl_sw_variant(size_t i);

#ifdef __cplusplus
}
#endif

#endif
