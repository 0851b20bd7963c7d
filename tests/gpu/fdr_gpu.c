/*
 * fdr_gpu.c - the CUDA engine fdr-gpu (src/cuda/fdr_gpu.h) on real pattern
 * sets against the CPU backend.
 *
 *   test_fdr_gpu <data dir>
 *
 * Exits 77 (skipped) when no CUDA device is usable; a data file that is
 * absent is skipped with a message.  For snort-community, et-open and
 * english-words (caseless) over every file of <data>/text, through
 * --algo fdr-gpu with the defaults and with small groups (domain 11) and a
 * list of 65,536 slots (the larger files' 1 MiB pieces overflow and are
 * searched again in parts, the next pieces are cut to fit; 4,096 slots made
 * thousands of round trips of a launch per group): counts, counts per
 * pattern, and the full list, compared with the CPU's as a multiset and
 * checked in order (ends, then ids, never decreasing).  Backend cuda's
 * choice without --algo is reported by hay_patterns_info with its reason.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hay_patterns *compile(hay_backend b, const char *algo, const hay_pattern *p, size_t n,
                             bool caseless, const char *params, hay_status *st)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = b;
    o.algo = algo;
    o.flags = caseless ? HAY_CASELESS : 0;
    o.params = params;
    hay_patterns *set = NULL;
    *st = hay_patterns_compile(p, n, &o, &set);
    return set;
}

/* The list, count and counts per pattern of `gpu` over d equal the CPU's
 * (want: the CPU's list, sorted; each: its counts per pattern). */
static void check_one(const hay_patterns *gpu, const uint8_t *d, size_t len,
                      const tu_keys *want, const uint64_t *each, size_t n, const char *what)
{
    hay_scratch *s = NULL;
    hay_scratch_create(gpu, &s);
    tu_keys got = { 0 };
    hay_status st = hay_scan(gpu, s, d, len, NULL, tu_key_cb, &got);
    CHECK(st == HAY_OK, "%s: list: %s", what, hay_strerror(st));
    CHECK(!got.keys_down, "%s: the list is out of order", what);
    tu_keys_sort(&got);
    CHECK(got.n == want->n && (!got.n || !memcmp(got.k, want->k, got.n * 8)),
          "%s: list of %zu matches, CPU %zu", what, got.n, want->n);
    uint64_t c = 0;
    st = hay_scan_count(gpu, s, d, len, NULL, &c);
    CHECK(st == HAY_OK && c == want->n, "%s: count %llu, CPU %zu", what,
          (unsigned long long)c, want->n);
    uint64_t *e = calloc(n, 8);
    st = hay_scan_count_each(gpu, s, d, len, NULL, e);
    CHECK(st == HAY_OK && !memcmp(e, each, n * 8), "%s: counts per pattern differ", what);
    free(e);
    free(got.k);
    hay_scratch_free(s);
}

static int sets_found;

static void test_set(const char *dir, const char *file, bool caseless)
{
    size_t n;
    uint8_t *store;
    hay_pattern *p = tu_data_patterns(dir, file, &n, &store);
    if (!p)
        return;
    char path[4096];
    sets_found++;
    hay_status st;
    hay_patterns *cpu = compile(HAY_BACKEND_CPU, NULL, p, n, caseless, NULL, &st);
    hay_patterns *fdr = compile(HAY_BACKEND_CUDA, "fdr-gpu", p, n, caseless, NULL, &st);
    CHECK(st == HAY_OK, "%s: compile fdr-gpu: %s", file, hay_strerror(st));
    hay_patterns *small = compile(HAY_BACKEND_CUDA, "fdr-gpu", p, n, caseless,
                                  "domain=11,group_max=1000,result_cap=65536,chunk=1M", &st);
    CHECK(st == HAY_OK, "%s: compile fdr-gpu, small groups: %s", file, hay_strerror(st));
    hay_patterns *dflt = compile(HAY_BACKEND_CUDA, NULL, p, n, caseless, NULL, &st);
    hay_patterns_info info;
    if (CHECK(dflt && hay_patterns_info_get(dflt, &info) == HAY_OK, "%s: default", file)) {
        CHECK(info.reason && info.reason[0] &&
              (!strcmp(info.algo, "pfac") || !strcmp(info.algo, "fdr-gpu")),
              "%s: default engine %s", file, info.algo);
        printf("%s: backend cuda chooses %s: %s\n", file, info.algo, info.reason);
    }
    snprintf(path, sizeof path, "%s/text", dir);
    DIR *dd = opendir(path);
    struct dirent *de;
    hay_scratch *s = NULL;
    hay_scratch_create(cpu, &s);
    while (cpu && fdr && small && dd && (de = readdir(dd))) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/text/%s", dir, de->d_name);
        size_t len;
        uint8_t *d = tu_read_file(path, &len);
        if (!d)
            continue;
        tu_keys want = { 0 };
        st = hay_scan(cpu, s, d, len, NULL, tu_key_cb, &want);
        tu_keys_sort(&want);
        uint64_t *each = calloc(n, 8);
        st = st == HAY_OK ? hay_scan_count_each(cpu, s, d, len, NULL, each) : st;
        CHECK(st == HAY_OK, "%s: the CPU: %s", file, hay_strerror(st));
        char what[512];
        snprintf(what, sizeof what, "%s%s over %s", file, caseless ? " -i" : "", de->d_name);
        check_one(fdr, d, len, &want, each, n, what);
        snprintf(what, sizeof what, "%s%s over %s, small groups and list", file,
                 caseless ? " -i" : "", de->d_name);
        check_one(small, d, len, &want, each, n, what);
        printf("%s%s over %s: %zu matches\n", file, caseless ? " -i" : "", de->d_name, want.n);
        free(each);
        free(want.k);
        free(d);
    }
    if (dd)
        closedir(dd);
    hay_scratch_free(s);
    hay_patterns_free(cpu);
    hay_patterns_free(fdr);
    hay_patterns_free(small);
    hay_patterns_free(dflt);
    free(p);
    free(store);
}

int main(int argc, char **argv)
{
    hay_status av = hay_backend_available(HAY_BACKEND_CUDA);
    if (av != HAY_OK) {
        printf("SKIP: CUDA backend: %s\n", hay_strerror(av));
        return TU_SKIP;
    }
    if (argc < 2) {
        printf("SKIP: no data directory\n");
        return TU_SKIP;
    }
    test_set(argv[1], "snort-community.txt", false);
    test_set(argv[1], "et-open.txt", false);
    test_set(argv[1], "english-words.txt", true);
    int rc = tu_finish();
    return sets_found ? rc : TU_SKIP;
}
