/*
 * sw_db_pack.c - the packing of a database search's queries into bins of
 * whole passes (src/cuda/sw_db_pack.h, SWDB_PACK in the GPU kernels),
 * checked on the CPU: every non-empty query placed once, at a multiple of
 * 32 rows, inside its bin; bins of whole 256-row passes, within their cap;
 * the order list bin by bin in row order; never more passes than one
 * query a row (each padded to whole passes, the 8 x 32 kernel's layout).
 * Cases: issue 16's 31 queries (24..5,478 residues; the rows before and
 * after are printed, and there the bins hold the fewest passes the slots
 * allow), random sets with empty, tiny and long queries, and caps below
 * the longest query.
 */
#include "testutil.h"
#include "../../src/cuda/sw_db_pack.h"

#include <stdio.h>
#include <stdlib.h>

#define R 32   /* rows a thread */
#define P 8    /* threads a group: slots a pass */

/* Checks one packing; returns the passes of its bins (-1: wrong). */
static long check_pack(const char *name, const size_t *m, int n, size_t cap)
{
    int32_t *bin = malloc((size_t)(n + 1) * sizeof *bin);
    int32_t *start = malloc((size_t)(n + 1) * sizeof *start);
    int32_t *brows = malloc((size_t)(n + 1) * sizeof *brows);
    int32_t *order = malloc((size_t)(n + 1) * sizeof *order);
    char *seen = calloc((size_t)n + 1, 1);
    size_t longest = 0, unpacked = 0;
    long passes = 0;
    int bad = 0;
    int nb = swdb_pack(m, n, R, P, cap, bin, start, brows, order);
    if (!CHECK(nb >= 0, "%s: no memory", name))
        goto done;
    for (int i = 0; i < n; i++) {
        size_t s = (m[i] + R - 1) / R;
        longest = s > longest ? s : longest;
        unpacked += (s + P - 1) / P;
    }
    longest = (longest + P - 1) / P * P;
    for (int b = 0; b < nb; b++) {
        bad += !CHECK(brows[b] > 0 && brows[b] % (R * P) == 0, "%s: bin %d of %d rows", name, b,
                      brows[b]);
        bad += !CHECK((size_t)brows[b] <= (cap > longest ? cap : longest) * R,
                      "%s: bin %d of %d rows over its cap", name, b, brows[b]);
        passes += brows[b] / (R * P);
    }
    /* order: the placed queries, bins ascending, rows ascending, without
     * overlap; then -1 for the empty ones. */
    {
        int k = 0, pb = -1;
        int32_t end = 0;
        for (; k < n && order[k] >= 0; k++) {
            int i = order[k];
            if (i >= n || seen[i]++) {
                bad += !CHECK(0, "%s: order[%d] = %d twice or out of range", name, k, i);
                break;
            }
            bad += !CHECK(m[i] > 0 && bin[i] >= 0 && bin[i] < nb, "%s: query %d (m=%zu) in bin %d",
                          name, i, m[i], bin[i]);
            if (bin[i] < 0 || bin[i] >= nb)
                break;
            if (bin[i] != pb) {
                bad += !CHECK(bin[i] == pb + 1, "%s: bin %d after %d", name, bin[i], pb);
                pb = bin[i];
                end = 0;
            }
            bad += !CHECK(start[i] % R == 0 && start[i] >= end, "%s: query %d at row %d (after %d)",
                          name, i, start[i], end);
            end = start[i] + (int32_t)((m[i] + R - 1) / R * R);
            bad += !CHECK(end <= brows[bin[i]], "%s: query %d ends at %d, bin of %d rows", name,
                          i, end, brows[bin[i]]);
        }
        bad += !CHECK(pb == nb - 1, "%s: %d bins, the last with a query %d", name, nb, pb);
        for (; k < n; k++)
            bad += !CHECK(order[k] == -1, "%s: order[%d] = %d after the placed", name, k,
                          order[k]);
        for (int i = 0; i < n; i++)
            bad += !CHECK(seen[i] == (m[i] > 0) && (m[i] > 0 || bin[i] == -1),
                          "%s: query %d (m=%zu) placed %d times, bin %d", name, i, m[i], seen[i],
                          bin[i]);
    }
    bad += !CHECK((size_t)passes <= unpacked, "%s: %ld passes, %zu a query a row", name, passes,
                  unpacked);
done:
    free(bin);
    free(start);
    free(brows);
    free(order);
    free(seen);
    return bad || nb < 0 ? -1 : passes;
}

int main(void)
{
    /* Issue 16's queries (queries_24-5478aa.fasta), their lengths. */
    static const size_t q31[] = {24,   63,   127,  144,  189,  189,  222,  246,  255,  361, 362,
                                 375,  464,  497,  511,  553,  567,  657,  729,  852,  1000, 1500,
                                 2005, 2504, 3005, 3564, 4061, 4548, 4743, 5147, 5478};
    const int n31 = (int)(sizeof q31 / sizeof q31[0]);
    size_t real = 0, slots = 0, perpass = 0;
    for (int i = 0; i < n31; i++) {
        real += q31[i];
        slots += (q31[i] + R - 1) / R;
        perpass += (q31[i] + R * P - 1) / (R * P) * (R * P);
    }
    for (size_t cap = 8 * P; cap <= 64 * P; cap += 8 * P) {
        char name[64];
        snprintf(name, sizeof name, "31 queries, cap %zu passes", cap / P);
        long passes = check_pack(name, q31, n31, cap);
        /* The slots fill the bins to the fewest whole passes. */
        CHECK(passes == (long)((slots + P - 1) / P), "%s: %ld passes, %zu slots", name, passes,
              slots);
        if (cap == 16 * P)
            printf("31 queries (%zu residues): %zu rows a query padded to 256, %zu packed "
                   "(padding %zu -> %zu rows)\n",
                   real, perpass, (size_t)passes * R * P, perpass - real,
                   (size_t)passes * R * P - real);
    }

    /* Random sets. */
    tu_rng r = {0x9ac4ed5eedull};
    int cases = (int)tu_scaled(400, 60);
    for (int c = 0; c < cases; c++) {
        int n = (int)tu_range(&r, 0, 120);
        size_t *m = malloc((size_t)(n + 1) * sizeof *m);
        int kind = c % 4;
        for (int i = 0; i < n; i++) {
            size_t v;
            if (kind == 0)
                v = tu_range(&r, 0, 300);                      /* short, some empty */
            else if (kind == 1)
                v = tu_range(&r, 1, 6000);                     /* long */
            else if (kind == 2)
                v = tu_range(&r, 0, 3) == 0 ? 0 : tu_range(&r, 1, 40);
            else
                v = tu_range(&r, 0, 1) ? tu_range(&r, 200, 9000) : tu_range(&r, 1, 64);
            m[i] = v;
        }
        size_t cap = (size_t)tu_range(&r, 0, 40) * P + (c % 3 == 0 ? tu_range(&r, 0, 7) : 0);
        char name[64];
        snprintf(name, sizeof name, "random %d (n=%d, cap %zu slots)", c, n, cap);
        check_pack(name, m, n, cap);
        free(m);
    }
    return tu_finish();
}
