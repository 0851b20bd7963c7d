/* sw_db_pack.h - where the database search puts a batch's queries when it
 * packs them (SWDB_PACK in src/cuda/sw_db_kernels.cu): instead of one
 * score row a query, each padded to whole passes of its group (8 threads
 * x 32 rows: 256 rows a pass), the queries are laid one after another in
 * "bins" of whole passes, each query padded only to a thread's rows (32),
 * and the kernel starts a query afresh where its first thread begins.  On
 * issue 16's 31 queries of 24..5,478 residues that is 45,312 rows (177
 * passes) instead of 46,560.  Plain C (the packing is tested on the CPU:
 * tests/align/sw_db_pack.c).  Internal.
 */
#ifndef HAY_SW_DB_PACK_H
#define HAY_SW_DB_PACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Packs the n queries of lengths m[] into bins: query i takes
 * ceil(m[i] / r) slots of r rows, from row start[i] of bin bin[i]
 * (m[i] == 0: bin -1, no rows); bin b has brows[b] rows, a multiple of
 * p * r (p slots a pass).  A bin holds at most cap slots (rounded down
 * to p), raised to the longest query's rounded up to p.  order[] receives the placed queries,
 * bin by bin in row order, then -1 for the empty ones.
 * Each bin takes the longest query left, then the subset of the others
 * (longest first) that fills it to the most whole passes within cap (a
 * subset sum over slots), so only the last bin is padded where the slots
 * allow.  bin, start, order: n entries; brows: n entries at most.
 * Returns the number of bins, or -1 (no memory). */
static inline int swdb_pack(const size_t *m, int n, int r, int p, size_t cap, int32_t *bin,
                            int32_t *start, int32_t *brows, int32_t *order)
{
    int nb = 0, left = 0, placed = 0;
    size_t longest = 0;
    int32_t *items, *from;
    for (int i = 0; i < n; i++) {
        size_t s = (m[i] + (size_t)r - 1) / (size_t)r;
        longest = s > longest ? s : longest;
        bin[i] = -1;
        start[i] = 0;
    }
    longest = (longest + (size_t)p - 1) / (size_t)p * (size_t)p;
    cap = cap / (size_t)p * (size_t)p;   /* so that a bin rounded up stays within */
    cap = cap > longest ? cap : longest;
    items = (int32_t *)malloc(((size_t)n + 1) * sizeof *items);
    from = (int32_t *)malloc((cap + 1) * sizeof *from);
    if (items == NULL || from == NULL) {
        free(items);
        free(from);
        return -1;
    }
    /* The non-empty queries, longest first (insertion sort: a batch's
     * queries are few; ties in index order). */
    for (int i = 0; i < n; i++) {
        if (m[i] == 0)
            continue;
        int k = left++;
        while (k > 0 && m[items[k - 1]] < m[i]) {
            items[k] = items[k - 1];
            k--;
        }
        items[k] = i;
    }
    while (left > 0) {
        /* from[x]: the item whose adding first reached x slots (-1: not
         * reached; -2: the bin's first item alone). */
        const size_t s0 = (m[items[0]] + (size_t)r - 1) / (size_t)r;
        size_t best = s0, x;
        for (x = 0; x <= cap; x++)
            from[x] = -1;
        from[s0] = -2;
        for (int j = 1; j < left; j++) {
            const size_t s = (m[items[j]] + (size_t)r - 1) / (size_t)r;
            for (x = cap - s + 1; x-- > 0;)
                if (from[x] != -1 && from[x + s] == -1)
                    from[x + s] = j;
        }
        for (x = cap; x >= s0; x--)
            if (from[x] != -1 && x % (size_t)p == 0)
                break;
        if (x >= s0)
            best = x;
        else
            for (x = cap; x >= s0; x--)
                if (from[x] != -1) {
                    best = x;
                    break;
                }
        /* The bin's items: item 0 and the chain back from best (marked
         * by a negative slot count in items' place, then compacted). */
        {
            int32_t row = 0, k = 0;
            int first = placed;
            for (x = best; from[x] != -2;) {
                const int j = from[x];
                x -= (m[items[j]] + (size_t)r - 1) / (size_t)r;
                order[placed++] = items[j];
                items[j] = -1;
            }
            order[placed++] = items[0];
            items[0] = -1;
            /* Row order: the chain came out shortest first; the longest
             * first reads better in a dump and costs nothing. */
            for (int a = first, b = placed - 1; a < b; a++, b--) {
                int32_t t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
            for (int q = first; q < placed; q++) {
                bin[order[q]] = nb;
                start[order[q]] = row;
                row += (int32_t)(((m[order[q]] + (size_t)r - 1) / (size_t)r) * (size_t)r);
            }
            brows[nb++] = (int32_t)((best + (size_t)p - 1) / (size_t)p * (size_t)p * (size_t)r);
            for (int j = 0; j < left; j++)
                if (items[j] >= 0)
                    items[k++] = items[j];
            left = k;
        }
    }
    while (placed < n)
        order[placed++] = -1;
    free(items);
    free(from);
    return nb;
}

#endif
