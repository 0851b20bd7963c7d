/* matcher.c - compiling the pattern set (see matcher.h). */
#include "matcher.h"

#include "cli.h"

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
    char why[1024] = "";
    co.error = why;
    co.error_cap = sizeof why;
    /* Lines never match across a newline (grep; a NUL with -z), so for the
     * line outputs a pattern holding one is left out: selected by the
     * leftmost modes it would hide the matches it overlaps. */
    const hay_pattern *items = cf->pats.items;
    hay_pattern *kept = NULL;
    size_t n = cf->pats.n;
    if (!cf->json && !cf->count_matches) {
        size_t k = 0;
        for (size_t i = 0; i < cf->pats.n; i++)
            k += memchr(items[i].data, cf->eol, items[i].len) == NULL;
        if (k < n) {
            kept = malloc((k ? k : 1) * sizeof *kept);
            if (!kept) {
                fprintf(stderr, "hay: %s\n", hay_strerror(HAY_ERR_NOMEM));
                return -1;
            }
            k = 0;
            for (size_t i = 0; i < cf->pats.n; i++)
                if (!memchr(items[i].data, cf->eol, items[i].len))
                    kept[k++] = items[i];
            items = kept;
            n = k;
            if (n == 0) {
                free(kept);
                return 0;
            }
        }
    }
    double t0 = cli_now();
    hay_status st = hay_patterns_compile(items, n, &co, &m->set);
    m->compile_s = cli_now() - t0;
    free(kept);
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

void find_matcher_close(find_matcher *m)
{
    hay_scratch_free(m->scratch);
    hay_patterns_free(m->set);
    memset(m, 0, sizeof *m);
}
