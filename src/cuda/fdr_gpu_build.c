/*
 * fdr_gpu_build.c - the host side of the CUDA engine fdr-gpu: its tables
 * (fdr_gpu.h explains them) and backend cuda's choice between it and PFAC.
 * Built with the CUDA backend only; the kernels are in fdr_gpu.cu.
 */
#include "../core/internal.h"
#include "fdr_gpu.h"

#include <stdlib.h>
#include <string.h>

/* A long literal while the tables are made. */
typedef struct lit_sort {
    uint64_t key;      /* first 8 bytes, folded, big-endian: sorts as memcmp */
    uint32_t idx;      /* pattern id */
    uint32_t plen;
    uint32_t bucket;
} lit_sort;

static int by_key(const void *a, const void *b)
{
    const lit_sort *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_plen_key(const void *a, const void *b)
{
    const lit_sort *x = a, *y = b;
    if (x->plen != y->plen)
        return x->plen < y->plen ? -1 : 1;
    return by_key(a, b);
}

void hay_fdr_gpu_tables_free(hay_fdr_gpu_tables *t)
{
    free(t->plen);
    free(t->table);
    free(t->short_code);
    free(t->short_first);
    free(t->short_ent);
    free(t->short_pair);
    free(t->slot_first);
    free(t->pmap);
    free(t->lits);
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

static uint8_t fold_of(const hay_cuda_patterns *p, uint8_t c)
{
    return p->caseless ? hay_fold(c) : c;
}

/* The short tables: code and entry list per two-byte key. */
static int build_short(const hay_cuda_patterns *p, hay_fdr_gpu_tables *t)
{
    size_t nent = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->len[i] < HAY_FDR_GPU_LMIN)
            nent += p->len[i] == 1 ? 256 : 1;
    if (!nent)
        return HAY_OK;
    t->short_code = calloc(HAY_FDR_GPU_SHORT_BYTES, 1);
    t->short_first = calloc(HAY_FDR_GPU_SHORT_KEYS + 1, sizeof *t->short_first);
    t->short_ent = malloc(nent * sizeof *t->short_ent);
    if (!t->short_code || !t->short_first || !t->short_ent)
        return HAY_ERR_NOMEM;
    t->nshort_ent = nent;
    /* Two passes: count per key, then place (ids increasing per key). */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < p->n; i++) {
            size_t len = p->len[i];
            if (len >= HAY_FDR_GPU_LMIN)
                continue;
            const uint8_t *s = p->bytes + p->off[i];
            uint32_t last = fold_of(p, s[len - 1]);
            uint32_t e = (uint32_t)i | (uint32_t)(len - 1) << 20;
            for (uint32_t a = 0; a < 256; a++) {
                uint32_t prev = len == 1 ? a : fold_of(p, s[len - 2]);
                uint32_t k = prev | last << 8;
                if (pass == 1) {
                    t->short_ent[t->short_first[k]++] = e;
                } else {
                    uint32_t c = fdr_gpu_short_code(t->short_code, k);
                    c = c + 1 >= HAY_FDR_GPU_SHORT_SLOW ? HAY_FDR_GPU_SHORT_SLOW : c + 1;
                    unsigned sh = 2 * (k & 3);
                    t->short_code[k >> 2] =
                        (uint8_t)((t->short_code[k >> 2] & ~(3u << sh)) | c << sh);
                    t->short_first[k + 1]++;
                }
                if (len > 1)
                    break;
            }
        }
        if (pass == 0)
            for (uint32_t k = 0; k < HAY_FDR_GPU_SHORT_KEYS; k++)
                t->short_first[k + 1] += t->short_first[k];
    }
    /* The second pass advanced each start to the next key's start. */
    memmove(t->short_first + 1, t->short_first,
            HAY_FDR_GPU_SHORT_KEYS * sizeof *t->short_first);
    t->short_first[0] = 0;
    t->short_pair = malloc(HAY_FDR_GPU_SHORT_KEYS * sizeof *t->short_pair);
    if (!t->short_pair)
        return HAY_ERR_NOMEM;
    for (uint32_t k = 0; k < HAY_FDR_GPU_SHORT_KEYS; k++) {
        uint32_t i = t->short_first[k], n = t->short_first[k + 1] - i;
        uint64_t lo = n >= 1 ? t->short_ent[i] : FDR_SHORT_NONE;
        uint64_t hi = n >= 2 ? t->short_ent[i + 1] : FDR_SHORT_NONE;
        t->short_pair[k] = n > 2 ? FDR_SHORT_MANY : lo | hi << 32;
    }
    return HAY_OK;
}

/* Splits the literals of one group (ls[0, n), sorted by key) among the 8
 * buckets by prefix length: each length present gets a bucket, the spare
 * ones go to the lengths with the most literals per bucket; a length's
 * literals fill its buckets in key order (neighbouring prefixes share a
 * bucket, so a bucket's windows repeat). */
static void assign_buckets(lit_sort *ls, size_t n, uint8_t *plen)
{
    qsort(ls, n, sizeof *ls, by_plen_key);
    size_t cnt[9] = { 0 };
    unsigned nb[9] = { 0 }, used = 0;
    for (size_t i = 0; i < n; i++)
        cnt[ls[i].plen]++;
    for (unsigned l = HAY_FDR_GPU_LMIN; l <= HAY_FDR_GPU_PMAX; l++)
        if (cnt[l]) {
            nb[l] = 1;
            used++;
        }
    while (used && used < HAY_FDR_GPU_BUCKETS) {
        unsigned best = 0;
        for (unsigned l = HAY_FDR_GPU_LMIN; l <= HAY_FDR_GPU_PMAX; l++)
            if (nb[l] && (!best || cnt[l] * nb[best] > cnt[best] * nb[l]))
                best = l;
        nb[best]++;
        used++;
    }
    unsigned b0 = 0;
    size_t i = 0;
    for (unsigned l = HAY_FDR_GPU_LMIN; l <= HAY_FDR_GPU_PMAX; l++) {
        for (unsigned k = 0; k < nb[l]; k++)
            plen[b0 + k] = (uint8_t)l;
        for (size_t j = 0; j < cnt[l]; j++, i++)
            ls[i].bucket = b0 + (unsigned)(j * nb[l] / cnt[l]);
        b0 += nb[l];
    }
}

/* The filter table of one group: 1 bits everywhere, then each literal's
 * windows and each used bucket's lags past its prefix cleared. */
static void fill_table(const hay_cuda_patterns *p, const lit_sort *ls, size_t n,
                       const uint8_t *plen, uint32_t domain, uint32_t *tab)
{
    const uint32_t w = HAY_FDR_GPU_WINDOW, lags = HAY_FDR_GPU_PMAX - w + 1;
    size_t words = (size_t)1 << domain;
    uint32_t dont_care = 0;
    for (unsigned b = 0; b < HAY_FDR_GPU_BUCKETS; b++)
        for (unsigned q = plen[b] ? plen[b] - w + 1 : lags; q < lags; q++)
            dont_care |= 1u << (8 * q + b);
    for (size_t k = 0; k < words; k++)
        tab[k] = ~dont_care;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = p->bytes + p->off[ls[i].idx];
        uint32_t pl = plen[ls[i].bucket];
        for (uint32_t j = w - 1; j < pl; j++) {
            uint32_t x = 0;
            for (uint32_t q = 0; q < w; q++)
                x |= (uint32_t)fold_of(p, s[j + 1 - w + q]) << (8 * q);
            tab[fdr_gpu_key(x, domain)] &= ~(1u << (8 * (pl - 1 - j) + ls[i].bucket));
        }
    }
}

int hay_fdr_gpu_build(const hay_cuda_patterns *p, uint32_t domain, uint32_t group_max,
                      hay_fdr_gpu_tables *t)
{
    memset(t, 0, sizeof *t);
    t->domain = domain;
    t->caseless = p->caseless;
    int s = build_short(p, t);
    if (s < 0)
        return s;
    size_t nlong = 0, nbytes = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->len[i] >= HAY_FDR_GPU_LMIN) {
            nlong++;
            nbytes += p->len[i];
        }
    if (nbytes > UINT32_MAX)
        return HAY_ERR_UNSUPPORTED;
    size_t groups = nlong ? (nlong + group_max - 1) / group_max : 1;
    uint32_t hb = 4;
    while (hb < 24 && ((size_t)1 << hb) < 2 * nlong)
        hb++;
    /* The prefix bitmap: about 1 bit in 8 set, 1 KiB to 16 KiB. */
    uint32_t pb = 13;
    while (pb < 17 && ((size_t)1 << pb) < 8 * nlong)
        pb++;
    t->groups = (uint32_t)groups;
    t->hash_bits = hb;
    t->pbits = nlong ? pb : 0;
    t->nlong = nlong;
    t->nbytes = nbytes;
    lit_sort *ls = malloc((nlong ? nlong : 1) * sizeof *ls);
    hay_fdr_gpu_lit *tmp = malloc((nlong ? nlong : 1) * sizeof *tmp);
    t->plen = calloc(groups * HAY_FDR_GPU_BUCKETS, 1);
    t->table = malloc((groups << domain) * sizeof *t->table);
    t->slot_first = calloc(((size_t)1 << hb) + 1, sizeof *t->slot_first);
    t->pmap = nlong ? calloc(((size_t)1 << pb) / 32, sizeof *t->pmap) : NULL;
    t->lits = malloc((nlong ? nlong : 1) * sizeof *t->lits);
    t->bytes = calloc(nbytes + 8, 1);   /* read in whole 8-byte words */
    s = HAY_ERR_NOMEM;
    if (!ls || !tmp || !t->plen || !t->table || !t->slot_first || !t->lits ||
        !t->bytes || (nlong && !t->pmap))
        goto done;
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        size_t len = p->len[i];
        if (len < HAY_FDR_GPU_LMIN)
            continue;
        const uint8_t *b = p->bytes + p->off[i];
        uint64_t key = 0;
        for (size_t j = 0; j < 8; j++)
            key = key << 8 | (j < len ? fold_of(p, b[j]) : 0);
        ls[k].key = key;
        ls[k].idx = (uint32_t)i;
        ls[k].plen = len < HAY_FDR_GPU_PMAX ? (uint32_t)len : HAY_FDR_GPU_PMAX;
        ls[k].bucket = 0;
        k++;
    }
    qsort(ls, nlong, sizeof *ls, by_key);
    /* Groups: neighbouring prefixes together; each group's buckets and
     * table; the records in a scratch array, then placed by slot. */
    uint32_t off = 0;
    for (size_t g = 0; g < groups; g++) {
        size_t lo = g * nlong / groups, hi = (g + 1) * nlong / groups;
        uint8_t *pl = t->plen + g * HAY_FDR_GPU_BUCKETS;
        assign_buckets(ls + lo, hi - lo, pl);
        fill_table(p, ls + lo, hi - lo, pl, domain, t->table + (g << domain));
        for (size_t i = lo; i < hi; i++) {
            uint32_t id = ls[i].idx;
            const uint8_t *b = p->bytes + p->off[id];
            hay_fdr_gpu_lit *r = &tmp[i];
            r->len = (uint32_t)p->len[id];
            r->id = id;
            r->bucket = (uint8_t)ls[i].bucket;
            r->plen = pl[ls[i].bucket];
            r->group = (uint16_t)g;
            r->off = off;
            for (uint32_t j = 0; j < r->len; j++)
                t->bytes[off + j] = fold_of(p, b[j]);
            off += r->len;
            r->val = 0;
            for (uint32_t j = 0; j < r->plen; j++)
                r->val |= (uint64_t)t->bytes[r->off + j] << (8 * j);
        }
    }
    for (size_t i = 0; i < nlong; i++) {
        t->slot_first[fdr_gpu_slot(tmp[i].val, tmp[i].plen, hb) + 1]++;
        uint32_t bit = fdr_gpu_pbit(tmp[i].val, tmp[i].plen, pb);
        t->pmap[bit >> 5] |= 1u << (bit & 31);
    }
    for (size_t j = 0; j < ((size_t)1 << hb); j++)
        t->slot_first[j + 1] += t->slot_first[j];
    for (size_t i = 0; i < nlong; i++)
        t->lits[t->slot_first[fdr_gpu_slot(tmp[i].val, tmp[i].plen, hb)]++] = tmp[i];
    memmove(t->slot_first + 1, t->slot_first, ((size_t)1 << hb) * sizeof *t->slot_first);
    t->slot_first[0] = 0;
    s = HAY_OK;
done:
    free(ls);
    free(tmp);
    return s;
}

/*
 * The choice against PFAC.  Measured on the H100 (docs/PERF.md "Literal
 * sets: fdr-gpu against PFAC"), 1 GiB resident, kernel only, fdr-gpu
 * against PFAC: snort-community (4,550 literals) 622 against 153 GB/s,
 * et-open (30,528) 289 against 118, the first 100, 300 and 1,000 literals
 * of each 3 to 5 times PFAC's rate; english-words (123,115: four filter
 * groups, and most 3-byte windows of English text hit) 60 against 81.  So
 * fdr-gpu takes the sets from FDR_MIN literals (the smallest measured) to
 * one filter table (group_max's default); PFAC the others (below 100 not
 * measured).
 */
#define FDR_MIN 100
#define FDR_MAX 32768

int hay_fdr_gpu_preferred(size_t n, size_t min_len, const char **why)
{
    (void)min_len;
    if (n >= FDR_MIN && n <= FDR_MAX) {
        *why = "CUDA: fdr-gpu, the filter-first engine (measured faster than PFAC for "
               "100 to 32,768 literals)";
        return 1;
    }
    *why = n > FDR_MAX ? "CUDA: PFAC over all start positions (fdr-gpu measured slower "
                         "past 32,768 literals)"
                       : "CUDA: PFAC over all start positions (fdr-gpu not measured "
                         "below 100 literals)";
    return 0;
}
