/*
 * fdr_int.h - what the fdr engine's scan (fdr.c) and its build
 * (fdr_build.c) share: the state, the window keys and the literal hash.
 * fdr.c's head comment describes the filter.
 */
#ifndef HAY_FDR_INT_H
#define HAY_FDR_INT_H

#include "../core/internal.h"
#include "fdr.h"

#define SHORT 8            /* the bucket of the short literals */
#define MAX_FLEN 10        /* the longest filter prefix: 8 + width - 1 */

typedef struct fdr_lit {   /* one distinct literal (after folding) */
    uint64_t val;          /* first min(8, len) bytes, folded when caseless */
    uint64_t val2;         /* bytes 8 .. min(16, len) - 1, folded; 0 past them */
    const uint8_t *pat;
    uint32_t len, plen;    /* plen: the bytes hashed (min(8, len)) */
    uint32_t flen;         /* the filter's prefix: min(len, 8 + width - 1); 0: short */
    uint32_t bucket;       /* its filter bucket; SHORT for 1 and 2 bytes */
    uint32_t ids, nids;    /* its ids: id_list[ids .. ids + nids) */
} fdr_lit;

typedef struct fdr_state {
    uint64_t *table;         /* 1 << domain words */
    uint32_t domain, stride, width;   /* width: window bytes, 2 or 3;
                                         domain 12, 14 or 16 with 3 */
    uint8_t flen[8];         /* filter prefix length of each bucket (0: unused) */
    bool caseless, has_short;
    size_t min_len, max_len, max_flen, min_long;
    uint32_t nlits, hash_bits;
    fdr_lit *lits;           /* by hash slot */
    uint32_t *slot_first;    /* (1 << hash_bits) + 1 */
    uint8_t *prefix_bits;    /* bit h: some literal's first bytes have the hash
                                h of hash_bits + 3 bits (1 << hash_bits bytes) */
    uint32_t bloom_len;      /* those bytes: min(16, the shortest literal of
                                8+ bytes), 8 when that is 8 */
    uint32_t *id_list;
    uint32_t *lengths, nlengths;   /* distinct lengths, increasing */
    uint8_t short_last[256]; /* some short literal ends with this byte */
    uint8_t one[32];         /* bit c: a 1-byte literal c */
    uint8_t *two;            /* bit (a << 8 | b): a 2-byte literal ab */
} fdr_state;

/* The key of the window (prev, cur): prev and the low domain - 8 bits of
 * cur, which for ASCII letters are the letter (a 16-bit load and a mask). */
static inline uint32_t window_key(uint8_t prev, uint8_t cur, uint32_t domain)
{
    return ((uint32_t)prev | (uint32_t)cur << 8) & ((1u << domain) - 1);
}

/* The key of the three-byte window (a, b, c): a multiplicative hash of the
 * 24 bits into domain bits.  abc may carry a fourth byte in bits 24-31: it
 * falls out of the product without an AND (the multiplier's low byte is 0,
 * so bits 24-31 of abc only reach bits 32 and up), and the scan's 4-byte
 * load folds into the multiplication (+14% with the constant shift on
 * one thread on the GPU host's Xeon; docs/notes/2026-11-26-cpu-sets.md). */
static inline uint32_t window3_key(uint32_t abc, uint32_t domain)
{
    return (abc * 0x3779b100u) >> (32 - domain);
}

static inline uint32_t lit_hash(uint64_t val, uint32_t plen, uint32_t bits)
{
    return (uint32_t)(((val ^ plen) * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* The key in prefix_bits of a literal's first bytes: the prefix val (plen
 * bytes) and, when plen is 8, bytes 8 .. bloom_len - 1 in w2 (else 0). */
static inline uint32_t bloom_hash(uint64_t val, uint64_t w2, uint32_t plen,
                                  uint32_t bits)
{
    return lit_hash(val ^ (w2 * 0xff51afd7ed558ccdull), plen, bits);
}

/* The low k bytes of a word (k <= 8). */
static inline uint64_t low_bytes(uint32_t k)
{
    return k >= 8 ? ~0ull : (1ull << (8 * k)) - 1;
}

/* Builds the state of set with windows of width bytes (0: chosen for
 * the set; fdr's build). */
hay_status hay_fdr_build_width(hay_patterns *set, void **state, uint32_t width);
void hay_fdr_destroy(const hay_patterns *set, void *state);

#endif
