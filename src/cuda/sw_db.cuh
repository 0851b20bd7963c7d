// sw_db.cuh - what the database-search files share (src/cuda/sw_db.cu and
// sw_db_search.cu, the host driver; src/cuda/sw_db_kernels.cu, the score
// kernels).  Internal.
//
// The kernels compute one query against many targets per block task,
// inter-sequence: a group of G threads (G = 1, 2, 4, 8 (16, 32), chosen by the
// query's length) owns one "unit" and sweeps it column by column (target
// residues) while each thread holds R (16 or 32) query rows in registers; the
// group is a wavefront (thread t works on column s - t at step s) that
// passes the bottom row's H and F down by warp shuffles.  A query longer
// than G * R rows takes several passes, the last row of one pass
// kept in a per-block scratch for the next.  Units are:
//   - 16-bit kernel: two neighbouring targets (of the length-sorted order)
//     packed in the halves of 32-bit lanes, updated with sm_90 DPX
//     instructions; query profile of 8-bit scores in shared memory (or,
//     in large launches, of 16-bit scores in 32-bit words: SWDB_PAIR_IMAD,
//     where groups of 8 sweep SWDB_B2B such pairs back to back);
//   - 32-bit kernel: one target (all of them when the scoring does not fit
//     16 bits, else only those whose 16-bit score may have saturated).
// A block (4 warps) takes tasks (one query x 4 * 32 / G neighbouring units)
// from an atomic counter, longest targets first; it loads each pass's
// slice of the query profile into shared memory, and its warps sweep their
// own units (a warp runs to the longest of its units; the length order
// keeps them alike).  Long targets need no kernel of their own: they are
// units like the others, and a launch whose scratch (units x longest
// target) would not fit its budget is cut into segments with fewer blocks.
// The compile-time variants (SWDB_*) and what they measured:
// docs/notes/2026-11-26-swdb-kernel.md.
#ifndef HAY_SW_DB_CUH
#define HAY_SW_DB_CUH

#include <stdint.h>

#define SWDB_WARPS 4            // warps per block
#define SWDB_THREADS (SWDB_WARPS * 32)
#define SWDB_MAX_ROWS_PROF 33   // alpha + 1 profile rows (the last: padding)
#define SWDB_PAD8 (-128)        // profile score of padding (16-bit kernel)
#define SWDB_PAD32 (-(1 << 20)) // profile score of padding (32-bit kernel)

// One kernel launch: nq queries x nblk block tasks.
typedef struct swdb_kargs {
    const uint8_t *codes;       // targets, length-sorted, each padded with
                                // code alpha to a multiple of 4, 4-aligned
    const uint64_t *off;        // start of sorted target k in codes
    const int32_t *len;         // length of sorted target k
    int ntargets;
    const int32_t *ulist;       // 32-bit kernel: unit -> sorted target (NULL: identity)
    int nunits;
    int blk0, nblk;             // block tasks [blk0, blk0 + nblk) of the units
    int nq;                     // queries in this launch
    const int32_t *qrow;        // launch query -> score row
    const int32_t *qmpad;       // per score row: rows of the profile (a multiple of G * R)
    const uint64_t *qprof;      // per score row: profile offset in elements
    const void *prof;           // int8 (16-bit kernel) or int32 profiles,
                                // [alpha + 1][mpad] per query
    int alpha;
    int go, ge;
    int thr;                    // 16-bit: a lane reaching thr is rescored (-1)
    int *counter;               // task counter, 0 before the launch
    uint2 *temp;                // per block slot: [tmax][units per block] (H, F)
    int tmax;                   // >= every target length of the launch
    int32_t *scores;            // [row][ntargets], sorted target order
} swdb_kargs;

// Units per block of the G-thread-group kernel.
static inline int swdb_units_per_block(int g) { return SWDB_WARPS * (32 / g); }

// Kernel shapes, by query length: G threads of R rows each, G * R rows a
// pass.  The 32-row shapes only for the 16-bit kernel; the 32-bit kernel
// runs their queries with 16 rows (8 x 32: 8 x 16, a pass of 256 rows is
// two of 128).  SWDB_WIDE (32 by default, 16, or 0: none) adds a first
// shape of that many threads x 32 rows (1,024 or 512 rows a pass; the
// 32-bit kernel: 32 x 8 or 16 x 16) for queries over SWDB_WIDE_MIN (512)
// residues where swdb_wide_pays: on a small database the longest query
// against the longest targets is one group's serial work, the launch's
// critical path, which a wider group shortens (one H100, E. coli: 1,930
// -> 3,064 GCUPS with SWDB_PAIR_IMAD=2; 1,000,000 x 256 takes no wide
// shape).  SWDB_WIDE_RULE=0: wide whatever the database.
#ifndef SWDB_WIDE
#define SWDB_WIDE 32
#endif
#ifndef SWDB_WIDE_MIN
#define SWDB_WIDE_MIN 512
#endif
#ifndef SWDB_WIDE_RULE
#define SWDB_WIDE_RULE 1
#endif
#if SWDB_WIDE
#define SWDB_SHAPES 6
static const int swdb_shape_g[SWDB_SHAPES] = {SWDB_WIDE, 8, 8, 4, 2, 1};
static const int swdb_shape_r[SWDB_SHAPES] = {32, 32, 16, 16, 16, 16};
#else
#define SWDB_SHAPES 5
static const int swdb_shape_g[SWDB_SHAPES] = {8, 8, 4, 2, 1};
static const int swdb_shape_r[SWDB_SHAPES] = {32, 16, 16, 16, 16};
#endif

// The shape for a query of m residues.  rows: 16 or 32 forces the rows of
// long queries, 0 chooses: 32 rows unless that pads the query by more than
// a tenth over 16 rows.  wide: the wide shape may be chosen
// (swdb_wide_pays).
static inline int swdb_shape(size_t m, int rows, int wide)
{
    const int w = SWDB_WIDE ? 1 : 0;   // shapes before 8 x 32
    if (m <= 16)
        return w + 4;
    if (m <= 32)
        return w + 3;
    if (m <= 64)
        return w + 2;
    if (rows == 16 || m <= 128)
        return w + 1;
    if (SWDB_WIDE && wide && m > SWDB_WIDE_MIN)
        return 0;
    size_t p16 = (m + 127) / 128 * 128, p32 = (m + 255) / 256 * 256;
    return rows == 32 || (double)p32 <= 1.1 * (double)p16 ? w : w + 1;
}

// SWDB_PAIR_IMAD=2 (default): the 16-bit kernel's score pairs by IMAD
// from a 32-bit profile slice (sw_db_kernels.cu's swdb_col16, where that
// slice fits 40 KB of shared memory: groups of 8 x 32 rows and narrower)
// in launches of at least SWDB_PI_TASKS block tasks a resident block,
// which are bound by throughput; elsewhere by PRMT (on a small database a
// launch's time is one group's serial path, which the IMAD form
// lengthens).  One H100: 1,000,000 x 256 4,758 -> 4,954 GCUPS; always
// (1), E. coli -11%.  0: never.
#ifndef SWDB_PAIR_IMAD
#define SWDB_PAIR_IMAD 2
#endif
#ifndef SWDB_PI_TASKS
#define SWDB_PI_TASKS 16
#endif
// Whether a 16-bit launch of `tasks` block tasks on `grid` blocks takes
// the IMAD instance.
static inline bool swdb_pi_pays(long long tasks, long long grid)
{
    return SWDB_PAIR_IMAD == 1 ||
           (SWDB_PAIR_IMAD == 2 && tasks >= (long long)SWDB_PI_TASKS * grid);
}

// SWDB_B2B=K (2; 1: off): in the IMAD instances of groups of 8 threads
// (8 x 32 and 8 x 16), a unit is K target pairs (2 K neighbouring targets)
// that the group sweeps one after the other in each pass, each thread
// starting the next pair afresh at its first column: a pass's G - 1 fill
// and drain steps, its profile slice load and its barriers serve K pairs.
// Each pair takes its warp's longest target rounded up to 4 columns, at
// least G (swdb_b2b_cols).  One H100, 1,000,000 x 256: K = 2 +0.4%, 4
// -3.1% (its scratch, 68 MB, over the 50 MB L2), in groups of 2 and 4
// too: as in 8 alone; with the step's cuts of sw_db_kernels.cu (no thread
// index, the low profile offset by IMAD): 4,960 -> 5,154 GCUPS.
#ifndef SWDB_B2B
#define SWDB_B2B 2
#endif
// Target pairs a unit of the 16-bit IMAD instance of g x r sweeps.
static inline constexpr int swdb_b2b_pairs(int g, int r)
{
    return g == 8 && r >= 16 ? SWDB_B2B : 1;
}
// Columns of a unit of kp pairs whose longest target has L residues, in
// groups of g threads (a bound: each pair takes at most this).
static inline int swdb_b2b_cols(int L, int kp, int g)
{
    const int c = (L + 3) / 4 * 4;
    return kp > 1 ? kp * (c > g ? c : g) : L;
}

// Launches the score kernel (bits 16 or 32, g threads of r rows; 16 bits:
// pi, the IMAD instance, whose units are swdb_b2b_pairs(g, r) pairs) on
// `grid` blocks.  Returns a cudaError_t.
int swdb_launch(int bits, int g, int r, int grid, bool pi, const swdb_kargs *a, cudaStream_t s);
// Blocks of that kernel resident on one multiprocessor.
int swdb_occupancy(int bits, int g, int r, int *blocks_per_sm);

// Whether a batch's queries over SWDB_WIDE_MIN residues should take the
// wide shape, against len (the nt target lengths, longest first) on sms
// multiprocessors.  In groups of 8 x 32 the longest query against the
// longest targets is passes x (longest + 8) steps of one group, the
// critical path; the launch's whole work is about the sum of its queries'
// passes x the sum over its blocks of their longest target (+ 8), shared by
// sms x the blocks resident on one.  Wide when the critical path is over
// half of one block's share (a small database; on a large one the wide
// groups' longer fill and drain would only cost).
static inline int swdb_wide_pays(const int32_t *len, size_t nt, const size_t *qlens, int nq,
                                 int sms)
{
    if (!SWDB_WIDE || nt == 0)
        return 0;
    if (!SWDB_WIDE_RULE)
        return 1;
    double passes = 0, pmax = 0, steps = 0;
    for (int q = 0; q < nq; q++)
        if (qlens[q] > 128) {
            double p = (double)((qlens[q] + 255) / 256);
            passes += p;
            pmax = p > pmax ? p : pmax;
        }
    if (pmax * 256 <= SWDB_WIDE_MIN)
        return 0;
    const size_t tpb = 2 * (size_t)swdb_units_per_block(8);
    for (size_t k = 0; k < nt; k += tpb)
        steps += (double)len[k] + 8;
    int per_sm = 0;
    if (swdb_occupancy(16, 8, 32, &per_sm) != 0 || per_sm < 1)
        per_sm = 1;
    return pmax * ((double)len[0] + 8) > 0.5 * passes * steps / ((double)sms * per_sm);
}

#endif
