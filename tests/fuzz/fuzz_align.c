/*
 * fuzz_align.c - differential fuzzing of the aligner: the first bytes pick
 * a scoring and gap penalties, the rest is split into a query and a target
 * (bytes taken modulo the alphabet).  Every variant must give the scalar
 * reference's score and end cell, and the traceback (full matrix and
 * linear space) must rescore to that score; otherwise abort.
 */
#include "align_diff.h"

static const char *const matrices[] = { "blosum62", "pam30", "blosum45" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    int32_t open = 1 + data[1] % 16, ext = data[2] % 16;
    if (ext > open)
        ext = open;
    hay_align_scoring *s = NULL;
    if (data[0] % 4 == 3)
        hay_align_scoring_dna(1 + data[3] % 5, -(int32_t)(data[3] / 5 % 6), open,
                              ext, &s);
    else
        hay_align_scoring_builtin(matrices[data[0] % 4], open, ext, &s);
    if (!s)
        return 0;
    size_t split = data[4] % (size - 5 + 1);
    size_t m = split, n = size - 5 - split;
    if (m == 0 || n == 0 || m > 2000 || n > 2000) {
        hay_align_scoring_free(s);
        return 0;
    }
    align_diff_bytes(s, data + 5, m, data + 5 + m, n);
    hay_align_scoring_free(s);
    return 0;
}
