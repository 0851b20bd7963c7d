/*
 * align_internal.h - what the parts of the aligner (src/align/) share:
 * the scoring object, the score-pass engines and their name table, and the
 * traceback.
 *
 * Orientation used throughout: i indexes the query (rows, 0 .. m-1), j the
 * target (columns, 0 .. n-1).  H is the best local score ending at (i, j);
 * E the best ending with a gap in the query (a target residue against a
 * gap, CIGAR 'D', carried along a row); F the best ending with a gap in the
 * target (a query residue against a gap, CIGAR 'I', carried down a column).
 */
#ifndef HAY_ALIGN_INTERNAL_H
#define HAY_ALIGN_INTERNAL_H

#include "haystack_align.h"

#include <stddef.h>
#include <stdint.h>

struct hay_align_scoring {
    int alpha;
    int dna;
    char letters[HAY_ALIGN_MAX_ALPHA + 1];
    int8_t map[256];                 /* byte -> code, -1 if unknown */
    int32_t matrix[HAY_ALIGN_MAX_ALPHA * HAY_ALIGN_MAX_ALPHA];
    int32_t open, extend;
    int32_t max_score, min_score;    /* over the matrix */
    char name[64];
};

typedef struct hay_align_builtin {
    const char *key, *name, *text;
} hay_align_builtin;
extern const hay_align_builtin hay_align_builtins[];

/* The best cell of one score pass (tie rule of sw_device.h). */
typedef struct sw_end {
    int32_t score;
    uint64_t q_end, t_end;
    int saturated;     /* a 16-bit pass that could not be trusted */
} sw_end;

/*
 * A score-pass engine.  profile() prepares a query once for any number of
 * targets (the result is read-only, shared by threads); score() runs one
 * target and fills *e.  A 16-bit engine sets e->saturated instead of
 * returning a wrong score; the caller reruns a 32-bit engine.
 */
typedef struct sw_engine {
    const char *name;
    int bits;                        /* 16 or 32 */
    int (*supported)(void);
    hay_status (*profile)(const hay_align_scoring *s, const uint8_t *q,
                          size_t m, void **prof);
    void (*profile_free)(void *prof);
    hay_status (*score)(const void *prof, const hay_align_scoring *s,
                        const uint8_t *q, size_t m, const uint8_t *t,
                        size_t n, sw_end *e);
} sw_engine;

/* Engines (sw_scalar.c, sw_striped_sse2.c, sw_striped_avx2.c). */
extern const sw_engine hay_sw_scalar;
extern const sw_engine hay_sw_striped16_sse2, hay_sw_striped32_sse2;
extern const sw_engine hay_sw_striped16_avx2, hay_sw_striped32_avx2;

/*
 * The engines of a CPU variant name (NULL or "auto": striped16): *first
 * runs every pair, *fallback (NULL: the scalar one) redoes a pair whose
 * 16-bit pass saturated.  HAY_ERR_UNKNOWN_NAME, HAY_ERR_UNSUPPORTED.
 */
hay_status hay_sw_variant_engines(const char *variant, const sw_engine **first,
                                  const sw_engine **fallback);

/* Scalar score pass, linear space: the reference. */
hay_status hay_sw_scalar_score(const hay_align_scoring *s, const uint8_t *q,
                               size_t m, const uint8_t *t, size_t n,
                               sw_end *e);

/*
 * One long pair on many threads (sw_wavefront.c): tiles of `tile` x `tile`
 * cells (0: each side from its length and the threads) along
 * anti-diagonals, the tiles of one diagonal shared by the threads (omp
 * for) before the next begins, each tile a striped AVX2 pass in `bits` 16 or 32 (16: may
 * set e->saturated, as a 16-bit engine does) or, with bits 0 or without
 * AVX2, scalar rows (32 bits).  The tie rule of sw_device.h.
 */
hay_status hay_sw_wavefront_score(const hay_align_scoring *s, const uint8_t *q,
                                  size_t m, const uint8_t *t, size_t n,
                                  int threads, size_t tile, int bits,
                                  sw_end *e);
/* The shorter side of a pair worth the wavefront: two tiles of the
 * smallest side (a read against a genome has no wavefront to spread). */
#define HAY_SW_WAVEFRONT_MIN_SIDE 512

/* Whether the CPU runs the AVX2 tiles. */
int hay_sw_wavefront_simd(void);

/* The default tile side for a side of len cells on `threads` threads. */
size_t hay_sw_wavefront_tile(size_t len, int threads);

/* The CPU aligner's keys (hay_align_options.device_params on the CPU). */
typedef struct hay_sw_wavefront_params {
    uint64_t given;
    uint64_t min_cells;     /* wavefront_cells */
    uint64_t tile;          /* wavefront_tile, 0: auto */
    uint64_t split_cells;   /* traceback_cells */
    int db_kernel;          /* db_kernel: HAY_SW_DB_KERNEL_* */
} hay_sw_wavefront_params;
/* The database search's CPU score pass (db_search.c): by the sizes, the
 * inter-sequence kernel (sw_inter.h: AVX2, or the instance named) or the
 * striped engines. */
enum { HAY_SW_DB_KERNEL_AUTO, HAY_SW_DB_KERNEL_INTER, HAY_SW_DB_KERNEL_STRIPED,
       HAY_SW_DB_KERNEL_INTER_AVX2, HAY_SW_DB_KERNEL_INTER_AVX512 };
struct hay_param_table;
extern const struct hay_param_table hay_sw_wavefront_param_table;
/* Parses `text` (NULL: the defaults): HAY_OK or HAY_ERR_INVALID. */
hay_status hay_sw_wavefront_params_get(const char *text,
                                       hay_sw_wavefront_params *out);

/* How the linear-space traceback uses threads (sw_hirschberg.c):
 * threads 1 (or a NULL pointer): the serial code; else sub-rectangles of
 * split_cells or more are split on `threads` threads, the half passes in
 * tiles of `tile` (0: from the sizes, as hay_sw_wavefront_tile). */
typedef struct sw_global_par {
    int threads;
    uint64_t split_cells;
    size_t tile;
} sw_global_par;

/*
 * Global alignment of q[0, m) against t[0, n) (both may be empty), affine
 * gaps, maximum score; writes one op per column ('=', 'X', 'I', 'D') into
 * ops (capacity m + n) and sets *len, *score.  Full direction matrix when
 * (m + 1) * (n + 1) <= budget and it can be allocated, Myers-Miller in
 * linear space otherwise (*linear set to 1).  On several threads (par) the
 * ops are the serial ones; each thread may hold a direction matrix of up to
 * budget bytes.
 */
hay_status hay_sw_global_ops(const hay_align_scoring *s, const uint8_t *q,
                             size_t m, const uint8_t *t, size_t n,
                             const sw_global_par *par, uint64_t budget,
                             char *ops, size_t *len, int64_t *score,
                             int *linear);

#endif
