/*
 * sw.cl - Smith-Waterman, the "simple" anti-diagonal kernel
 * (cuda-smith-waterman-wavefront.txt section 5.1.1): cells on one
 * anti-diagonal i + j = d do not depend on each other, so one launch
 * computes one anti-diagonal, one work-item per cell, and the next launch
 * (an implicit barrier) the next one.  Embedded into the library at build
 * time; the host side is ocl_sw.c.
 *
 * Diagonals are stored by query row i: diagonal d holds cell (i, d - i)
 * at index i.  Only the last two diagonals of H and the last one of E and F
 * are kept.  Affine gaps as in src/align/sw_device.h: a gap of length k
 * costs gap_open + (k - 1) * gap_extend.
 *   E(i,j) = max(E(i,j-1) - ext, H(i,j-1) - open)    gap in the query
 *   F(i,j) = max(F(i-1,j) - ext, H(i-1,j) - open)    gap in the target
 *   H(i,j) = max(0, H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j))
 * Row i's best so far (score, column) is kept in best_h[i], best_j[i]; the
 * work-item of row i is the only one to touch them in a launch, and columns
 * grow with d, so a strict > keeps the smallest column of a tie.  The host
 * then takes the best row, the smallest on ties.
 */
#define NEG_INF (-0x3fffffff)

__kernel void sw_diagonal(__global const uchar *q, uint m,
                          __global const uchar *t, uint n,
                          __global const int *matrix, int alpha,
                          int gap_open, int gap_extend, uint d, uint i_lo,
                          uint i_hi,
                          __global const int *h2, __global const int *h1,
                          __global const int *e1, __global const int *f1,
                          __global int *h0, __global int *e0, __global int *f0,
                          __global int *best_h, __global uint *best_j)
{
    uint i = i_lo + (uint)get_global_id(0);
    if (i > i_hi)
        return;
    uint j = d - i;
    /* Neighbours: (i, j-1) and (i-1, j) on diagonal d-1, (i-1, j-1) on d-2. */
    int h_left = j > 0 ? h1[i] : 0;
    int e_left = j > 0 ? e1[i] : NEG_INF;
    int h_up = i > 0 ? h1[i - 1] : 0;
    int f_up = i > 0 ? f1[i - 1] : NEG_INF;
    int h_diag = (i > 0 && j > 0) ? h2[i - 1] : 0;
    int e = max(e_left - gap_extend, h_left - gap_open);
    int f = max(f_up - gap_extend, h_up - gap_open);
    int h = h_diag + matrix[q[i] * alpha + t[j]];
    h = max(max(h, 0), max(e, f));
    h0[i] = h;
    e0[i] = e;
    f0[i] = f;
    if (h > best_h[i]) {
        best_h[i] = h;
        best_j[i] = j;
    }
}
