/* matcher.c - compiling the pattern set (see matcher.h). */
#include "matcher.h"

#include "casefold.h"
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void explain(const find_config *cf, hay_status st, const char *why)
{
    const char *backend = hay_backend_name(cf->backend);
    if (st == HAY_ERR_UNKNOWN_NAME) {
        fprintf(stderr, "hay: unknown algorithm '%s' for backend %s; choose one of:",
                cf->algo, backend);
        const char *name;
        for (size_t i = 0; hay_algo_name(cf->backend, i, &name) == HAY_OK; i++)
            fprintf(stderr, " %s", name);
        fputc('\n', stderr);
    } else if (st == HAY_ERR_UNSUPPORTED && (cf->backend == HAY_BACKEND_AUTO ||
                                             cf->backend == HAY_BACKEND_CPU)) {
        fprintf(stderr, "hay: algorithm '%s' searches for one pattern only (%zu given); "
                        "use --algo ac or naive\n", cf->algo, cf->pats.n);
    } else if (st == HAY_ERR_UNSUPPORTED && why[0]) {
        fprintf(stderr, "hay: backend %s: %s\n", backend, why);   /* the engine's words */
    } else if (st == HAY_ERR_UNSUPPORTED) {
        fprintf(stderr, "hay: backend %s: this version has no search engine for it yet\n",
                backend);
    } else if (st == HAY_ERR_TOO_LARGE && cf->algo && !strcmp(cf->algo, "dfa")) {
        fprintf(stderr, "hay: the DFA of these patterns exceeds its table budget; "
                        "raise it (--params dfa_budget=BYTES) or use --algo ac\n");
    } else if (st == HAY_ERR_TOO_LARGE && cf->algo && !strcmp(cf->algo, "teddy") &&
               cf->pats.n > 64) {
        fprintf(stderr, "hay: teddy searches for at most 64 patterns (%zu given); "
                        "use --algo dfa or ac\n", cf->pats.n);
    } else if (st == HAY_ERR_TOO_LARGE && why[0]) {
        fprintf(stderr, "hay: backend %s: %s\n", backend, why);   /* the engine's words */
    } else if (st == HAY_ERR_TOO_LARGE) {
        fprintf(stderr, "hay: a pattern is longer than %u bytes, or there are more "
                        "than %u patterns\n", HAY_MAX_PATTERN_LEN, HAY_MAX_PATTERNS);
    } else if (st == HAY_ERR_NO_DEVICE || st == HAY_ERR_NO_BACKEND) {
        fprintf(stderr, "hay: backend %s: %s; 'hay devices' lists what this machine "
                        "has, --backend auto falls back to the CPU\n",
                backend, hay_strerror(st));
    } else if (st == HAY_ERR_INVALID && why[0]) {
        fprintf(stderr, "hay: backend %s: %s: %s\n", backend,
                cf->device_given ? "--device or --params" : "--params", why);
    } else if (st == HAY_ERR_INVALID && cf->params) {
        fprintf(stderr, "hay: backend %s: invalid --device or --params '%s' "
                        "(see 'hay devices' and 'hay find --help')\n",
                backend, cf->params);
    } else {
        fprintf(stderr, "hay: backend %s: %s\n", backend, hay_strerror(st));
    }
}

/* Lines never match across a newline (grep), so for the line outputs a
 * pattern holding one is left out: selected by the leftmost modes it would
 * hide the matches it overlaps. */
static bool left_out(const find_config *cf, const hay_pattern *p)
{
    return !cf->count_matches && memchr(p->data, cf->eol, p->len) != NULL;
}

static bool expanded(const find_config *cf, const hay_pattern *p)
{
    return cf->icase && cf->unicode && find_casefold_needed(p->data, p->len);
}

/* The patterns to compile, where they are not cf's as given: with some left
 * out, or with case variants (m->covered set where some are prefixes).
 * Returns 0 (v->items NULL: compile cf's), 1 when none is left, -1 after
 * printing why. */
static int select_patterns(const find_config *cf, find_variants *v, find_matcher *m)
{
    const hay_pattern *items = cf->pats.items;
    bool same = true;
    for (size_t i = 0; i < cf->pats.n && same; i++)
        same = !left_out(cf, &items[i]) && !expanded(cf, &items[i]);
    if (same)
        return 0;
    bool prefixes = false;
    size_t cap = 0, nexpanded = 0;
    for (size_t i = 0; i < cf->pats.n; i++)
        nexpanded += expanded(cf, &items[i]);
    size_t limit = nexpanded ? FIND_CASEFOLD_MAX_TOTAL / nexpanded : 0;
    limit = limit > FIND_CASEFOLD_MAX_VARIANTS ? FIND_CASEFOLD_MAX_VARIANTS
            : limit < 16                       ? 16 : limit;
    for (size_t i = 0; i < cf->pats.n; i++) {
        int rc = 0;
        size_t covered = items[i].len, n0 = v->n;
        if (left_out(cf, &items[i]))
            continue;
        if (expanded(cf, &items[i]))
            rc = find_casefold_expand(v, items[i].data, items[i].len, (uint32_t)i, limit,
                                      &covered);
        else
            rc = find_variants_add(v, items[i].data, items[i].len, (uint32_t)i);
        if (rc == 0 && v->n > cap) {   /* covered[] follows the variants */
            cap = v->cap;
            size_t *c = realloc(m->covered, cap * sizeof *c);
            rc = c ? 0 : -1;
            if (c)
                m->covered = c;
        }
        if (rc < 0) {
            fprintf(stderr, "hay: %s\n", hay_strerror(HAY_ERR_NOMEM));
            return -1;
        }
        for (size_t k = n0; k < v->n; k++)
            m->covered[k] = covered;
        prefixes |= covered < items[i].len;
    }
    if (!prefixes) {
        free(m->covered);
        m->covered = NULL;
    } else if (cf->count_matches && cf->mode != HAY_MATCH_ALL) {
        fprintf(stderr, "hay: --count-matches with --match-mode leftmost-*: a -i pattern "
                        "has more than %zu case variants; use --match-mode all, or "
                        "--no-unicode\n", limit);
        return -1;
    }
    return v->n ? 0 : 1;
}

int find_matcher_open(const find_config *cf, find_matcher *m)
{
    memset(m, 0, sizeof *m);
    if (cf->pats.n == 0)
        return 0;   /* only empty patterns, or none at all */
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.flags = cf->icase ? HAY_CASELESS : 0;
    co.backend = cf->backend;
    co.algo = cf->algo;
    co.mode = cf->mode;
    co.params = cf->params;
    co.size_hint = cf->size_hint;
    char why[1024] = "";
    co.error = why;
    co.error_cap = sizeof why;
    find_variants v;
    memset(&v, 0, sizeof v);
    int rc = select_patterns(cf, &v, m);
    if (rc != 0) {
        find_variants_free(&v);
        return rc < 0 ? -1 : 0;
    }
    const hay_pattern *items = v.items ? v.items : cf->pats.items;
    size_t n = v.items ? v.n : cf->pats.n;
    m->pats = cf->pats.items;
    if (m->covered) {   /* prefixes: every occurrence, verified, then chosen */
        co.mode = HAY_MATCH_ALL;
        m->reselect = cf->mode != HAY_MATCH_ALL;
    }
    double t0 = cli_now();
    hay_status st = hay_patterns_compile(items, n, &co, &m->set);
    m->compile_s = cli_now() - t0;
    m->nvariants = n;
    for (size_t i = 0; i < n; i++)
        m->max_len = items[i].len > m->max_len ? items[i].len : m->max_len;
    m->owner = v.owner;
    v.owner = NULL;
    find_variants_free(&v);
    if (st < 0) {
        explain(cf, st, why);
        return -1;
    }
    st = hay_scratch_create(m->set, &m->scratch);
    if (st < 0) {
        fprintf(stderr, "hay: %s\n", hay_strerror(st));
        return -1;
    }
    return 0;
}

bool find_matcher_verify(const find_matcher *m, uint32_t id, const uint8_t *buf,
                         uint64_t len, uint64_t *end)
{
    if (!m->covered)
        return true;
    const hay_pattern *p = &m->pats[m->owner[id]];
    size_t done = m->covered[id];
    if (done == p->len)
        return true;
    size_t n = find_casefold_match((const uint8_t *)p->data + done, p->len - done,
                                   buf + *end, (size_t)(len - *end));
    if (n == SIZE_MAX)
        return false;
    *end += n;
    return true;
}

size_t find_matcher_select(hay_match_mode mode, find_span *spans, size_t n)
{
    size_t k = 0;
    uint64_t next = 0;   /* the end of the last match kept */
    for (size_t i = 0; i < n; i++) {
        if (k && spans[i].s < next)
            continue;
        size_t best = i;
        /* Leftmost-first: at one start the pattern given first wins;
         * leftmost-longest: the longest, first in the sort order. */
        for (size_t j = i + 1; mode == HAY_MATCH_LEFTMOST_FIRST && j < n &&
                               spans[j].s == spans[i].s; j++)
            if (spans[j].id < spans[best].id)
                best = j;
        spans[k++] = spans[best];
        next = spans[best].e;
    }
    return k;
}

void find_matcher_close(find_matcher *m)
{
    hay_scratch_free(m->scratch);
    hay_patterns_free(m->set);
    free(m->owner);
    free(m->covered);
    memset(m, 0, sizeof *m);
}

/* A scan whose matches come in the library's batches (hay_scan_batch: one
 * call per up to HAY_BATCH_MAX matches, as the GPU's sorted lists and the
 * CPU's chunk buffers hold them), handed one by one to a per-match
 * consumer; a non-zero return stops the scan as hay_scan's would. */
typedef struct batch_fwd {
    hay_match_fn fn;
    void *ctx;
} batch_fwd;

static int batch_each(const hay_match *m, size_t n, void *ctx)
{
    const batch_fwd *f = ctx;
    for (size_t i = 0; i < n; i++)
        if (f->fn(m[i].id, m[i].start, m[i].end, f->ctx))
            return 1;
    return 0;
}

hay_status find_matcher_scan(const hay_patterns *set, hay_scratch *scratch,
                               const uint8_t *buf, uint64_t len, const hay_scan_opts *so,
                               hay_match_fn fn, void *ctx)
{
    batch_fwd f = { fn, ctx };
    return hay_scan_batch(set, scratch, buf, len, so, batch_each, &f);
}
