/*
 * trie.c - the trie of a pattern set (hay_trie in internal.h), the goto
 * function that the Aho-Corasick, DFA and PFAC tables start from.
 *
 * The patterns are sorted (folded bytes, then id) and inserted in that
 * order: each one shares with the one before it a prefix whose states
 * exist already, and adds states only for the rest.  So no edge list is
 * ever searched, and the children of every state are created in
 * increasing byte order.  The states are then numbered breadth first (a
 * stable sort by depth: within a level, breadth-first order is the sorted
 * order of the strings, which is the order of creation), so that the
 * shallow states, where failure links and DFA rows mostly lead, lie
 * together at the front, and the children of a state are consecutive and
 * in byte order: the sorted edge lists come directly.  The work is the
 * sort plus a few steps per state, whatever the fan-out, so a million
 * patterns build in seconds.
 */
#include "../core/internal.h"

#include <stdlib.h>

typedef struct sort_ctx {
    const uint8_t *bytes;
    const size_t *off, *len;
} sort_ctx;

static int cmp_pattern(const void *a, const void *b, void *ctx)
{
    const sort_ctx *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    size_t lx = c->len[x], ly = c->len[y];
    int r = memcmp(c->bytes + c->off[x], c->bytes + c->off[y], lx < ly ? lx : ly);
    if (r)
        return r;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return x < y ? -1 : x > y;
}

uint32_t hay_trie_classes(const hay_trie *t, const uint8_t fold[256],
                          uint8_t class_of[256], uint8_t cls[256])
{
    bool used[256] = { false };
    uint32_t ne = t->edge_first[t->nstates];
    for (uint32_t e = 0; e < ne; e++)
        used[t->edge_byte[e]] = true;
    uint32_t distinct = 0;
    for (int c = 0; c < 256; c++)
        distinct += used[c];
    uint32_t k = distinct == 256 ? 0 : 1;
    for (int c = 0; c < 256; c++)
        class_of[c] = used[c] ? (uint8_t)k++ : 0;
    for (int c = 0; c < 256; c++)
        cls[c] = class_of[fold[c]];
    return k;
}

void hay_trie_free(const hay_allocator *a, hay_trie *t)
{
    hay_free(a, t->edge_first);
    hay_free(a, t->edge_byte);
    hay_free(a, t->edge_to);
    hay_free(a, t->out_first);
    hay_free(a, t->out_id);
    memset(t, 0, sizeof *t);
}

/* Grows the per-state arrays to hold `need` states. */
static bool grow(const hay_allocator *a, uint32_t **parent, uint8_t **byte,
                 size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap * 2 > need ? *cap * 2 : need;
    uint32_t *p = hay_realloc(a, *parent, *cap * 4, nc * 4);
    if (!p)
        return false;
    *parent = p;
    uint8_t *b = hay_realloc(a, *byte, *cap, nc);
    if (!b)
        return false;
    *byte = b;
    *cap = nc;
    return true;
}

hay_status hay_trie_build(const hay_patterns *set, const uint8_t fold[256],
                          hay_trie *out)
{
    const hay_allocator *a = &set->alloc;
    memset(out, 0, sizeof *out);
    size_t n = set->n;
    size_t total = set->off[n - 1] + set->len[n - 1];
    uint8_t *folded = NULL, *pbyte = NULL;
    uint32_t *order = NULL, *path = NULL, *parent = NULL, *end_state = NULL;
    uint32_t *depth = NULL, *renum = NULL;
    uint8_t *newbyte = NULL;
    size_t cap = 0;
    hay_status s = HAY_ERR_NOMEM;

    /* The folded pattern bytes (a copy only when folding changes some). */
    const uint8_t *bytes = set->bytes;
    bool identity = true;
    for (int c = 0; c < 256; c++)
        identity = identity && fold[c] == c;
    if (!identity) {
        folded = hay_malloc(a, total);
        if (!folded)
            goto fail;
        for (size_t i = 0; i < total; i++)
            folded[i] = fold[set->bytes[i]];
        bytes = folded;
    }
    order = hay_malloc(a, n * 4);
    path = hay_malloc(a, (set->max_len + 1) * 4);
    end_state = hay_malloc(a, n * 4);
    if (!order || !path || !end_state)
        goto fail;
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    sort_ctx sc = { bytes, set->off, set->len };
    qsort_r(order, n, 4, cmp_pattern, &sc);

    /* Insert in sorted order; path[d] is the state at depth d of the
     * previous pattern.  State 0 is the root. */
    size_t guess = total / 4 + 1024;
    if (!grow(a, &parent, &pbyte, &cap, guess))
        goto fail;
    size_t ns = 1;
    path[0] = 0;
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t id = order[k];
        const uint8_t *p = bytes + set->off[id];
        size_t m = set->len[id];
        size_t lcp = 0, lim = m < prev_len ? m : prev_len;
        while (lcp < lim && p[lcp] == prev[lcp])
            lcp++;
        if (m - lcp > 0) {
            s = HAY_ERR_TOO_LARGE;
            if (ns + (m - lcp) >= UINT32_MAX)
                goto fail;
            s = HAY_ERR_NOMEM;
            if (!grow(a, &parent, &pbyte, &cap, ns + (m - lcp)))
                goto fail;
        }
        for (size_t d = lcp; d < m; d++) {
            parent[ns] = path[d];
            pbyte[ns] = p[d];
            path[d + 1] = (uint32_t)ns++;
        }
        end_state[id] = path[m];
        prev = p;
        prev_len = m;
    }

    /* Breadth-first numbers: a counting sort by depth, stable.  Parents
     * were created before their children. */
    depth = hay_malloc(a, ns * 4);
    renum = hay_malloc(a, ns * 4);
    newbyte = hay_malloc(a, ns);
    if (!depth || !renum || !newbyte)
        goto fail;
    depth[0] = 0;
    uint32_t maxd = 0;
    for (size_t t = 1; t < ns; t++) {
        depth[t] = depth[parent[t]] + 1;
        maxd = depth[t] > maxd ? depth[t] : maxd;
    }
    uint32_t *at = path;   /* max_len + 1 > maxd entries, free now */
    memset(at, 0, ((size_t)maxd + 1) * 4);
    for (size_t t = 0; t < ns; t++)
        at[depth[t]]++;
    for (uint32_t d = 0, sum = 0; d <= maxd; d++) {
        uint32_t c = at[d];
        at[d] = sum;
        sum += c;
    }
    for (size_t t = 0; t < ns; t++)
        renum[t] = at[depth[t]]++;
    /* Renumbered parents (into depth[], no longer needed) and bytes. */
    for (size_t t = 1; t < ns; t++) {
        depth[renum[t]] = renum[parent[t]];
        newbyte[renum[t]] = pbyte[t];
    }
    hay_free(a, parent);
    parent = depth;
    depth = NULL;
    hay_free(a, pbyte);
    pbyte = newbyte;
    newbyte = NULL;
    for (size_t i = 0; i < n; i++)
        end_state[i] = renum[end_state[i]];

    /* CSR: children of a state were created in increasing byte order. */
    uint32_t ne = (uint32_t)(ns - 1);
    out->nstates = (uint32_t)ns;
    out->edge_first = hay_calloc(a, ns + 1, 4);
    out->edge_byte = hay_malloc(a, ne ? ne : 1);
    out->edge_to = hay_malloc(a, (ne ? ne : 1) * (size_t)4);
    out->out_first = hay_calloc(a, ns + 1, 4);
    out->out_id = hay_malloc(a, n * 4);
    if (!out->edge_first || !out->edge_byte || !out->edge_to ||
        !out->out_first || !out->out_id)
        goto fail;
    for (size_t t = 1; t < ns; t++)
        out->edge_first[parent[t] + 1]++;
    for (size_t v = 0; v < ns; v++)
        out->edge_first[v + 1] += out->edge_first[v];
    /* Fill with a cursor per state, kept in out_first for now. */
    for (size_t v = 0; v <= ns; v++)
        out->out_first[v] = out->edge_first[v];
    for (size_t t = 1; t < ns; t++) {
        uint32_t e = out->out_first[parent[t]]++;
        out->edge_byte[e] = pbyte[t];
        out->edge_to[e] = (uint32_t)t;
    }
    /* Outputs: ids in increasing order at each state. */
    memset(out->out_first, 0, (ns + 1) * 4);
    for (size_t i = 0; i < n; i++)
        out->out_first[end_state[i] + 1]++;
    for (size_t v = 0; v < ns; v++)
        out->out_first[v + 1] += out->out_first[v];
    /* parent[] is no longer needed: it becomes the fill cursor. */
    for (size_t v = 0; v < ns; v++)
        parent[v] = out->out_first[v];
    for (size_t i = 0; i < n; i++)
        out->out_id[parent[end_state[i]]++] = (uint32_t)i;

    out->memory = (ns + 1) * 8 + (size_t)ne * 5 + n * 4;
    s = HAY_OK;
fail:
    hay_free(a, folded);
    hay_free(a, order);
    hay_free(a, path);
    hay_free(a, end_state);
    hay_free(a, parent);
    hay_free(a, pbyte);
    hay_free(a, depth);
    hay_free(a, renum);
    hay_free(a, newbyte);
    if (s < 0)
        hay_trie_free(a, out);
    return s;
}
