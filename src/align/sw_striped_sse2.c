/*
 * sw_striped_sse2.c - the striped engines with SSE2 vectors, 16 and 32 bits
 * (the algorithm is in sw_striped_impl.h).
 */
#include "align_internal.h"

#define SW_ISA_SUFFIX sse2

static int supported(void)
{
    return 1;     /* SSE2 is part of x86-64 */
}

#define SW_BITS 16
#include "sw_striped_impl.h"
#undef SW_BITS
#define SW_BITS 32
#include "sw_striped_impl.h"

const sw_engine hay_sw_striped16_sse2 = {
    "striped16_sse2", 16, supported, sw_profile16_sse2, sw_profile_free16_sse2,
    sw_score16_sse2
};

const sw_engine hay_sw_striped32_sse2 = {
    "striped32_sse2", 32, supported, sw_profile32_sse2, sw_profile_free32_sse2,
    sw_score32_sse2
};
