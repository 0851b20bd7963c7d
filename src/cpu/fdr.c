/*
 * fdr.c - a shift-or filter over hashed two-byte windows, in buckets, for
 * literal sets of hundreds to tens of thousands of literals whose matches
 * are sparse (the idea of Hyperscan's FDR, from its paper and public
 * descriptions; the code is our own).
 *
 * Literals of 3 bytes and more ("long") are the filter's.  Each goes into
 * one of 8 buckets, and each bucket has a prefix length P (1..8 bytes,
 * the same for all its literals: min(len, 8) of theirs).  The filter's
 * table T has one 64-bit word per window key: the key of input position i
 * is y[i-1] and the low D - 8 bits of y[i] (D = 12..15); bit 8p + b of T[k] is 0
 * when some literal of bucket b has a window of key k p bytes before the
 * end of its prefix (for the literal's first byte, any byte before it), or
 * when p >= P of bucket b.  A block of 8 input positions i .. i+7 ORs
 * T[key(i+j)] << 8j into 128 bits: byte q of the low half then has a 0 bit
 * for bucket b when every window p = q - j of the block agrees that a
 * prefix of b may end at i + q; the high half is carried into the next
 * block's low half, so windows from the previous block count too.
 *
 * Stride s (1, 2 or 4): only the keys at j = 0, s, 2s, ... are looked up,
 * so each end is checked against the windows p = q (mod s) alone: a
 * weaker filter at 8/s lookups a block.  Two-byte windows with s = 2
 * still cover every byte of an 8-byte prefix.
 *
 * Candidates (end e, bucket b) are verified exactly: the P bytes starting
 * at e - P + 1 (folded when caseless, 8 at a time) are hashed to the
 * literals with that prefix, each compared in full.  Duplicate literals
 * (equal after folding) are one entry with a list of ids.
 *
 * Literals of 1 and 2 bytes ("short") would flood the filter; a bitmap of
 * their last bytes flags the block positions to check, and a direct
 * table (256 bits, 64 Kib) confirms them; they are then looked up like
 * long prefixes.
 *
 * Order: candidates come by prefix end; the contract wants match ends:
 * verified matches wait in endorder.h's buffer, sorted by (end, length).
 * Should it fill, the ends since the last flush are checked directly, end
 * by end and length by length (one hash probe per distinct length): the
 * same (end, length) order either way.
 */
#include "../core/internal.h"
#include "endorder.h"
#include "fdr.h"

#define BLOCK 8
#define SHORT 8            /* the bucket of the short literals */
#define ANY 9              /* probe: any bucket */

typedef struct fdr_lit {   /* one distinct literal (after folding) */
    uint64_t val;          /* first min(8, len) bytes, folded when caseless */
    const uint8_t *pat;
    uint32_t len, plen;    /* plen: the bytes hashed (min(8, len)) */
    uint32_t bucket;       /* its filter bucket; SHORT for 1 and 2 bytes */
    uint32_t ids, nids;    /* its ids: id_list[ids .. ids + nids) */
} fdr_lit;

typedef struct fdr_state {
    uint64_t *table;         /* 1 << domain words */
    uint32_t domain, stride;
    uint8_t plen[8];         /* prefix length of each bucket (0: unused) */
    bool caseless, has_short;
    size_t min_len, max_len, max_plen, min_long;
    uint32_t nlits, hash_bits;
    fdr_lit *lits;           /* by hash slot */
    uint32_t *slot_first;    /* (1 << hash_bits) + 1 */
    uint32_t *id_list;
    uint32_t *lengths, nlengths;   /* distinct lengths, increasing */
    uint8_t short_last[256]; /* some short literal ends with this byte */
    uint8_t one[32];         /* bit c: a 1-byte literal c */
    uint8_t *two;            /* bit (a << 8 | b): a 2-byte literal ab */
} fdr_state;

/* One scan's working state. */
typedef struct fdr_ctx {
    const fdr_state *st;
    const hay_patterns *set;
    const uint8_t *y;
    size_t n, from, min_end;
    bool counting;
    uint64_t count;
    hay_eo *q;               /* matches waiting for their turn (endorder.h) */
    uint64_t base;
    hay_emit_fn emit;
    void *sink;
} fdr_ctx;

/* ---- keys, folding and hashing ------------------------------------------------ */

/* The key of the window (prev, cur): prev and the low domain - 8 bits of
 * cur, which for ASCII letters are the letter (a 16-bit load and a mask). */
static inline uint32_t window_key(uint8_t prev, uint8_t cur, uint32_t domain)
{
    return ((uint32_t)prev | (uint32_t)cur << 8) & ((1u << domain) - 1);
}

/* The key of the window ending at p (one 16-bit load on x86). */
static inline uint32_t key_at(const uint8_t *p, uint32_t mask)
{
    return ((uint32_t)p[-1] | (uint32_t)p[0] << 8) & mask;
}

/* ASCII lower case of 8 bytes at once. */
static inline uint64_t fold8(uint64_t w)
{
    const uint64_t hi = 0x8080808080808080ull, lo7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t b = w & lo7;
    uint64_t ge_a = b + 0x3f3f3f3f3f3f3f3full;   /* >= 'A' */
    uint64_t gt_z = b + 0x2525252525252525ull;   /* >= '[' */
    uint64_t upper = ge_a & ~gt_z & ~w & hi;
    return w | (upper >> 2);
}

static inline uint64_t plen_mask(uint32_t plen)
{
    return plen >= 8 ? ~0ull : (1ull << (8 * plen)) - 1;
}

static inline uint32_t lit_hash(uint64_t val, uint32_t plen, uint32_t bits)
{
    return (uint32_t)(((val ^ plen) * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* The first min(8, plen) bytes at y + s (zeros past n), folded if asked. */
static inline uint64_t load_prefix(const uint8_t *y, size_t n, size_t s,
                                   uint32_t plen, bool caseless)
{
    uint64_t w = 0;
    if (n - s >= 8)
        memcpy(&w, y + s, 8);
    else
        memcpy(&w, y + s, n - s);
    if (caseless)
        w = fold8(w);
    return w & plen_mask(plen);
}

/* ---- verification and order ----------------------------------------------- */

static inline bool lit_rest(const fdr_lit *l, const uint8_t *y, size_t s,
                            bool caseless)
{
    return l->len <= 8 || hay_eq(y + s + 8, l->pat + 8, l->len - 8, caseless);
}

static int emit_lit(fdr_ctx *x, uint32_t k, uint64_t end)
{
    const fdr_lit *l = &x->st->lits[k];
    for (uint32_t i = 0; i < l->nids; i++)
        if (x->emit(x->sink, x->st->id_list[l->ids + i],
                    x->base + end - l->len, x->base + end))
            return 1;
    return 0;
}

/* The literals of `bucket` (or ANY) whose prefix of plen bytes starts at
 * s; len != 0: only that length, reported at once.  Returns 1 when emit
 * stopped, 2 when the buffer is full. */
static int probe(fdr_ctx *x, size_t s, uint32_t plen, uint32_t bucket,
                 uint32_t len)
{
    const fdr_state *st = x->st;
    uint64_t v = load_prefix(x->y, x->n, s, plen, st->caseless);
    uint32_t h = lit_hash(v, plen, st->hash_bits);
    for (uint32_t k = st->slot_first[h]; k < st->slot_first[h + 1]; k++) {
        const fdr_lit *l = &st->lits[k];
        size_t end = s + l->len;
        if (l->plen != plen || l->val != v || (len && l->len != len) ||
            (bucket != ANY && l->bucket != bucket) ||
            end > x->n || end <= x->min_end || !lit_rest(l, x->y, s, st->caseless))
            continue;
        if (x->counting)
            x->count += l->nids;
        else if (len)
            return emit_lit(x, k, end);
        else if (!hay_eo_push(x->q, end, l->len, k))
            return 2;
    }
    return 0;
}

static inline bool bit(const uint8_t *bits, uint32_t i)
{
    return bits[i >> 3] >> (i & 7) & 1;
}

/* The short literals ending at position q (last byte y[q]). */
static int on_short(fdr_ctx *x, size_t q)
{
    const fdr_state *st = x->st;
    const uint8_t *y = x->y;
    int r = 0;
    if (bit(st->one, y[q]))
        r = probe(x, q, 1, SHORT, 0);
    if (!r && q > 0 && bit(st->two, (uint32_t)y[q - 1] << 8 | y[q]))
        r = probe(x, q - 1, 2, SHORT, 0);
    return r;
}

/* The candidates of the block at i: byte q of `res` has a 0 bit for each
 * bucket whose prefix may end at i + q. */
static int on_block(fdr_ctx *x, uint64_t res, size_t i)
{
    const fdr_state *st = x->st;
    uint64_t c = ~res;
    while (c) {
        unsigned b = (unsigned)__builtin_ctzll(c);
        c &= c - 1;
        size_t e = i + b / 8;
        uint32_t plen = st->plen[b % 8];
        if (e >= x->n)
            break;
        if (e + 1 < x->from + plen)
            continue;
        int r = probe(x, e + 1 - plen, plen, b % 8, 0);
        if (r)
            return r;
    }
    if (st->has_short)
        for (size_t q = i; q < i + BLOCK && q < x->n; q++)
            if (st->short_last[x->y[q]]) {
                int r = on_short(x, q);
                if (r)
                    return r;
            }
    if (x->counting || !x->q->n)
        return 0;
    /* Starts up to i + 8 - max_plen are verified. */
    size_t upto = i + BLOCK - st->max_plen + st->min_long;
    if (st->has_short && upto > i + BLOCK)
        upto = i + BLOCK;
    return i + BLOCK >= st->max_plen ? hay_eo_flush(x->q, upto) : 0;
}

/* ---- the block loop ------------------------------------------------------ */

/* Low and high halves of OR_j T[key(i + j)] << 8j, j = 0, s, 2s, ... < 8;
 * p points at y + i, p[-1 .. 7] readable. */
static inline __attribute__((always_inline)) uint64_t
block(const fdr_state *st, const uint8_t *p, const uint32_t s, uint64_t *high)
{
    const uint64_t *t = st->table;
    const uint32_t mask = (1u << st->domain) - 1;
    uint64_t lo = t[key_at(p, mask)], hi = 0;
    for (uint32_t j = s; j < BLOCK; j += s) {
        uint64_t m = t[key_at(p + j, mask)];
        lo |= m << (8 * j);
        hi |= m >> (64 - 8 * j);
    }
    *high = hi;
    return lo;
}

static inline __attribute__((always_inline)) int
loop_body(fdr_ctx *x, const uint32_t s)
{
    const fdr_state *st = x->st;
    const uint8_t *y = x->y;
    const size_t n = x->n;
    uint64_t carry = 0;       /* 0: every bucket may match (safe) */
    uint8_t tmp[BLOCK + 1];
    size_t i = x->from;
    while (i < n) {
        const uint8_t *p;
        if (i > 0 && n - i >= BLOCK) {
            p = y + i;
        } else {
            memset(tmp, 0, sizeof tmp);
            tmp[0] = i > 0 ? y[i - 1] : 0;
            memcpy(tmp + 1, y + i, n - i < BLOCK ? n - i : BLOCK);
            p = tmp + 1;
        }
        uint64_t high, res = block(st, p, s, &high) | carry;
        carry = high;
        if (res != ~0ull || st->has_short) {
            int r = on_block(x, res, i);
            if (r)
                return r;
        }
        i += BLOCK;
    }
    return 0;
}

static int loop_s1(fdr_ctx *x) { return loop_body(x, 1); }
static int loop_s2(fdr_ctx *x) { return loop_body(x, 2); }
static int loop_s4(fdr_ctx *x) { return loop_body(x, 4); }

static int run_loop(fdr_ctx *x)
{
    switch (x->st->stride) {
    case 4: return loop_s4(x);
    case 2: return loop_s2(x);
    default: return loop_s1(x);
    }
}

/* ---- build ---------------------------------------------------------------- */

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
    const uint32_t d = st->domain;
    for (uint32_t r = 0; r < l->plen; r++) {
        uint64_t clear = ~(1ull << (8 * (l->plen - 1 - r) + b));
        int nc = variants(st, pat[r], cv);
        for (int i = 0; i < nc; i++) {
            if (r == 0) {
                for (uint32_t prev = 0; prev < 256; prev++)
                    st->table[window_key((uint8_t)prev, cv[i], d)] &= clear;
                continue;
            }
            for (int k = 0, np = variants(st, pat[r - 1], pv); k < np; k++)
                st->table[window_key(pv[k], cv[i], d)] &= clear;
        }
    }
}

/* Buckets: each prefix length 3..8 present gets one, the rest go one by
 * one to the length with most literals a bucket; within a length, runs of
 * neighbours in byte order share a bucket (SHORT for short literals). */
static void assign_buckets(fdr_state *st, fdr_lit *lits, uint32_t n)
{
    uint32_t count[9] = { 0 }, nb[9] = { 0 }, used = 0;
    for (uint32_t k = 0; k < n; k++)
        if (lits[k].len > 2)
            count[lits[k].plen]++;
    for (uint32_t p = 3; p <= 8; p++)
        if (count[p])
            nb[p] = 1, used++;
    for (; used < 8 && used > 0; used++) {
        uint32_t best = 0;
        for (uint32_t p = 3; p <= 8; p++)
            if (nb[p] && (!best || count[p] * nb[best] > count[best] * nb[p]))
                best = p;
        nb[best]++;
    }
    uint32_t first[9] = { 0 }, seen[9] = { 0 };
    for (uint32_t p = 3, b = 0; p <= 8; p++) {
        first[p] = b;
        for (uint32_t i = 0; i < nb[p]; i++)
            st->plen[b++] = (uint8_t)p;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = lits[k].plen;
        lits[k].bucket = SHORT;
        if (lits[k].len > 2)
            lits[k].bucket = first[p] + (uint32_t)((uint64_t)seen[p]++ * nb[p] / count[p]);
    }
}

/* Domain (key bits) and stride for a set, from one-thread measurements
 * on English text (docs/notes/2026-11-26-cpu-sets.md): more literals want
 * more keys (fewer false candidates, a larger table); a stride of 2 halves
 * the lookups and pays while the filter stays selective (up to a few
 * hundred literals of 4+ bytes, a few thousand of 8+), 4 only for a few
 * long literals; above that every window is looked up (stride 1). */
static void choose_shape(fdr_state *st, uint32_t nlong)
{
    st->domain = nlong < 1024 ? 13 : nlong < 8192 ? 14 : 16;
    uint32_t minp = 8;
    for (int b = 0; b < 8; b++)
        if (st->plen[b] && st->plen[b] < minp)
            minp = st->plen[b];
    if (minp >= 6 && nlong <= 16)
        st->stride = 4;
    else if ((minp >= 4 && nlong <= 300) || (minp >= 8 && nlong <= 4096))
        st->stride = 2;
    else
        st->stride = 1;
}

static void fdr_destroy(const hay_patterns *set, void *state)
{
    fdr_state *st = state;
    if (!st)
        return;
    const hay_allocator *a = &set->alloc;
    hay_free(a, st->table);
    hay_free(a, st->lits);
    hay_free(a, st->slot_first);
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
    st->lits = hay_malloc(a, m * sizeof *st->lits);
    st->lengths = hay_malloc(a, m * sizeof *st->lengths);
    RETURN_ERROR_IF(!st->slot_first || !st->lits || !st->lengths, HAY_ERR_NOMEM);
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

static hay_status fdr_build(hay_patterns *set, void **state)
{
    const hay_allocator *a = &set->alloc;
    RETURN_ERROR_IF(set->n >= UINT32_MAX / 2, HAY_ERR_TOO_LARGE);
    fdr_state *st = hay_calloc(a, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    st->caseless = set->flags & HAY_CASELESS;
    st->min_len = set->min_len;
    st->max_len = set->max_len;
    fdr_lit *lits = NULL;
    uint32_t m = 0;
    hay_status s = collect(set, st, &lits, &m);
    if (s == HAY_OK) {
        assign_buckets(st, lits, m);
        s = index_literals(a, st, lits, m);
    }
    if (s < 0)
        goto done;
    uint32_t nlong = 0;
    st->min_long = SIZE_MAX;
    for (uint32_t k = 0; k < m; k++) {
        if (lits[k].len <= 2) {
            st->has_short = true;
            continue;
        }
        nlong++;
        if (lits[k].len < st->min_long)
            st->min_long = lits[k].len;
        if (lits[k].plen > st->max_plen)
            st->max_plen = lits[k].plen;
    }
    if (!nlong)
        st->min_long = st->max_plen = 0;
    choose_shape(st, nlong);
    size_t words = (size_t)1 << st->domain;
    st->table = hay_malloc(a, words * sizeof *st->table);
    st->two = hay_calloc(a, 1, 8192);
    s = HAY_ERR_NOMEM;
    if (!st->table || !st->two)
        goto done;
    uint64_t init = 0;
    for (uint32_t b = 0; b < 8; b++)
        for (uint32_t p = 0; p < 8; p++)
            if (!st->plen[b] || p < st->plen[b])
                init |= 1ull << (8 * p + b);
    for (size_t k = 0; k < words; k++)
        st->table[k] = init;
    for (uint32_t k = 0; k < m; k++)
        add_to_filter(st, &lits[k]);
    set->state_memory = sizeof *st + words * 8 + 8192 + m * sizeof *st->lits +
                        set->n * 4 + ((size_t)1 << st->hash_bits) * 4 + m * 4;
    s = HAY_OK;
done:
    hay_free(a, lits);
    if (s < 0) {
        fdr_destroy(set, st);
        return s;
    }
    *state = st;
    return HAY_OK;
}

/* ---- scan and count -------------------------------------------------------- */

/* Reports the matches ending in (lo, hi], end by end, by length. */
static int direct_ends(fdr_ctx *x, size_t lo, size_t hi)
{
    const fdr_state *st = x->st;
    for (size_t e = lo + 1; e <= hi; e++)
        for (uint32_t j = 0; j < st->nlengths && st->lengths[j] <= e; j++) {
            uint32_t len = st->lengths[j];
            if (len == 1 && !bit(st->one, x->y[e - 1]))
                continue;
            if (len == 2 && !bit(st->two, (uint32_t)x->y[e - 2] << 8 | x->y[e - 1]))
                continue;
            if (probe(x, e - len, len < 8 ? len : 8, ANY, len))
                return 1;
        }
    return 0;
}

static int fdr_out(void *ctx, const hay_eo_match *m)
{
    return emit_lit(ctx, m->val, m->end);
}

static int fdr_filter(void *ctx, hay_eo *q, size_t min_end)
{
    fdr_ctx *x = ctx;
    (void)q;
    x->from = hay_eo_first_start(x->st->max_len, min_end);
    x->min_end = min_end;
    return run_loop(x);
}

static int fdr_direct(void *ctx, size_t lo, size_t hi)
{
    return direct_ends(ctx, lo, hi);
}

static int fdr_scan(const hay_patterns *set, const void *state,
                    const uint8_t *y, size_t n, size_t min_end,
                    uint64_t base, hay_emit_fn emit, void *sink)
{
    hay_eo_match buf[HAY_EO_CAP];
    fdr_ctx x = {
        .st = state, .set = set, .y = y, .n = n, .base = base, .emit = emit,
        .sink = sink,
    };
    hay_eo q = { .buf = buf, .out = fdr_out, .ctx = &x };
    x.q = &q;
    return hay_eo_scan(&q, n, min_end, x.st->max_len, fdr_filter, fdr_direct, &x);
}

static uint64_t fdr_count(const hay_patterns *set, const void *state,
                          const uint8_t *y, size_t n, size_t min_end)
{
    const fdr_state *st = state;
    if (min_end >= n)
        return 0;
    fdr_ctx x = {
        .st = st, .set = set, .y = y, .n = n,
        .from = hay_eo_first_start(st->max_len, min_end), .min_end = min_end,
        .counting = true,
    };
    run_loop(&x);
    return x.count;
}

const hay_engine hay_engine_fdr = {
    "fdr", true, fdr_build, fdr_destroy, fdr_scan, fdr_count,
};

/* ---- test hooks ------------------------------------------------------------- */

hay_status hay_fdr_set_stride(hay_patterns *set, unsigned stride)
{
    RETURN_ERROR_IF(!set || set->engine != &hay_engine_fdr || !set->state ||
                    (stride != 1 && stride != 2 && stride != 4), HAY_ERR_INVALID);
    ((fdr_state *)set->state)->stride = stride;
    return HAY_OK;
}

unsigned hay_fdr_stride(const hay_patterns *set)
{
    if (!set || set->engine != &hay_engine_fdr || !set->state)
        return 0;
    return ((const fdr_state *)set->state)->stride;
}
