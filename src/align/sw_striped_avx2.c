/*
 * sw_striped_avx2.c - the striped engines with AVX2 vectors, 16 and 32 bits
 * (the algorithm is in sw_striped_impl.h).
 */
#include "align_internal.h"

#define SW_ISA_SUFFIX avx2
#define SW_ISA_AVX2 1

static int supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

#define SW_BITS 16
#include "sw_striped_impl.h"
#undef SW_BITS
#define SW_BITS 32
#include "sw_striped_impl.h"

const sw_engine hay_sw_striped16_avx2 = {
    "striped16_avx2", 16, supported, sw_profile16_avx2, sw_profile_free16_avx2,
    sw_score16_avx2
};

const sw_engine hay_sw_striped32_avx2 = {
    "striped32_avx2", 32, supported, sw_profile32_avx2, sw_profile_free32_avx2,
    sw_score32_avx2
};
