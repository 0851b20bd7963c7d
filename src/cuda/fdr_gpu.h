/*
 * fdr_gpu.h - the tables of the CUDA engine fdr-gpu (fdr_gpu.cu), a
 * filter-first literal engine after the idea of Hyperscan's FDR (the CPU
 * form is src/cpu/fdr.c; this one is laid out for a GPU thread that owns a
 * contiguous run of input read with 16-byte loads).
 *
 * Literals of 3 bytes and more ("long") go through a shift-or filter over
 * hashed 3-byte windows in 8 buckets.  Each bucket has a prefix length P
 * (min(len, 6) of its literals, 3..6).  The window key of input position i
 * is a hash of y[i-2] | y[i-1] << 8 | y[i] << 16 (fdr_gpu_key: `domain`
 * bits).  Table word T[k] (32 bits), bit 8p + b, is 0 when a literal of
 * bucket b has a window of key k ending p bytes before the end of its
 * prefix (p = 0 .. P - 3: the P - 2 windows inside the prefix), and for
 * every p > P - 3 (no window there).  A thread keeps S = (S >> 8) |
 * T[key(i)] per byte: bit b of S's low byte is 0 when every window of a
 * bucket-b prefix ending at i agrees.  Bytes before a thread's run are fed
 * first (a warm-up of 4), so runs need no carry between threads.  Measured
 * on the host (8 MB of the text files), 3-byte windows in one table of 16K
 * keys filter et-open's 30,000 literals (0.12 candidates a byte) about as
 * well as 2-byte windows with 64-bit words (8 lags, prefixes up to 8) did in
 * eight groups of 2K keys, each group a pass over the input.
 *
 * A candidate (end i, bucket b) is verified: the P bytes ending at i
 * (folded when caseless) are first looked up in a bitmap of the long
 * literals' prefixes (fdr_gpu_pbit; in shared memory: on the host, 3 in 4
 * of et-open's filter hits have no literal with that prefix), then hash
 * with P (fdr_gpu_slot) to a slot of a table of literal records held in
 * global memory (small enough to stay in L2); each record of that slot
 * with the same group, bucket and prefix is compared in full.  Every
 * literal has one record per id, so duplicates report each id and a match
 * is found exactly once (by its prefix end).
 *
 * Literals of 1 and 2 bytes ("short") skip the filter: a 2-bit code per
 * two-byte key y[i-1] | y[i] << 8 (16 KiB, in shared memory) counts those
 * that end there (a 1-byte literal counts under all 256 keys of its byte),
 * or is SHORT_SLOW when more than 2 do; 0: none.  A count needs nothing
 * else; lists, counts per pattern and slow codes read the key's entries
 * (id, length): inline in short_pair where a key has one or two (one
 * 8-byte read), else its list.
 *
 * Sets with more long literals than `group_max` are split into groups of
 * literals with neighbouring prefixes, each with its own filter table; the
 * input is read once per group (short literals ride with group 0).
 *
 * Plain C, included from C and from .cu files.
 */
#ifndef HAY_CUDA_FDR_GPU_H
#define HAY_CUDA_FDR_GPU_H

#include "cuda_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define FDR_HD __host__ __device__ __forceinline__
#else
#define FDR_HD static inline
#endif

#define HAY_FDR_GPU_BUCKETS 8
/* Filter windows, and the long literals' least and the prefixes' greatest
 * lengths (4 lags of 8 buckets in a 32-bit word). */
#define HAY_FDR_GPU_WINDOW 3
#define HAY_FDR_GPU_LMIN 3
#define HAY_FDR_GPU_PMAX 6
/* Two-byte keys of the short codes, and the bytes of their 2-bit codes. */
#define HAY_FDR_GPU_SHORT_KEYS 65536
#define HAY_FDR_GPU_SHORT_BYTES (HAY_FDR_GPU_SHORT_KEYS / 4)
/* The short code that sends its key to the entry lists. */
#define HAY_FDR_GPU_SHORT_SLOW 3
/* Where the kernel keeps what it learns of byte j (0..15) of a 16-byte
 * word (its candidate bit, its short code): bit FDR_POS(j), byte j & 3 of
 * the word's four 32-bit parts next to each other (filter states gathered
 * with one shift a part). */
#define FDR_POS(j) (8 * ((j) & 3) + 2 * ((j) >> 2))

/* A long literal (one per id). */
typedef struct hay_fdr_gpu_lit {
    uint64_t val;        /* first plen bytes, folded, little-endian */
    uint32_t off;        /* its folded bytes in hay_fdr_gpu_tables.bytes */
    uint32_t len;
    uint32_t id;
    uint8_t plen;        /* its bucket's prefix length */
    uint8_t bucket;
    uint16_t group;
} hay_fdr_gpu_lit;

/* A short entry: id | (len - 1) << 20. */
#define FDR_SHORT_ID(e) ((e) & 0xfffffu)
#define FDR_SHORT_LEN(e) ((((e) >> 20) & 3u) + 1)
/* hay_fdr_gpu_tables.short_pair: no entry; more than two (the lists). */
#define FDR_SHORT_NONE 0xffffffffu
#define FDR_SHORT_MANY (~(uint64_t)0)

typedef struct hay_fdr_gpu_tables {
    uint32_t domain;       /* filter key bits */
    uint32_t hash_bits;    /* verification slots: 1 << hash_bits */
    uint32_t pbits;        /* prefix bitmap: 1 << pbits bits (0: no long literals) */
    uint32_t groups;       /* filter tables (at least 1) */
    int caseless;
    size_t nshort_ent, nlong, nbytes;
    uint8_t *plen;         /* groups * 8: each bucket's prefix length (0: empty) */
    uint32_t *table;       /* groups << domain */
    uint8_t *short_code;   /* HAY_FDR_GPU_SHORT_BYTES (fdr_gpu_short_code), or NULL:
                            * no short literals */
    uint32_t *short_first; /* 65537 */
    uint32_t *short_ent;   /* nshort_ent */
    uint64_t *short_pair;  /* 65536: a key's entries inline where it has at most
                            * 2 (the second in the high half, FDR_SHORT_NONE:
                            * none), FDR_SHORT_MANY where it has more */
    uint32_t *slot_first;  /* (1 << hash_bits) + 1 */
    uint32_t *pmap;        /* (1 << pbits) / 32, or NULL */
    hay_fdr_gpu_lit *lits; /* nlong, by slot */
    uint8_t *bytes;        /* nbytes + 8 (zeros): the long literals, folded */
} hay_fdr_gpu_tables;

/* The filter key of a window, x = its 3 bytes in order from bit 0 (bits
 * 24-31 are ignored): `domain` bits.  One multiply: the kernel reads x
 * straight out of its input words. */
FDR_HD uint32_t fdr_gpu_key(uint32_t x, uint32_t domain)
{
    return (x * (2654435761u << 8)) >> (32 - domain);
}

/* The short code of key k (0: no short literal ends with it). */
FDR_HD uint32_t fdr_gpu_short_code(const uint8_t *codes, uint32_t k)
{
    return (codes[k >> 2] >> (2 * (k & 3))) & 3u;
}

/* The verification slot of a prefix (val, plen). */
FDR_HD uint32_t fdr_gpu_slot(uint64_t val, uint32_t plen, uint32_t hash_bits)
{
    uint64_t h = (val ^ ((uint64_t)plen << 59)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> (64 - hash_bits));
}

/* The bit of a prefix (val, plen) in the prefix bitmap. */
FDR_HD uint32_t fdr_gpu_pbit(uint64_t val, uint32_t plen, uint32_t pbits)
{
    uint64_t h = (val ^ ((uint64_t)plen << 59)) * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> (64 - pbits));
}

/*
 * Builds the tables of p (host memory, owned by *t; hay_fdr_gpu_tables_free
 * releases them, also after a failure).  domain: 10..15 filter key bits;
 * group_max: long literals per filter table.  Returns 0, NOMEM, or
 * UNSUPPORTED when the literals' bytes pass 4 GiB.
 */
int hay_fdr_gpu_build(const hay_cuda_patterns *p, uint32_t domain, uint32_t group_max,
                      hay_fdr_gpu_tables *t);
void hay_fdr_gpu_tables_free(hay_fdr_gpu_tables *t);

/*
 * Backend cuda's choice for a multi-literal set when no --algo is given:
 * 1 when fdr-gpu is expected to beat PFAC (measured: docs/PERF.md), with a
 * one-line reason in *why (a static string) either way.
 */
int hay_fdr_gpu_preferred(size_t n, size_t min_len, const char **why);

#ifdef __cplusplus
}
#endif

#endif
