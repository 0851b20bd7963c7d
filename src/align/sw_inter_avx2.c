/*
 * sw_inter_avx2.c - the inter-sequence passes with AVX2 vectors: 32 targets
 * in 8-bit lanes, 16 in 16-bit lanes (the loops are in sw_inter_impl.h,
 * the rest in sw_inter.c).
 */
#include "sw_inter.h"

#include <immintrin.h>
#include <string.h>

#define SWI_FN __attribute__((target("avx2")))
#define SWI_W 256
#define SWI_BITS 8
#include "sw_inter_impl.h"
#undef SWI_BITS
#define SWI_BITS 16
#include "sw_inter_impl.h"
