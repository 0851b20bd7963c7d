/*
 * pfac.c - the PFAC tables (failureless Aho-Corasick) shared by the CPU,
 * CUDA and OpenCL PFAC engines.  See hay_pfac in internal.h for the layout.
 */
#include "internal.h"

void hay_pfac_free(const hay_patterns *set, hay_pfac *p)
{
    if (!p)
        return;
    const hay_allocator *a = &set->alloc;
    hay_free(a, p->next);
    hay_free(a, p->edge_first);
    hay_free(a, p->edge_cls);
    hay_free(a, p->edge_to);
    hay_free(a, p->out_first);
    hay_free(a, p->out_id);
    hay_free(a, p->depth);
    hay_free(a, p);
}

hay_status hay_pfac_build(const hay_patterns *set, size_t dense_budget,
                          hay_pfac **out)
{
    RETURN_ERROR_IF(!set || !out, HAY_ERR_INVALID);
    *out = NULL;
    hay_trie t;
    memset(&t, 0, sizeof t);
    uint8_t fold[256];
    hay_fold_table(set, fold);
    FORWARD_IF_ERROR(hay_trie_build(set, fold, &t));
    hay_status s = hay_pfac_build_from(set, &t, dense_budget, out);
    hay_trie_free(&set->alloc, &t);
    return s;
}

hay_status hay_pfac_build_from(const hay_patterns *set, const hay_trie *tp,
                               size_t dense_budget, hay_pfac **out)
{
    RETURN_ERROR_IF(!set || !tp || !out, HAY_ERR_INVALID);
    *out = NULL;
    const hay_trie t = *tp;
    const hay_allocator *a = &set->alloc;
    double t0 = hay_now();
    hay_pfac *p = hay_calloc(a, 1, sizeof *p);
    RETURN_ERROR_IF(!p, HAY_ERR_NOMEM);
    uint32_t *renum = NULL, *old_of = NULL;
    uint8_t fold[256];
    hay_fold_table(set, fold);
    hay_status s = HAY_ERR_NOMEM;

    uint8_t class_of[256];
    p->nclasses = hay_trie_classes(&t, fold, class_of, p->cls);
    uint32_t ne = t.edge_first[t.nstates];

    /* Final states first: root 0, finals 1 .. nfinal, the rest after. */
    uint32_t ns = t.nstates;
    p->nstates = ns;
    renum = hay_malloc(a, (size_t)ns * 4);
    old_of = hay_malloc(a, (size_t)ns * 4);
    if (!renum || !old_of)
        goto fail;
    uint32_t nfinal = 0;
    for (uint32_t v = 1; v < ns; v++)
        nfinal += t.out_first[v] != t.out_first[v + 1];
    p->nfinal = nfinal;
    renum[0] = 0;
    uint32_t nf = 1, nr = nfinal + 1;
    for (uint32_t v = 1; v < ns; v++)
        renum[v] = t.out_first[v] != t.out_first[v + 1] ? nf++ : nr++;
    for (uint32_t v = 0; v < ns; v++)
        old_of[renum[v]] = v;

    p->edge_first = hay_malloc(a, ((size_t)ns + 1) * 4);
    p->edge_cls = hay_malloc(a, ne ? ne : 1);
    p->edge_to = hay_malloc(a, (ne ? (size_t)ne : 1) * 4);
    p->out_first = hay_malloc(a, ((size_t)nfinal + 2) * 4);
    p->out_id = hay_malloc(a, set->n * 4);
    p->depth = hay_calloc(a, ns, 4);
    if (!p->edge_first || !p->edge_cls || !p->edge_to || !p->out_first ||
        !p->out_id || !p->depth)
        goto fail;
    uint32_t pos = 0, opos = 0;
    p->out_first[0] = 0;
    for (uint32_t w = 0; w < ns; w++) {
        uint32_t v = old_of[w];
        p->edge_first[w] = pos;
        for (uint32_t e = t.edge_first[v]; e < t.edge_first[v + 1]; e++) {
            p->edge_cls[pos] = class_of[t.edge_byte[e]];
            p->edge_to[pos] = renum[t.edge_to[e]];
            pos++;
        }
        if (w >= 1 && w <= nfinal) {
            p->out_first[w] = opos;
            for (uint32_t o = t.out_first[v]; o < t.out_first[v + 1]; o++)
                p->out_id[opos++] = t.out_id[o];
        }
    }
    p->edge_first[ns] = pos;
    p->out_first[nfinal + 1] = opos;
    if (nfinal == 0)
        p->out_first[1] = 0;
    /* Depths: edges go from shallower to deeper states; a breadth-first
     * walk from the root sets each child's depth from its parent. */
    {
        uint32_t *queue = renum;   /* no longer needed: reuse */
        uint32_t qh = 0, qt = 0;
        queue[qt++] = 0;
        while (qh < qt) {
            uint32_t u = queue[qh++];
            for (uint32_t e = p->edge_first[u]; e < p->edge_first[u + 1]; e++) {
                p->depth[p->edge_to[e]] = p->depth[u] + 1;
                queue[qt++] = p->edge_to[e];
            }
        }
    }
    /* Class 0 is on an edge only when it is a byte of its own. */
    for (int c = 0; c < 256; c++)
        p->root[c] = hay_pfac_step_compact(p, 0, p->cls[c]);

    p->dense_bytes = (size_t)ns * p->nclasses * 4;
    if (p->dense_bytes <= dense_budget) {
        p->next = hay_calloc(a, (size_t)ns * p->nclasses, 4);
        if (!p->next)
            goto fail;
        for (uint32_t w = 0; w < ns; w++)
            for (uint32_t e = p->edge_first[w]; e < p->edge_first[w + 1]; e++)
                p->next[(size_t)w * p->nclasses + p->edge_cls[e]] = p->edge_to[e];
    }
    p->max_len = (uint32_t)set->max_len;
    p->min_len = (uint32_t)set->min_len;
    p->memory = sizeof *p + ((size_t)ns + 1) * 4 + (size_t)ne * 5 +
                ((size_t)nfinal + 2) * 4 + set->n * 4 + (size_t)ns * 4 +
                (p->next ? p->dense_bytes : 0);
    hay_free(a, renum);
    hay_free(a, old_of);
    p->build_seconds = hay_now() - t0;
    *out = p;
    return HAY_OK;
fail:
    hay_free(a, renum);
    hay_free(a, old_of);
    hay_pfac_free(set, p);
    return s;
}
