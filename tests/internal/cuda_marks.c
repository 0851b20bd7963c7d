/*
 * cuda_marks.c - the host side of the CUDA marks (src/cuda/marks.h),
 * without a device: random bitmaps of match ends cut into pieces at random
 * boundaries (multiples of 64, of 32, and anywhere: the piece starts a
 * chunk size, a look-back or an overflow's cut can give), each piece as
 * the 32-bit words a kernel makes (bit i for the piece's byte i), put into
 * a caller's bitmap that was not zeroed (every word holds a sentinel) in
 * piece order: the result is the bitmap, and the word past the input's
 * last is never written.  Lengths 1..300
 * and up to 20,000 bytes, sparse and dense bitmaps.
 */
#include "testutil.h"

#include "../../src/cuda/marks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xa5a5a5a5a5a5a5a5ull

static bool bit(const uint64_t *m, uint64_t i)
{
    return m[i / 64] >> (i % 64) & 1;
}

/* A piece's words as the kernel leaves them: bytes [gs, ge). */
static uint32_t *piece_words(const uint64_t *want, uint64_t gs, uint64_t ge)
{
    uint64_t n32 = (ge - gs + 31) / 32;
    uint32_t *w = calloc(n32 + 1, sizeof *w);
    for (uint64_t i = gs; i < ge; i++)
        if (bit(want, i))
            w[(i - gs) / 32] |= 1u << ((i - gs) % 32);
    return w;
}

static void one(tu_rng *rng, uint64_t len, unsigned density, unsigned align)
{
    size_t nw = (size_t)((len + 63) / 64);
    uint64_t *want = calloc(nw + 1, sizeof *want);
    uint64_t *got = malloc((nw + 1) * sizeof *got);
    for (size_t i = 0; i <= nw; i++)   /* not zeroed: every word is written */
        got[i] = SENTINEL;
    for (uint64_t i = 0; i < len; i++)
        if (tu_below(rng, 100) < density)
            want[i / 64] |= 1ull << (i % 64);
    uint64_t pieces = 0;
    for (uint64_t gs = 0; gs < len; pieces++) {
        uint64_t step = tu_range(rng, 1, 700);
        if (align)
            step = (step + align - 1) / align * align;
        uint64_t ge = len - gs > step ? gs + step : len;
        uint32_t *w = piece_words(want, gs, ge);
        hay_cuda_put_marks(got, gs, w, ge - gs);
        free(w);
        gs = ge;
    }
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < nw && bad == SIZE_MAX; i++)
        if (got[i] != want[i])
            bad = i;
    CHECK(bad == SIZE_MAX, "len %" PRIu64 ", density %u%%, pieces aligned to %u (%" PRIu64
          " pieces): word %zu is %016" PRIx64 ", want %016" PRIx64, len, density, align,
          pieces, bad, bad == SIZE_MAX ? 0 : got[bad], bad == SIZE_MAX ? 0 : want[bad]);
    CHECK(got[nw] == SENTINEL, "len %" PRIu64 ": the word past the end was written", len);
    free(want);
    free(got);
}

int main(void)
{
    tu_rng rng = { 0x6d61726b ^ 17 };
    static const unsigned aligns[] = { 0, 1, 32, 64 };
    static const unsigned densities[] = { 1, 30, 100 };
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++)
        for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
            for (uint64_t len = 1; len <= 300; len++)
                one(&rng, len, densities[d], aligns[a]);
            for (int k = 0; k < 20; k++)
                one(&rng, tu_range(&rng, 1000, 20000), densities[d], aligns[a]);
        }
    return tu_finish();
}
