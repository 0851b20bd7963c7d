/*
 * hyperscan_counts.c - all-occurrence counts of the multi-pattern CPU
 * engines against Hyperscan's on real data.
 *
 *   test_hyperscan_counts <data dir>
 *
 * For snort-community, et-open and english-words (<data>/patterns, \xHH
 * escapes decoded as the CLI does) and every file of <data>/text and
 * <data>/logs: Hyperscan (hs_compile_lit_multi, block mode, every callback
 * counted) against hay's dfa (when the table fits its budget), ac, pfac,
 * pfac on its compact table and fdr: hay_scan_count serially and on 2
 * threads, hay_scan with a counting callback on 3 threads with small
 * chunks.  Snort's set is also run caseless.  Then sets of 2, 8, 64 and
 * 1,000 literals drawn from english-words and snort-community (HAY_SEED,
 * default 18), exact and caseless, on teddy (up to 64), fdr and auto's
 * choice.  HAY_TEST_SCALE below 1 (sanitizer builds) searches only the
 * first part of each file.  Exits 77 when libhs was not found at build time or the data
 * folder is absent.
 */
#include "testutil.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAY_HAVE_HS
#include <hs.h>

#include "patfile.h"

typedef struct text {
    char name[1400];
    uint8_t *data;
    size_t len;
} text;

static int hs_count_cb(unsigned int id, unsigned long long from,
                       unsigned long long to, unsigned int flags, void *ctx)
{
    (void)id; (void)from; (void)to; (void)flags;
    ++*(uint64_t *)ctx;
    return 0;
}

static int hay_count_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}

static size_t load_texts(const char *dir, text **out)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    text *t = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        t = realloc(t, (n + 1) * sizeof *t);
        snprintf(t[n].name, sizeof t[n].name, "%s/%s", dir, e->d_name);
        t[n].data = tu_read_file(t[n].name, &t[n].len);
        /* Sanitizer builds (HAY_TEST_SCALE < 1): the first part of each. */
        if (t[n].len > tu_scaled(t[n].len, 100000))
            t[n].len = tu_scaled(t[n].len, 100000);
        if (t[n].data)
            n++;
    }
    closedir(d);
    *out = t;
    return n;
}

typedef struct engine {
    const char *algo, *params, *label;
} engine;

/* The engines of the whole files, and of the drawn sets (teddy only up to
 * its 64 literals). */
static const engine full_engines[] = {
    { "dfa", NULL, "dfa" }, { "ac", NULL, "ac" }, { "pfac", NULL, "pfac" },
    { "pfac", "pfac_budget=0", "pfac-compact" }, { "fdr", NULL, "fdr" },
};
static const engine drawn_engines[] = {
    { "teddy", NULL, "teddy" }, { "fdr", NULL, "fdr" }, { NULL, NULL, "auto" },
};
#define MAX_ENGINES 5

/* Reads <data>/patterns/<set_name>.txt into *pl; false (a failed check)
 * when it cannot. */
static bool load_set(const char *data, const char *set_name, pat_list *pl)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/patterns/%s.txt", data, set_name);
    size_t flen = 0;
    uint8_t *file = tu_read_file(path, &flen);
    if (!CHECK(file != NULL, "cannot read %s", path))
        return false;
    int r = pat_list_add_text(pl, file, flen, true, true, path, err, sizeof err);
    free(file);
    return CHECK(r == 0 && pl->n > 0, "%s: %s", path, r ? err : "no patterns");
}

/* Hyperscan's count against each engine's on every text, for the n
 * patterns of items. */
static void check_list(const char *set_name, const hay_pattern *items, size_t n,
                       bool caseless, const engine *engines, size_t ne,
                       const text *texts, size_t ntexts)
{
    double t0 = tu_now();
    hay_patterns *sets[MAX_ENGINES] = { NULL };
    const char **expr = malloc(n * sizeof *expr);
    unsigned *flags = malloc(n * sizeof *flags), *ids = malloc(n * sizeof *ids);
    size_t *lens = malloc(n * sizeof *lens);
    for (size_t i = 0; i < n; i++) {
        expr[i] = items[i].data;
        lens[i] = items[i].len;
        flags[i] = caseless ? HS_FLAG_CASELESS : 0;
        ids[i] = (unsigned)i;
    }
    hs_database_t *db = NULL;
    hs_compile_error_t *cerr = NULL;
    hs_scratch_t *scratch = NULL;
    hs_error_t he = hs_compile_lit_multi(expr, flags, ids, lens, (unsigned)n,
                                         HS_MODE_BLOCK, NULL, &db, &cerr);
    if (!CHECK(he == HS_SUCCESS, "%s: hs_compile_lit_multi: %s", set_name,
               cerr ? cerr->message : "failed"))
        goto done;
    CHECK(hs_alloc_scratch(db, &scratch) == HS_SUCCESS, "hs_alloc_scratch");
    double t_hs = tu_now() - t0;

    for (size_t k = 0; k < ne; k++) {
        if (engines[k].algo && strcmp(engines[k].algo, "teddy") == 0 && n > 64)
            continue;   /* teddy's limit (src/cpu/teddy.h) */
        hay_compile_opts co;
        hay_compile_opts_init(&co);
        co.backend = engines[k].algo ? HAY_BACKEND_CPU : HAY_BACKEND_AUTO;
        co.algo = engines[k].algo;
        co.params = engines[k].params;
        co.flags = caseless ? HAY_CASELESS : 0;
        hay_status s = hay_patterns_compile(items, n, &co, &sets[k]);
        if (s == HAY_ERR_TOO_LARGE && k == 0) {
            printf("%s: dfa over its table budget: not run\n", set_name);
            continue;
        }
        CHECK(s == HAY_OK, "%s: compile %s: %s", set_name, engines[k].label,
              hay_strerror(s));
    }
    printf("%s%s: %zu patterns, Hyperscan compiled in %.2f s\n", set_name,
           caseless ? " (caseless)" : "", n, t_hs);
    fflush(stdout);

    uint64_t total = 0;
    for (size_t f = 0; f < ntexts; f++) {
        const text *tx = &texts[f];
        uint64_t want = 0;
        he = hs_scan(db, (const char *)tx->data, (unsigned)tx->len, 0, scratch,
                     hs_count_cb, &want);
        if (!CHECK(he == HS_SUCCESS, "hs_scan %s", tx->name))
            continue;
        total += want;
        for (size_t k = 0; k < ne; k++) {
            if (!sets[k])
                continue;
            hay_scratch *hs = NULL;
            hay_scratch_create(sets[k], &hs);
            for (unsigned threads = 1; threads <= 2; threads++) {
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                o.threads = threads;
                o.chunk_size = threads > 1 ? 256 << 10 : 0;
                uint64_t got = 0;
                hay_status s = hay_scan_count(sets[k], hs, tx->data, tx->len, &o, &got);
                CHECK(s == HAY_OK && got == want,
                      "%s%s %s on %s, %u threads: count %" PRIu64 ", Hyperscan %" PRIu64,
                      set_name, caseless ? " -i" : "", engines[k].label, tx->name,
                      threads, got, want);
            }
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            o.threads = 3;
            o.chunk_size = 100000;
            uint64_t got = 0;
            hay_status s = hay_scan(sets[k], hs, tx->data, tx->len, &o, hay_count_cb, &got);
            CHECK(s == HAY_OK && got == want,
                  "%s%s %s on %s, scan on 3 threads: %" PRIu64 " matches, Hyperscan %" PRIu64,
                  set_name, caseless ? " -i" : "", engines[k].label, tx->name, got, want);
            hay_scratch_free(hs);
        }
    }
    printf("%s%s: %" PRIu64 " matches over %zu files, %.1f s\n", set_name,
           caseless ? " (caseless)" : "", total, ntexts, tu_now() - t0);
    fflush(stdout);
done:
    for (size_t k = 0; k < ne; k++)
        hay_patterns_free(sets[k]);
    hs_free_scratch(scratch);
    hs_free_database(db);
    hs_free_compile_error(cerr);
    free(expr);
    free(flags);
    free(ids);
    free(lens);
}

static void check_set(const char *data, const char *set_name, bool caseless,
                      const text *texts, size_t ntexts)
{
    pat_list pl = { 0 };
    if (load_set(data, set_name, &pl))
        check_list(set_name, pl.items, pl.n, caseless, full_engines,
                   sizeof full_engines / sizeof *full_engines, texts, ntexts);
    pat_list_free(&pl);
}

/* Sets of 2, 8, 64 and 1,000 literals drawn (seeded) from set_name, exact
 * and caseless: teddy, fdr and auto's choice. */
static void check_drawn(const char *data, const char *set_name, uint64_t seed,
                        const text *texts, size_t ntexts)
{
    static const size_t sizes[] = { 2, 8, 64, 1000 };
    pat_list pl = { 0 };
    if (!load_set(data, set_name, &pl))
        return;
    tu_rng r = { seed };
    hay_pattern *pick = malloc(1000 * sizeof *pick);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        for (size_t i = 0; i < sizes[si]; i++)
            pick[i] = pl.items[tu_below(&r, pl.n)];
        char label[128];
        snprintf(label, sizeof label, "%zu drawn from %s", sizes[si], set_name);
        for (int caseless = 0; caseless < 2; caseless++)
            check_list(label, pick, sizes[si], caseless, drawn_engines,
                       sizeof drawn_engines / sizeof *drawn_engines, texts, ntexts);
    }
    free(pick);
    pat_list_free(&pl);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_hyperscan_counts DATA_DIR\n");
        return 2;
    }
    /* The files of text/ and logs/. */
    char dir[1024];
    text *texts = NULL, *logs = NULL;
    snprintf(dir, sizeof dir, "%s/text", argv[1]);
    size_t nt = load_texts(dir, &texts);
    snprintf(dir, sizeof dir, "%s/logs", argv[1]);
    size_t nl = load_texts(dir, &logs);
    texts = realloc(texts, (nt + nl + 1) * sizeof *texts);
    for (size_t i = 0; i < nl; i++)
        texts[nt++] = logs[i];
    free(logs);
    if (nt == 0) {
        printf("SKIP: no data in %s/text or %s/logs\n", argv[1], argv[1]);
        return TU_SKIP;
    }
    if (hs_valid_platform() != HS_SUCCESS) {
        printf("SKIP: Hyperscan cannot run on this CPU\n");
        return TU_SKIP;
    }
    const char *sv = getenv("HAY_SEED");
    uint64_t seed = sv && *sv ? strtoull(sv, NULL, 0) : 18;
    printf("Hyperscan %s, %zu text and log files, HAY_SEED=%" PRIu64 "\n", hs_version(),
           nt, seed);
    check_set(argv[1], "snort-community", false, texts, nt);
    check_set(argv[1], "snort-community", true, texts, nt);
    check_set(argv[1], "et-open", false, texts, nt);
    check_set(argv[1], "english-words", false, texts, nt);
    check_drawn(argv[1], "english-words", seed, texts, nt);
    check_drawn(argv[1], "snort-community", seed + 1, texts, nt);
    for (size_t i = 0; i < nt; i++)
        free(texts[i].data);
    free(texts);
    return tu_finish();
}

#else

int main(void)
{
    printf("SKIP: built without Hyperscan (pkg-config libhs not found)\n");
    return TU_SKIP;
}

#endif
