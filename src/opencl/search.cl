/*
 * search.cl - the OpenCL search kernels: brute force (one pattern) and
 * PFAC (failureless Aho-Corasick, pfac-opencl-mobile-energy.txt section
 * 3.1), the latter over the dense table or the compact CSR form built on
 * the host by src/core/pfac.c.  Embedded into the library at build time.
 *
 * A launch searches text[first, limit) of the piece on the device: it
 * walks from every start position in [first, limit) and reports the
 * matches whose end (exclusive, local to the piece) lies in
 * (min_end, limit].  The host puts the look-back bytes (longest pattern - 1)
 * between first and min_end, so every match is found by exactly one launch.
 *
 * Work split (the paper's knobs): a work-group of wg work-items owns the
 * wg * bpw consecutive start positions from gbase = first + group * wg * bpw
 * on; work-item l takes gbase + l, gbase + l + wg, ... (bpw of them), so
 * neighbouring work-items read neighbouring bytes.  With use_local the
 * group first copies the root row (and the byte classes) and `staged`
 * bytes of text from gbase on into local memory; a walk that runs past the
 * staged bytes reads global memory.
 *
 * Three result modes, one kernel each (the MODE macro below):
 *   count  each group writes the number of matches it found to
 *          partial[group] (no atomics, 64-bit sums)
 *   each   counts[id] += 1 per match (32-bit atomics; a piece is smaller
 *          than 4 GiB, so one id cannot wrap)
 *   list   each match takes slot k = atomic_inc(&flags[0]); k < cap: the
 *          match is written as (end << 20 | id), else flags[1] is set
 *          (sticky, so a wrapped slot counter cannot hide an overflow) and
 *          the host splits the launch and runs it again.
 */
#define ID_BITS 20

#define MODE_COUNT 0
#define MODE_EACH 1
#define MODE_LIST 2

/* A walk reads the byte at position p. */
#define LOAD(p) ((use_local && (p) - gbase < staged) ? ltext[(p) - gbase] : text[p])

/* Copies what the group keeps in local memory; every work-item calls it. */
static void stage(__global const uchar *text, uint gbase, uint limit,
                  uint staged, __local uchar *ltext,
                  __global const uint *root, __global const uchar *cls,
                  __local uint *lroot, __local uchar *lcls, int with_cls)
{
    uint l = get_local_id(0), wg = get_local_size(0);
    for (uint i = l; i < 256; i += wg) {
        lroot[i] = root[i];
        if (with_cls)
            lcls[i] = cls[i];
    }
    for (uint i = l; i < staged && gbase + i < limit; i += wg)
        ltext[i] = text[gbase + i];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The group's count: a tree sum in local memory (wg is a power of two). */
static void group_sum(ulong mine, __local ulong *red, __global ulong *partial)
{
    uint l = get_local_id(0), wg = get_local_size(0);
    red[l] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = wg / 2; s > 0; s /= 2) {
        if (l < s)
            red[l] += red[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = red[0];
}

/* Reports the pattern ids of final state s, ending at `end`. */
#define REPORT_FINAL(s, end)                                                 \
    do {                                                                     \
        uint o0_ = out_first[s], o1_ = out_first[(s) + 1];                   \
        if (MODE == MODE_COUNT) {                                            \
            found += o1_ - o0_;                                              \
        } else {                                                             \
            for (uint o_ = o0_; o_ < o1_; o_++) {                            \
                uint id_ = out_id[o_];                                       \
                if (MODE == MODE_EACH) {                                     \
                    atomic_inc(&counts[id_]);                                \
                } else {                                                     \
                    uint k_ = atomic_inc(&flags[0]);                         \
                    if (k_ < cap)                                            \
                        list[k_] = ((ulong)(end) << ID_BITS) | id_;          \
                    else                                                     \
                        flags[1] = 1;                                        \
                }                                                            \
            }                                                                \
        }                                                                    \
    } while (0)

#define RESULT_ARGS                                                          \
    __global ulong *partial, __local ulong *red,                             \
    __global uint *counts,                                                   \
    __global ulong *list, __global uint *flags, uint cap

/* ---- PFAC ---------------------------------------------------------------- */

/* The transition of the compact form: binary search of s's edges. */
static uint step_compact(__global const uint *edge_first,
                         __global const uchar *edge_cls,
                         __global const uint *edge_to, uint s, uchar k)
{
    uint lo = edge_first[s], hi = edge_first[s + 1], end = hi;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (edge_cls[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < end && edge_cls[lo] == k) ? edge_to[lo] : 0;
}

/*
 * One PFAC kernel per table form and result mode.  STEP(s, c) is the next
 * state from s on byte c.
 */
#define PFAC_KERNEL(NAME, TABLE_ARGS, STEP)                                  \
__kernel void NAME(__global const uchar *text, uint first, uint limit,       \
                   uint min_end, uint bpw, int use_local, uint staged,       \
                   __global const uint *root, __global const uchar *cls,     \
                   TABLE_ARGS,                                               \
                   uint nfinal, __global const uint *out_first,              \
                   __global const uint *out_id,                              \
                   __local uint *lroot, __local uchar *lcls,                 \
                   __local uchar *ltext, RESULT_ARGS)                        \
{                                                                            \
    uint wg = get_local_size(0), l = get_local_id(0);                        \
    uint gbase = first + get_group_id(0) * wg * bpw;                         \
    ulong found = 0;                                                         \
    if (use_local)                                                           \
        stage(text, gbase, limit, staged, ltext, root, cls, lroot, lcls, 1); \
    __global const uint *groot = root;                                       \
    __global const uchar *gcls = cls;                                        \
    for (uint k = 0; k < bpw; k++) {                                         \
        uint start = gbase + l + k * wg;                                     \
        if (start >= limit)                                                  \
            break;                                                           \
        uchar c0 = LOAD(start);                                              \
        uint s = use_local ? lroot[c0] : groot[c0];                          \
        uint p = start + 1;                                                  \
        while (s != 0) {                                                     \
            if (s <= nfinal && p > min_end)                                  \
                REPORT_FINAL(s, p);                                          \
            if (p >= limit)                                                  \
                break;                                                       \
            uchar c = LOAD(p);                                               \
            uchar kc = use_local ? lcls[c] : gcls[c];                        \
            s = STEP(s, kc);                                                 \
            p++;                                                             \
        }                                                                    \
    }                                                                        \
    if (MODE == MODE_COUNT)                                                  \
        group_sum(found, red, partial);                                      \
}

#define DENSE_ARGS __global const uint *next, uint nclasses, \
                   __global const uint *unused1, __global const uchar *unused2
#define DENSE_STEP(s, k) next[(s) * nclasses + (k)]
#define COMPACT_ARGS __global const uint *edge_first, uint unused0, \
                     __global const uint *edge_to, __global const uchar *edge_cls
#define COMPACT_STEP(s, k) step_compact(edge_first, edge_cls, edge_to, (s), (k))

#define MODE MODE_COUNT
PFAC_KERNEL(pfac_dense_count, DENSE_ARGS, DENSE_STEP)
PFAC_KERNEL(pfac_compact_count, COMPACT_ARGS, COMPACT_STEP)
#undef MODE
#define MODE MODE_EACH
PFAC_KERNEL(pfac_dense_each, DENSE_ARGS, DENSE_STEP)
PFAC_KERNEL(pfac_compact_each, COMPACT_ARGS, COMPACT_STEP)
#undef MODE
#define MODE MODE_LIST
PFAC_KERNEL(pfac_dense_list, DENSE_ARGS, DENSE_STEP)
PFAC_KERNEL(pfac_compact_list, COMPACT_ARGS, COMPACT_STEP)
#undef MODE

/* ---- brute force: one pattern -------------------------------------------- */

/*
 * pat[0, m) is the pattern, already folded when `caseless`; text bytes are
 * folded as they are read.  Pattern id 0.
 */
#define FOLD(c) ((caseless && (c) >= 'A' && (c) <= 'Z') ? (uchar)((c) | 0x20) : (c))

#define BRUTE_KERNEL(NAME)                                                   \
__kernel void NAME(__global const uchar *text, uint first, uint limit,       \
                   uint min_end, uint bpw, int use_local, uint staged,       \
                   __global const uchar *pat, uint m, int caseless,          \
                   __local uint *lroot, __local uchar *lcls,                 \
                   __local uchar *ltext, RESULT_ARGS)                        \
{                                                                            \
    uint wg = get_local_size(0), l = get_local_id(0);                        \
    uint gbase = first + get_group_id(0) * wg * bpw;                         \
    ulong found = 0;                                                         \
    if (use_local) {                                                         \
        for (uint i = l; i < staged && gbase + i < limit; i += wg)           \
            ltext[i] = text[gbase + i];                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                        \
    }                                                                        \
    for (uint k = 0; k < bpw; k++) {                                         \
        uint start = gbase + l + k * wg;                                     \
        if (start >= limit || limit - start < m)                             \
            break;                                                           \
        uint end = start + m;                                                \
        if (end <= min_end)                                                  \
            continue;                                                        \
        uint i = 0;                                                          \
        while (i < m) {                                                      \
            uchar c = LOAD(start + i);                                       \
            if (FOLD(c) != pat[i])                                           \
                break;                                                       \
            i++;                                                             \
        }                                                                    \
        if (i == m) {                                                        \
            if (MODE == MODE_COUNT) {                                        \
                found++;                                                     \
            } else if (MODE == MODE_EACH) {                                  \
                atomic_inc(&counts[0]);                                      \
            } else {                                                         \
                uint k_ = atomic_inc(&flags[0]);                             \
                if (k_ < cap)                                                \
                    list[k_] = (ulong)end << ID_BITS;                        \
                else                                                         \
                    flags[1] = 1;                                            \
            }                                                                \
        }                                                                    \
    }                                                                        \
    if (MODE == MODE_COUNT)                                                  \
        group_sum(found, red, partial);                                      \
}

#define MODE MODE_COUNT
BRUTE_KERNEL(brute_count)
#undef MODE
#define MODE MODE_EACH
BRUTE_KERNEL(brute_each)
#undef MODE
#define MODE MODE_LIST
BRUTE_KERNEL(brute_list)
#undef MODE
