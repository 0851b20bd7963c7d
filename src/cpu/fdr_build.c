/*
 * fdr_build.c - the fdr engine's tables (fdr.c's head comment describes
 * them): the distinct literals in byte order, their buckets, the window
 * width, domain and stride, the filter table and the literals' hash.
 */
#include "fdr_int.h"

typedef struct sort_item {
    const uint8_t *f;        /* folded bytes */
    uint32_t len, id;
} sort_item;

static int by_bytes(const sort_item *a, const sort_item *b)
{
    uint32_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->f, b->f, m);
    if (c)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Heapsort by by_bytes: in place, so that compiling calls no malloc of its
 * own (qsort may; the allocator contract of haystack.h forbids it). */
static void sift(sort_item *it, size_t root, size_t n)
{
    for (size_t c; (c = 2 * root + 1) < n; root = c) {
        if (c + 1 < n && by_bytes(&it[c], &it[c + 1]) < 0)
            c++;
        if (by_bytes(&it[root], &it[c]) >= 0)
            return;
        sort_item t = it[root];
        it[root] = it[c];
        it[c] = t;
    }
}

static void sort_items(sort_item *it, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift(it, i, n);
    for (size_t end = n; end > 1; end--) {
        sort_item t = it[0];
        it[0] = it[end - 1];
        it[end - 1] = t;
        sift(it, 0, end - 1);
    }
}

/* The cases of byte c: 1 or 2 (ASCII letters of a caseless set). */
static int variants(const fdr_state *st, uint8_t c, uint8_t out[2])
{
    out[0] = c;
    if (!st->caseless || !hay_is_alpha(c))
        return 1;
    out[0] = (uint8_t)(c | 0x20);
    out[1] = (uint8_t)(c & ~0x20);
    return 2;
}

static void set_bit(uint8_t *bits, uint32_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }

/* Clears bit `clear` in the keys of every window of width bytes ending at
 * byte r of pat (its cases; any byte for the one before pat, r = width - 2). */
static void clear_window(fdr_state *st, const uint8_t *pat, uint32_t r,
                         uint64_t clear)
{
    const uint32_t w = st->width, d = st->domain;
    uint8_t vals[3][256];
    int nv[3] = { 1, 1, 1 };
    for (uint32_t k = 0; k < w; k++) {
        if (r + k + 1 < w) {       /* before the literal */
            for (int c = 0; c < 256; c++)
                vals[k][c] = (uint8_t)c;
            nv[k] = 256;
        } else {
            nv[k] = variants(st, pat[r + k + 1 - w], vals[k]);
        }
    }
    for (int a = 0; a < nv[0]; a++)
        for (int b = 0; b < nv[1]; b++) {
            if (w == 2) {
                st->table[window_key(vals[0][a], vals[1][b], d)] &= clear;
                continue;
            }
            for (int c = 0; c < nv[2]; c++) {
                uint32_t abc = (uint32_t)vals[0][a] | (uint32_t)vals[1][b] << 8 |
                               (uint32_t)vals[2][c] << 16;
                st->table[window3_key(abc, d)] &= clear;
            }
        }
}

/* Marks literal l in the filter table of its bucket, or in the short tables. */
static void add_to_filter(fdr_state *st, const fdr_lit *l)
{
    const uint32_t b = l->bucket;
    uint8_t cv[2], pv[2];
    const uint8_t *pat = l->pat;
    if (l->len <= 2) {
        int nc = variants(st, pat[l->len - 1], cv);
        for (int i = 0; i < nc; i++) {
            st->short_last[cv[i]] = 1;
            if (l->len == 1)
                set_bit(st->one, cv[i]);
            else
                for (int k = 0, np = variants(st, pat[0], pv); k < np; k++)
                    set_bit(st->two, (uint32_t)pv[k] << 8 | cv[i]);
        }
        return;
    }
    /* The window ending at byte r of the prefix is p = flen - 1 - r bytes
     * before its end; one reaching a byte before the literal matches any
     * byte there; with 3-byte windows the one reaching two is left out
     * (the table's initial value lets it pass). */
    const uint32_t w = st->width;
    for (uint32_t r = w - 2; r < l->flen; r++) {
        uint32_t p = l->flen - 1 - r;
        if (p < 8)
            clear_window(st, pat, r, ~(1ull << (8 * p + b)));
    }
}

/* Buckets: each filter prefix length 3 .. 8 + width - 1 present gets one
 * (8 lengths at most), the rest go one by one to the length with most
 * literals a bucket; within a length, runs of neighbours in byte order
 * share a bucket (SHORT for short literals). */
static void assign_buckets(fdr_state *st, fdr_lit *lits, uint32_t n)
{
    uint32_t count[MAX_FLEN + 1] = { 0 }, nb[MAX_FLEN + 1] = { 0 }, used = 0;
    for (uint32_t k = 0; k < n; k++)
        if (lits[k].len > 2)
            count[lits[k].flen]++;
    for (uint32_t p = 3; p <= MAX_FLEN; p++)
        if (count[p])
            nb[p] = 1, used++;
    for (; used < 8 && used > 0; used++) {
        uint32_t best = 0;
        for (uint32_t p = 3; p <= MAX_FLEN; p++)
            if (nb[p] && (!best || count[p] * nb[best] > count[best] * nb[p]))
                best = p;
        nb[best]++;
    }
    uint32_t first[MAX_FLEN + 1] = { 0 }, seen[MAX_FLEN + 1] = { 0 };
    for (uint32_t p = 3, b = 0; p <= MAX_FLEN; p++) {
        first[p] = b;
        for (uint32_t i = 0; i < nb[p]; i++)
            st->flen[b++] = (uint8_t)p;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = lits[k].flen;
        lits[k].bucket = SHORT;
        if (lits[k].len > 2)
            lits[k].bucket = first[p] + (uint32_t)((uint64_t)seen[p]++ * nb[p] / count[p]);
    }
}

/* The window width for a set, from one-thread measurements on English
 * text (docs/notes/2026-11-26-cpu-sets.md): 2-byte windows let most
 * letter pairs through once a bucket holds a few dozen literals, so from
 * 256 literals of 6+ bytes on the windows are 3 bytes (the filter's false
 * candidates fall 3 to 8 times for a multiplication more a lookup); fewer
 * literals filter well enough on pairs, which cost less, and 3-byte
 * windows of 4- and 5-byte literals still let through too much. */
static uint32_t choose_width(uint32_t nlong, size_t min_long)
{
    return nlong >= 256 && min_long >= 6 ? 3 : 2;
}

/* Domain (key bits) and stride for a set, from the same measurements:
 * more literals want more keys (fewer false candidates, a larger table); a
 * stride of 2 halves the lookups and pays while the filter stays
 * selective (2-byte windows: up to a few hundred literals of 4+ bytes, a
 * few thousand of 8+; 3-byte windows: up to a thousand literals, or any
 * number whose windows fill the block, 10+ bytes), 4 only for a few long
 * literals; above that every window is looked up (stride 1). */
static void choose_shape(fdr_state *st, uint32_t nlong)
{
    uint32_t minf = MAX_FLEN;
    for (int b = 0; b < 8; b++)
        if (st->flen[b] && st->flen[b] < minf)
            minf = st->flen[b];
    if (st->width == 3) {
        /* 12, 14 or 16 bits: fdr.c's 3-byte loops exist for those only.
         * Caseless: a window of three letters has 8 keys, and 14 bits let
         * through 1.5-2x as many false candidates as 16 (1,000 words of 6+
         * letters 1.91 -> 2.92 GB/s, 4,303 of 10+ 1.43 -> 2.40; 400 of 15+
         * 4.76 -> 4.55, the one set measured that lost). */
        st->domain = nlong < 8192 && !st->caseless ? 14 : 16;
        st->stride = minf >= 10 || nlong <= 1024 ? 2 : 1;
        /* Every bucket's prefix 10 bytes (eight windows inside the literal)
         * and up to 2,700 literals (about 340 a bucket, 8% of 4,096 keys at
         * a window position): 12 bits, a table of 32 KiB that stays in L1
         * (14 bits: 128 KiB, in L2).  On the 2,663 words of 15+ letters
         * 4.57 against 4.10 GB/s (11 bits: 4.43); from ~2,900 literals, or
         * with 6-9 byte prefixes, the smaller table's false candidates cost
         * more than L1 saves (docs/notes/2026-11-26-cpu-sets.md).  Not
         * for caseless sets: with 8 keys a window the small table
         * saturates (0.59 against 2.53 GB/s on those words). */
        if (minf >= 10 && !st->caseless && nlong <= FDR_SMALL_DOMAIN_MAX)
            st->domain = 12;
        return;
    }
    st->domain = nlong < 1024 ? 13 : nlong < 8192 ? 14 : 16;
    if (minf >= 6 && nlong <= 16)
        st->stride = 4;
    else if ((minf >= 4 && nlong <= 300) || (minf >= 8 && nlong <= 4096))
        st->stride = 2;
    else
        st->stride = 1;
}

/* fdr's destroy (also of a half-built state). */
void hay_fdr_destroy(const hay_patterns *set, void *state)
{
    fdr_state *st = state;
    if (!st)
        return;
    const hay_allocator *a = &set->alloc;
    hay_free(a, st->table);
    hay_free(a, st->lits);
    hay_free(a, st->slot_first);
    hay_free(a, st->prefix_bits);
    hay_free(a, st->id_list);
    hay_free(a, st->lengths);
    hay_free(a, st->two);
    hay_free(a, st);
}

/* Distinct literals (after folding) in byte order, with their ids. */
static hay_status collect(hay_patterns *set, fdr_state *st, fdr_lit **out,
                          uint32_t *nout)
{
    const hay_allocator *a = &set->alloc;
    size_t n = set->n, total = n ? set->off[n - 1] + set->len[n - 1] : 0;
    uint8_t *f = hay_malloc(a, total + 1);
    sort_item *it = hay_malloc(a, n * sizeof *it);
    fdr_lit *lits = hay_calloc(a, n, sizeof *lits);
    st->id_list = hay_malloc(a, n * sizeof *st->id_list);
    if (!f || !it || !lits || !st->id_list) {
        hay_free(a, f);
        hay_free(a, it);
        hay_free(a, lits);
        return HAY_ERR_NOMEM;
    }
    for (size_t i = 0; i < total; i++)
        f[i] = st->caseless ? hay_fold(set->bytes[i]) : set->bytes[i];
    for (size_t i = 0; i < n; i++)
        it[i] = (sort_item){ f + set->off[i], (uint32_t)set->len[i], (uint32_t)i };
    sort_items(it, n);
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) {
        st->id_list[i] = it[i].id;
        if (i > 0 && it[i].len == it[i - 1].len &&
            memcmp(it[i].f, it[i - 1].f, it[i].len) == 0) {
            lits[m - 1].nids++;
            continue;
        }
        fdr_lit *l = &lits[m++];
        l->pat = hay_pat(set, it[i].id);
        l->len = it[i].len;
        l->plen = l->len < 8 ? l->len : 8;
        l->ids = (uint32_t)i;
        l->nids = 1;
        memcpy(&l->val, it[i].f, l->plen);
        if (l->len > 8)
            memcpy(&l->val2, it[i].f + 8, l->len - 8 < 8 ? l->len - 8 : 8);
    }
    hay_free(a, f);
    hay_free(a, it);
    *out = lits;
    *nout = m;
    return HAY_OK;
}

/* The hash table: st->lits by slot of (prefix, plen); the distinct lengths. */
static hay_status index_literals(const hay_allocator *a, fdr_state *st,
                                 const fdr_lit *lits, uint32_t m)
{
    st->hash_bits = 4;
    while ((1u << st->hash_bits) < 2 * m)
        st->hash_bits++;
    uint32_t slots = 1u << st->hash_bits;
    st->slot_first = hay_calloc(a, slots + 1, sizeof *st->slot_first);
    st->prefix_bits = hay_calloc(a, slots, 1);
    st->lits = hay_malloc(a, m * sizeof *st->lits);
    st->lengths = hay_malloc(a, m * sizeof *st->lengths);
    RETURN_ERROR_IF(!st->slot_first || !st->prefix_bits || !st->lits || !st->lengths,
                    HAY_ERR_NOMEM);
    st->bloom_len = 16;
    for (uint32_t k = 0; k < m; k++)
        if (lits[k].len >= 8 && lits[k].len < st->bloom_len)
            st->bloom_len = lits[k].len;
    for (uint32_t k = 0; k < m; k++) {
        uint64_t w2 = lits[k].plen == 8 ? lits[k].val2 & low_bytes(st->bloom_len - 8) : 0;
        uint32_t hb = bloom_hash(lits[k].val, w2, lits[k].plen, st->hash_bits + 3);
        st->prefix_bits[hb >> 3] |= (uint8_t)(1u << (hb & 7));
    }
    for (uint32_t k = 0; k < m; k++)
        st->slot_first[lit_hash(lits[k].val, lits[k].plen, st->hash_bits) + 1]++;
    for (uint32_t h = 0; h < slots; h++)
        st->slot_first[h + 1] += st->slot_first[h];
    for (uint32_t k = 0; k < m; k++) {
        uint32_t h = lit_hash(lits[k].val, lits[k].plen, st->hash_bits);
        uint32_t at = st->slot_first[h]++;
        st->lits[at] = lits[k];
    }
    for (uint32_t h = slots; h > 0; h--)
        st->slot_first[h] = st->slot_first[h - 1];
    st->slot_first[0] = 0;
    /* Distinct lengths, increasing (insertion into a sorted list). */
    for (uint32_t k = 0; k < m; k++) {
        uint32_t len = lits[k].len, j = 0;
        while (j < st->nlengths && st->lengths[j] < len)
            j++;
        if (j < st->nlengths && st->lengths[j] == len)
            continue;
        memmove(st->lengths + j + 1, st->lengths + j,
                (st->nlengths - j) * sizeof *st->lengths);
        st->lengths[j] = len;
        st->nlengths++;
    }
    st->nlits = m;
    return HAY_OK;
}

/* The distinct literals, their buckets and shape, the filter table. */
hay_status hay_fdr_build_width(hay_patterns *set, void **state, uint32_t width)
{
    const hay_allocator *a = &set->alloc;
    RETURN_ERROR_IF(set->n >= UINT32_MAX / 2, HAY_ERR_TOO_LARGE);
    fdr_state *st = hay_calloc(a, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    st->caseless = set->flags & HAY_CASELESS;
    st->min_len = set->min_len;
    st->max_len = set->max_len;
    fdr_lit *lits = NULL;
    uint32_t m = 0, nlong = 0;
    hay_status s = collect(set, st, &lits, &m);
    if (s < 0)
        goto done;
    st->min_long = SIZE_MAX;
    for (uint32_t k = 0; k < m; k++) {
        if (lits[k].len <= 2) {
            st->has_short = true;
            continue;
        }
        nlong++;
        if (lits[k].len < st->min_long)
            st->min_long = lits[k].len;
    }
    if (!nlong)
        st->min_long = 0;
    st->width = width ? width : choose_width(nlong, st->min_long);
    for (uint32_t k = 0; k < m; k++) {
        uint32_t cap = 8 + st->width - 1;
        lits[k].flen = lits[k].len <= 2 ? 0 : lits[k].len < cap ? lits[k].len : cap;
        if (lits[k].flen > st->max_flen)
            st->max_flen = lits[k].flen;
    }
    assign_buckets(st, lits, m);
    s = index_literals(a, st, lits, m);
    if (s < 0)
        goto done;
    choose_shape(st, nlong);
    size_t words = (size_t)1 << st->domain;
    st->table = hay_malloc(a, words * sizeof *st->table);
    st->two = hay_calloc(a, 1, 8192);
    s = HAY_ERR_NOMEM;
    if (!st->table || !st->two)
        goto done;
    /* Bit 8p + b starts set (no prefix of b ends here) where some window
     * of b's literals is p bytes before their prefix end. */
    uint64_t init = 0;
    for (uint32_t b = 0; b < 8; b++)
        for (uint32_t p = 0; p < 8; p++)
            if (!st->flen[b] || p + st->width - 2 < st->flen[b])
                init |= 1ull << (8 * p + b);
    for (size_t k = 0; k < words; k++)
        st->table[k] = init;
    for (uint32_t k = 0; k < m; k++)
        add_to_filter(st, &lits[k]);
    set->state_memory = sizeof *st + words * 8 + 8192 + m * sizeof *st->lits +
                        set->n * 4 + ((size_t)1 << st->hash_bits) * 5 + m * 4;
    s = HAY_OK;
done:
    hay_free(a, lits);
    if (s < 0) {
        hay_fdr_destroy(set, st);
        return s;
    }
    *state = st;
    return HAY_OK;
}
