/*
 * sw_inter_avx512.c - the inter-sequence passes with AVX-512BW vectors: 64
 * targets in 8-bit lanes, 32 in 16-bit lanes (the loops are in
 * sw_inter_impl.h, the rest in sw_inter.c).  On CPUs whose 512-bit integer
 * operations issue on two ports where the 256-bit saturating ones issue on
 * two as well (Intel's), this doubles the cells a cycle.
 */
#include "sw_inter.h"

#include <immintrin.h>
#include <string.h>

#define SWI_FN __attribute__((target("avx512f,avx512bw,avx2")))
#define SWI_W 512
#define SWI_BITS 8
#include "sw_inter_impl.h"
#undef SWI_BITS
#define SWI_BITS 16
#include "sw_inter_impl.h"
