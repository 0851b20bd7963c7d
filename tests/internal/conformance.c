/*
 * conformance.c - every case of the conformance table (cases.c) on every
 * algorithm of every available backend, against the oracle.
 *
 * Each case runs with 0..34 pad bytes before and after it (the pad byte
 * occurs in no pattern, so expected offsets only shift); serially and with
 * 2 and 3 threads under both schedules; and with chunk sizes that put a
 * chunk boundary at every split point of every match.  Every run checks
 * hay_scan (ids, starts, ends, each match once, ends never decreasing, tie
 * order the same as the serial run) and hay_scan_count.  Callback stops
 * are checked at the first, a middle and the last match.
 *
 *   test_conformance          all available backends; "SKIP" lines for the rest
 *   test_conformance --gpu    GPU backends only; exits 77 when none is available
 */
#include "cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAD 34
#define MAX_ENGINES 48
/* Above this many split points the chunk sweep keeps a fixed set of sizes
 * (1..8, pattern lengths +-1, halves): with that many matches every
 * boundary already cuts through matches at every offset. */
#define MAX_SPLIT_SWEEP 2000
#define GPU_MAX_PIECES 64

typedef struct run_ctx {
    const tu_case *c;
    const tu_engine *e;
    const hay_patterns *set;
    hay_scratch *scratch;
    const tu_mlist *ref;   /* the serial run's sequence, unpadded */
} run_ctx;

static const char *sched_name(hay_schedule s)
{
    return s == HAY_SCHEDULE_STATIC ? "static" : "dynamic";
}

/* One hay_scan and one hay_scan_count of buf (the case with pb pad bytes
 * before it), checked against the oracle. */
static void run_one(const run_ctx *x, const uint8_t *buf, uint64_t len,
                    size_t pb, size_t pa, unsigned threads, hay_schedule sch,
                    size_t chunk)
{
    hay_scan_opts o = tu_scan_opts(threads, chunk, sch);

    tu_checker ck;
    tu_checker_init(&ck, &x->c->exp, pb, x->c->pats, x->c->npats);
    ck.ref = x->ref;
    ck.ref_shift = pb;
    hay_status s = hay_scan(x->set, x->scratch, buf, len, &o, tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, false);
    CHECK(s == HAY_OK && ok,
          "scan '%s' %s pad %zu+%zu threads %u %s chunk %zu: status %s; %s",
          x->c->name, x->e->label, pb, pa, threads, sched_name(sch), chunk,
          hay_strerror(s), ok ? "matches agree" : ck.err);
    tu_checker_free(&ck);

    uint64_t n = UINT64_MAX;
    s = hay_scan_count(x->set, x->scratch, buf, len, &o, &n);
    CHECK(s == HAY_OK && n == x->c->exp.n,
          "count '%s' %s pad %zu+%zu threads %u %s chunk %zu: status %s, "
          "count %llu, want %zu", x->c->name, x->e->label, pb, pa, threads,
          sched_name(sch), chunk, hay_strerror(s), (unsigned long long)n,
          x->c->exp.n);
}

/* Stops at the k-th match: HAY_STOPPED, exactly k calls, the first k of the
 * full sequence. */
static void run_stop(const run_ctx *x, uint64_t k, unsigned threads,
                     hay_schedule sch, size_t chunk)
{
    hay_scan_opts o = tu_scan_opts(threads, chunk, sch);
    tu_checker ck;
    tu_checker_init(&ck, &x->c->exp, 0, x->c->pats, x->c->npats);
    ck.ref = x->ref;
    ck.stop_after = k;
    hay_status s = hay_scan(x->set, x->scratch, x->c->hay, x->c->len, &o,
                            tu_check_cb, &ck);
    bool ok = tu_checker_done(&ck, true);
    CHECK(s == HAY_STOPPED && ok,
          "stop '%s' %s at match %llu of %zu, threads %u %s chunk %zu: "
          "status %s; %s", x->c->name, x->e->label, (unsigned long long)k,
          x->c->exp.n, threads, sched_name(sch), chunk, hay_strerror(s),
          ok ? "calls agree" : ck.err);
    tu_checker_free(&ck);
}

/* Chunk sizes: with size p a boundary falls at p, so taking every split
 * point of every match as a size puts a boundary inside each match at
 * each of its offsets. */
static size_t chunk_sizes(const tu_case *c, size_t *out, size_t cap)
{
    bool *split = calloc(c->len + 10, 1);   /* sizes up to max(len + 1, 8) */
    size_t n = 0, nsplit = 0;
    for (size_t i = 0; i < c->exp.n; i++)
        for (uint64_t p = c->exp.m[i].start + 1; p < c->exp.m[i].end; p++)
            if (!split[p]) {
                split[p] = true;
                nsplit++;
            }
    if (nsplit <= MAX_SPLIT_SWEEP) {
        for (size_t p = 1; p <= c->len && n < cap; p++)
            if (split[p])
                out[n++] = p;
    }
    for (size_t p = 1; p <= 8; p++)
        split[p] = true;
    for (size_t i = 0; i < c->npats; i++)
        for (size_t d = 0; d < 3; d++) {
            size_t p = c->pats[i].len + d - 1;
            if (p >= 1 && p <= c->len)
                split[p] = true;
        }
    if (c->len) {
        split[c->len] = true;
        split[(c->len + 1) / 2] = true;
    }
    /* Add the fixed sizes not yet listed. */
    for (size_t p = 1; p <= c->len + 1 && n < cap; p++) {
        if (!split[p])
            continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = out[k] == p;
        if (!seen)
            out[n++] = p;
    }
    if (n == 0)
        out[n++] = 1;
    free(split);
    return n;
}

/* Runs one case on one engine; counts in *ran the cases whose scans ran
 * and in *declined those a GPU backend would not compile. */
static void run_case_engine(const tu_case *c, const tu_engine *e, size_t *ran,
                            size_t *declined)
{
    /* Variants with a list of a few slots make a round trip with the
     * device per list (src/cuda/overflow.h): about one per match.  The
     * overflow logic does not depend on where the case lies (the host
     * model in cuda_overflow and gpu_list cover it), so they take a few
     * paddings and chunk sizes. */
    bool tiny_list = e->params && strstr(e->params, "result_cap=") != NULL;
    hay_patterns *set = TU_NOT_NULL;
    hay_status s = tu_compile(e, c->pats, c->npats, c->caseless, &set);
    if (c->npats > 1 && !e->multi) {
        CHECK(s == HAY_ERR_UNSUPPORTED && set == NULL,
              "'%s' (%zu patterns) on one-pattern engine %s: status %s, "
              "want HAY_ERR_UNSUPPORTED and a NULL set", c->name, c->npats,
              e->label, hay_strerror(s));
        if (s == HAY_OK)
            hay_patterns_free(set);
        return;
    }
    if (s == HAY_ERR_TOO_LARGE && e->algo && strcmp(e->algo, "teddy") == 0 &&
        c->npats > 64)
        return;   /* teddy's documented limit (src/cpu/teddy.h) */
    if (s == HAY_ERR_UNSUPPORTED && e->backend != HAY_BACKEND_CPU &&
        e->backend != HAY_BACKEND_AUTO) {
        (*declined)++;   /* a GPU backend may decline a set; never the CPU */
        return;
    }
    if (!CHECK(s == HAY_OK, "compile '%s' on %s: %s", c->name, e->label,
               hay_strerror(s)))
        return;
    hay_scratch *scratch = NULL;
    s = hay_scratch_create(set, &scratch);
    if (!CHECK(s == HAY_OK, "scratch '%s' on %s: %s", c->name, e->label,
               hay_strerror(s))) {
        hay_patterns_free(set);
        return;
    }
    (*ran)++;

    /* The reference: a serial run of the unpadded case, checked against
     * the oracle; later runs must repeat its sequence exactly. */
    tu_mlist ref = { 0 };
    run_ctx x = { c, e, set, scratch, NULL };
    {
        tu_checker ck;
        tu_checker_init(&ck, &c->exp, 0, c->pats, c->npats);
        ck.record = &ref;
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 1;
        s = hay_scan(set, scratch, c->hay, c->len, &o, tu_check_cb, &ck);
        bool ok = tu_checker_done(&ck, false);
        CHECK(s == HAY_OK && ok, "reference scan '%s' %s: %s; %s", c->name,
              e->label, hay_strerror(s), ok ? "ok" : ck.err);
        tu_checker_free(&ck);
        if (!ok)
            goto done;
        x.ref = &ref;
    }

    /* NULL data with length 0 is a valid empty haystack. */
    if (c->len == 0)
        run_one(&x, NULL, 0, 0, 0, 1, HAY_SCHEDULE_DYNAMIC, 0);

    /* Device backends search whole buffers (threads and schedules do not
     * reach them) and every call is a device round trip; they, and knob
     * variants (engines with params), take a lighter sweep: equal padding
     * before and after, the serial stop checks, a dozen chunk sizes on
     * CUDA (whose pieces follow chunk_size) and none on OpenCL (its own
     * piece boundaries are swept by tests/gpu/opencl.c). */
    bool device = e->backend == HAY_BACKEND_CUDA || e->backend == HAY_BACKEND_OPENCL;
    bool light = device || e->params != NULL;
    for (size_t pb = 0; pb <= MAX_PAD; pb++) {
        for (size_t pa = 0; pa <= MAX_PAD; pa++) {
            if (light && pa != pb)
                continue;
            /* Knob variants run the kernels of their base engine, which
             * gets every padding: they take the paddings around the
             * 1, 4, 8, 16 and 32-byte boundaries. */
            if (e->params && device && !(pb <= 1 || pb % 4 == 0 || pb % 4 == 3))
                continue;
            if (tiny_list && pb > 4)
                continue;
            uint8_t *buf = tu_case_padded(c, pb, pa);
            uint64_t len = pb + c->len + pa;
            /* transfer=register pins only shared mappings in place (heap
             * inputs are staged): give it one, at an odd page offset. */
            uint8_t *shm = NULL;
            size_t shm_len = len + 4096;
            if (e->params && strstr(e->params, "transfer=register") && len &&
                (shm = tu_shared_alloc(NULL, shm_len)) != NULL) {
                uint8_t *at = shm + (pb * 37 + 4000) % 4096;
                memcpy(at, buf, len);
                free(buf);
                buf = at;
            }
            run_one(&x, buf, len, pb, pa, 1, HAY_SCHEDULE_DYNAMIC, 0);
            /* Equal shares (chunk = len: one share per thread); the
             * padding moves the share boundaries across the matches. */
            if (pa % 3 == pb % 3 && !device)
                run_one(&x, buf, len, pb, pa, 2 + (unsigned)((pb + pa) % 2),
                        HAY_SCHEDULE_STATIC, len ? len : 1);
            if (pa == pb && !device)
                run_one(&x, buf, len, pb, pa, 2, HAY_SCHEDULE_DYNAMIC, 5);
            if (shm)
                tu_shared_free(shm, shm_len);
            else
                free(buf);
        }
    }

    size_t cap = c->len + 64;
    size_t *sizes = malloc(cap * sizeof *sizes);
    size_t ns = e->backend == HAY_BACKEND_OPENCL ? 0 : chunk_sizes(c, sizes, cap);
    size_t sweep = tiny_list ? 4 : 12;
    size_t step = light && ns > sweep ? ns / sweep : 1;
    /* A GPU scan pays a launch and a synchronisation per piece (a round
     * trip that waits for the other processes' work on a shared GPU):
     * chunk sizes that cut the input in more than GPU_MAX_PIECES pieces
     * are left to the CPU engines (the piece logic is the same for every
     * size; tests/gpu/gpu_list.c puts matches across every boundary).
     * Schedules do not reach a device: one run there, not two alike. */
    for (size_t i = 0; i < ns; i += step)
        for (unsigned t = 2; t <= (light ? 2u : 3u); t++) {
            if (device && c->len / sizes[i] > GPU_MAX_PIECES)
                continue;
            run_one(&x, c->hay, c->len, 0, 0, t, HAY_SCHEDULE_DYNAMIC, sizes[i]);
            if (!device)
                run_one(&x, c->hay, c->len, 0, 0, t, HAY_SCHEDULE_STATIC, sizes[i]);
        }
    free(sizes);
    /* Defaults: all cores, default chunk (small inputs stay serial). */
    run_one(&x, c->hay, c->len, 0, 0, 0, HAY_SCHEDULE_DYNAMIC, 0);
    if (!device)
        run_one(&x, c->hay, c->len, 0, 0, 0, HAY_SCHEDULE_STATIC, 0);

    if (c->exp.n) {
        uint64_t ks[3] = { 1, (c->exp.n + 1) / 2, c->exp.n };
        for (int i = 0; i < 3; i++) {
            if (i && ks[i] == ks[i - 1])
                continue;
            run_stop(&x, ks[i], 1, HAY_SCHEDULE_DYNAMIC, 0);
            if (light)
                continue;
            run_stop(&x, ks[i], 2, HAY_SCHEDULE_DYNAMIC, 3);
            run_stop(&x, ks[i], 3, HAY_SCHEDULE_DYNAMIC, 1);
            run_stop(&x, ks[i], 2, HAY_SCHEDULE_STATIC, 7);
            run_stop(&x, ks[i], 3, HAY_SCHEDULE_STATIC, c->len);
        }
    }
done:
    tu_mlist_free(&ref);
    hay_scratch_free(scratch);
    hay_patterns_free(set);
}

/* The one-pattern engines must say so for multi-pattern sets; the others
 * must accept them. */
static void check_engine_kinds(const tu_engine *es, size_t n)
{
    static const char *const single[] = { "bm", "horspool", "simd" };
    static const char *const multi[] = { "naive", "ac", "dfa", "pfac", "teddy",
                                         "fdr", "fdr-gpu" };
    for (size_t i = 0; i < n; i++) {
        const tu_engine *e = &es[i];
        if (!e->algo)
            continue;
        bool want_multi = false, known = false;
        for (size_t k = 0; k < 3; k++)
            if (strcmp(e->algo, single[k]) == 0)
                known = true;
        for (size_t k = 0; k < sizeof multi / sizeof *multi; k++)
            if (strcmp(e->algo, multi[k]) == 0)
                known = want_multi = true;
        /* On every backend (only available ones are listed) a
         * multi-pattern engine must take two literals: a GPU engine that
         * refused every set would otherwise pass, its cases declined
         * (backend cuda's default then runs PFAC). */
        if ((e->backend == HAY_BACKEND_CPU && known) || want_multi)
            CHECK(e->probe == (want_multi ? HAY_OK : HAY_ERR_UNSUPPORTED),
                  "%s with two patterns: %s, want %s", e->label,
                  hay_strerror(e->probe),
                  want_multi ? "HAY_OK" : "HAY_ERR_UNSUPPORTED");
        else
            CHECK(e->probe == HAY_OK || e->probe == HAY_ERR_UNSUPPORTED,
                  "%s with two patterns: %s", e->label, hay_strerror(e->probe));
    }
}

/*
 * The CUDA knobs (src/cuda/cuda_engine.h) that change how a kernel or the
 * pipeline works, each value in at least one combination: table form,
 * root row, staging, block size, bytes per thread, transfer mode (pinned
 * staging, pageable, the input pinned in place in blocks), streams,
 * and a result list of one slot, which sends every piece with two or more
 * matches through the overflow path (searched again in parts that fit,
 * src/cuda/overflow.h) and the host fallback; those take fewer paddings
 * and chunk sizes (run_case_engine).
 */
static const char *const cuda_pfac_knobs[] = {
    "table=tex,stage=1,loop=round",
    "table=compact,loop=round",
    "stage=1,bpt=16",
    "root=global,stage=0,bpt=1",
    "table=tex,root=global,stage=1,bpt=4,block=32",
    "table=compact,root=shared,stage=0,bpt=4,block=64",
    "table=ldg,root=shared,stage=1,bpt=1,block=1024",
    "table=ldg,root=global,stage=1,bpt=64,block=32",
    "transfer=pageable,streams=1",
    "transfer=register",
    "transfer=register,chunk=5000,streams=2",
    "streams=8,result_cap=3",
    "result_cap=1,bpt=1",
};

/* fdr-gpu's (src/cuda/fdr_gpu.h): small groups (the input read once per
 * group; one literal a group made the 300-pattern case take minutes),
 * every filter domain, runs of one word and of 1,024 bytes, block shapes,
 * and list capacities that force the overflow path. */
static const char *const cuda_fdr_knobs[] = {
    "group_max=16",
    "group_max=40,domain=10,run=16",
    "domain=14,run=1024,threads=64",
    "domain=12,run=48,threads=1024",
    "result_cap=1,run=16",
    "streams=8,result_cap=3,group_max=64",
    "transfer=register,chunk=5000,streams=2",
};

static void add_cuda_variants(tu_engine *engines, size_t first, size_t *ne)
{
    static const struct {
        const char *algo;
        const char *const *knobs;
        size_t n;
    } sets[] = {
        { "pfac", cuda_pfac_knobs, sizeof cuda_pfac_knobs / sizeof *cuda_pfac_knobs },
        { "fdr-gpu", cuda_fdr_knobs, sizeof cuda_fdr_knobs / sizeof *cuda_fdr_knobs },
    };
    size_t end = *ne;
    for (size_t i = first; i < end; i++) {
        for (size_t a = 0; a < sizeof sets / sizeof *sets; a++) {
            if (!engines[i].algo || strcmp(engines[i].algo, sets[a].algo) != 0)
                continue;
            for (size_t k = 0; k < sets[a].n; k++) {
                tu_engine base = engines[i];
                hay_status s = tu_engine_variant(&base, sets[a].knobs[k], engines, ne,
                                                 MAX_ENGINES);
                CHECK(s == base.probe, "%s with %s: %s, want %s", base.label,
                      sets[a].knobs[k], hay_strerror(s), hay_strerror(base.probe));
                if (s == base.probe)
                    printf("variant '%s': params %s\n", engines[*ne - 1].label,
                           sets[a].knobs[k]);
            }
        }
    }
    /* Bad knobs are refused (by the PFAC engine: the one-pattern engines
     * decline a two-pattern set before they read their knobs). */
    size_t pf = first;
    for (size_t i = first; i < end; i++)
        if (engines[i].algo && strcmp(engines[i].algo, "pfac") == 0)
            pf = i;
    static const char *const bad[] = { "bpt=0", "block=33", "table=foo",
                                       "nosuchkey=1", "streams=9", "chunk=x" };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        tu_engine e = engines[pf];
        e.params = bad[k];
        static const hay_pattern two[2] = { { "ab", 2 }, { "cd", 2 } };
        hay_patterns *set = TU_NOT_NULL;
        hay_status s = tu_compile(&e, two, 2, false, &set);
        CHECK(s == HAY_ERR_INVALID && set == NULL, "cuda params '%s': %s, want "
              "HAY_ERR_INVALID", bad[k], hay_strerror(s));
        if (s == HAY_OK)
            hay_patterns_free(set);
    }
}

int main(int argc, char **argv)
{
    bool gpu_only = argc > 1 && strcmp(argv[1], "--gpu") == 0;
    static const hay_backend backends[] = { HAY_BACKEND_CPU, HAY_BACKEND_CUDA,
                                            HAY_BACKEND_OPENCL };
    tu_engine engines[MAX_ENGINES];
    size_t ne = 0;
    /* Without --gpu the CPU engines; with it the GPU backends (the
     * conformance_gpu test), so that neither run repeats the other. */
    for (size_t b = 0; b < 3; b++) {
        if (gpu_only != (backends[b] != HAY_BACKEND_CPU))
            continue;
        hay_status av = hay_backend_available(backends[b]);
        if (av != HAY_OK) {
            printf("SKIP: backend %s: %s\n", hay_backend_name(backends[b]),
                   hay_strerror(av));
            CHECK(av == HAY_ERR_NO_BACKEND || av == HAY_ERR_NO_DEVICE,
                  "hay_backend_available(%s) = %s",
                  hay_backend_name(backends[b]), hay_strerror(av));
            continue;
        }
        size_t first = ne;
        ne += tu_engines(backends[b], engines + ne, MAX_ENGINES - ne);
        if (backends[b] == HAY_BACKEND_CUDA)
            add_cuda_variants(engines, first, &ne);
    }
    if (gpu_only && ne == 0) {
        printf("SKIP: no GPU backend available\n");
        tu_finish();
        return TU_SKIP;
    }
    check_engine_kinds(engines, ne);

    tu_case *cases;
    size_t nc = tu_cases_build(&cases);
    size_t *ran = calloc(ne, sizeof *ran), *declined = calloc(ne, sizeof *declined);
    double *took = calloc(ne, sizeof *took);
    for (size_t i = 0; i < nc; i++) {
        double t0 = tu_now();
        for (size_t k = 0; k < ne; k++) {
            double e0 = tu_now();
            run_case_engine(&cases[i], &engines[k], &ran[k], &declined[k]);
            took[k] += tu_now() - e0;
        }
        printf("case %-44s %4zu matches %7.3f s\n", cases[i].name,
               cases[i].exp.n, tu_now() - t0);
        fflush(stdout);
    }
    size_t total = 0;
    for (size_t k = 0; k < ne; k++) {
        printf("engine %-16s scanned %zu of %zu cases in %.1f s", engines[k].label, ran[k],
               nc, took[k]);
        if (declined[k])
            printf(", SKIP %zu (the backend declined the pattern set)", declined[k]);
        printf("\n");
        total += ran[k];
    }
    printf("%zu cases x %zu engines\n", nc, ne);
    free(ran);
    free(declined);
    free(took);
    tu_cases_free(cases, nc);
    if (gpu_only && total == 0) {
        printf("SKIP: the GPU backends compiled none of the cases\n");
        tu_finish();
        return TU_SKIP;
    }
    return tu_finish();
}
