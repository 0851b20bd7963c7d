/*
 * ocl_bench.c - the PFAC paper's Figure 7/8 table on any OpenCL device
 * (pfac-opencl-mobile-energy.txt, section 7.2): for each combination of
 * transfer mode, local memory, work-group size and bytes per work-item,
 * the time and energy of each phase (initialization, preparation, write,
 * kernel, read), against the sequential CPU automaton.
 *
 *   hay_ocl_bench --data DIR [--size 10M] [--npat 1000] [--maxlen 128]
 *                 [--runs 5] [--device P:D] [--csv FILE] [--rows paper|all]
 *   hay_ocl_bench --sw QUERY.fa TARGET.fa [--runs 5] [--device P:D]
 *
 * Workload as in the paper: the first 1,000 Snort content strings of at
 * most 128 bytes (DIR/patterns/snort-community.txt, \xHH decoded) over
 * 10 MB of text (the .txt files of DIR/text concatenated, whole files round-robin,
 * cut at 10 MB).  Every run delivers the full match list to the host in
 * order (hay_scan with a callback), and every run's count is checked
 * against the CPU's; a mismatch marks the row FAIL and the exit status 1.
 *
 * Phases: "init" is measured in fresh child processes (fork before any
 * OpenCL call) because a process pays it once: cold = program built from
 * source (cache=0), warm = loaded from the on-disk cache.  "prepare" is
 * the automaton on the CPU plus its tables on the device, per compile.
 * write, kernel and read are medians of --runs scans after one warm-up.
 * Energy (NVIDIA, NVML): the driver's counter advances in steps of tens of
 * milliseconds, longer than a phase, so each row then scans for 1.5 s and
 * reports each phase's mean joules per scan (prepare: mean over the runs);
 * the device's idle power (1 s of sleep, before the rows) is printed so
 * that it can be subtracted.
 *
 * --sw times the anti-diagonal Smith-Waterman kernel on one DNA pair
 * (match 2, mismatch -3, gap open 5, extend 2) and checks its score, cell
 * and tie rule against a scalar reference computed here.
 *
 * Internals: the paper's knobs (transfer mode, local memory, work-group
 * size) and the per-phase times are the OpenCL backend's own interface
 * (src/opencl/hay_opencl.h), the --sw kernel is the device contract of
 * src/align/sw_device.h, and the meter is src/core/energy.h; none of them
 * is public API, so this program links the static library.
 */
#include "haystack.h"
#include "../programs/patfile.h"
#include "../src/opencl/hay_opencl.h"
#include "../src/align/sw_device.h"
#include "../src/core/energy.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

#define MAX_RUNS 64
#define ENERGY_SECONDS 1.5

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The text files of dir/text, whole, round-robin up to `size` bytes. */
static uint8_t *build_text(const char *dir, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/text", dir);
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64)
        if (strstr(e->d_name, ".txt"))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    uint8_t *out = n ? malloc(size) : NULL;
    size_t have = 0;
    for (int round = 0; out && have < size && round < 1000; round++)
        for (int i = 0; i < n && have < size; i++) {
            snprintf(path, sizeof path, "%s/text/%s", dir, names[i]);
            size_t len;
            uint8_t *f = read_all(path, &len);
            if (!f)
                continue;
            size_t take = len < size - have ? len : size - have;
            memcpy(out + have, f, take);
            have += take;
            free(f);
        }
    for (int i = 0; i < n; i++)
        free(names[i]);
    if (have < size) {
        free(out);
        return NULL;
    }
    return out;
}

typedef struct row {
    const char *transfer;
    int local, wg, bpw;
} row;

/* Figure 7/8's rows (the paper's first optimisation step is map instead
 * of copy, then local memory off, then the work-group size, then the
 * bytes per work-item), then copy-mode rows for discrete GPUs and rows
 * through a pinned staging buffer (not in the paper). */
static const row paper_rows[] = {
    { "copy", 1, 128, 1 }, { "map", 1, 128, 1 }, { "map", 0, 128, 1 },
    { "map", 0, 64, 1 }, { "map", 0, 256, 1 }, { "map", 0, 256, 4 },
    { "map", 0, 256, 8 }, { "map", 0, 256, 12 }, { "map", 0, 256, 16 },
    { "copy", 0, 256, 1 }, { "copy", 0, 256, 4 }, { "copy", 0, 256, 8 },
    { "copy", 0, 256, 16 }, { "copy", 1, 256, 8 },
    { "pinned", 0, 256, 1 }, { "pinned", 0, 256, 4 }, { "pinned", 0, 256, 8 },
};

typedef struct cfg {
    const char *data, *device, *csv, *rows;
    size_t size, npat, maxlen;
    int runs;
} cfg;

static hay_status compile_ocl(const hay_pattern *p, size_t n, const char *params,
                              hay_patterns **set)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = HAY_BACKEND_OPENCL;
    o.algo = "pfac";
    o.params = params;
    return hay_patterns_compile(p, n, &o, set);
}

static int count_cb(uint32_t id, uint64_t s, uint64_t e, void *ctx)
{
    (void)id; (void)s; (void)e;
    ++*(uint64_t *)ctx;
    return 0;
}

/* Initialization in a fresh process: seconds and joules through a pipe. */
static int init_child(const hay_pattern *p, size_t n, const char *params,
                      double out[2])
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        double v[2] = { -1, -1 };
        hay_patterns *set;
        if (compile_ocl(p, n, params, &set) == HAY_OK) {
            hay_scratch *sc;
            hay_scratch_create(set, &sc);
            hay_scan_stats st;
            hay_scan_opts o;
            hay_scan_opts_init(&o);
            o.stats = &st;
            uint64_t c;
            if (hay_scan_count(set, sc, "x", 1, &o, &c) == HAY_OK) {
                v[0] = st.init_seconds;
                v[1] = st.init_joules;
            }
            hay_scratch_free(sc);
            hay_patterns_free(set);
        }
        ssize_t w = write(fd[1], v, sizeof v);
        _exit(w == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fd[1]);
    ssize_t r = read(fd[0], out, 2 * sizeof *out);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return r == (ssize_t)(2 * sizeof *out) && out[0] >= 0 ? 0 : -1;
}

/* FASTA to codes 0..3 (A, C, G, T; other letters skipped). */
static uint8_t *read_dna(const char *path, size_t *n)
{
    size_t len;
    uint8_t *f = read_all(path, &len);
    if (!f)
        return NULL;
    uint8_t *c = malloc(len ? len : 1);
    size_t k = 0;
    bool header = false;
    for (size_t i = 0; i < len; i++) {
        if (f[i] == '>')
            header = true;
        if (f[i] == '\n') {
            header = false;
            continue;
        }
        const char *acgt = "ACGT", *hit = header ? NULL : memchr(acgt, f[i] & ~0x20, 4);
        if (hit)
            c[k++] = (uint8_t)(hit - acgt);
    }
    free(f);
    *n = k;
    return c;
}

/* Gotoh, row by row; the first best cell in row-major order. */
static void sw_scalar(const hay_sw_problem *p, int32_t *score, uint64_t *qe, uint64_t *te)
{
    const int32_t NEG = -(1 << 29);
    int32_t *h = calloc(p->n + 1, 4), *f = malloc((p->n + 1) * 4);
    for (size_t j = 0; j <= p->n; j++)
        f[j] = NEG;
    *score = 0;
    *qe = *te = 0;
    for (size_t i = 0; i < p->m; i++) {
        int32_t diag = 0, e = NEG, left = 0;
        const int32_t *mrow = p->matrix + p->q[i] * p->alpha;
        for (size_t j = 0; j < p->n; j++) {
            int32_t up = h[j + 1];
            int32_t e1 = e - p->gap_extend, e2 = left - p->gap_open;
            e = e1 > e2 ? e1 : e2;
            int32_t f1 = f[j + 1] - p->gap_extend, f2 = up - p->gap_open;
            int32_t fv = f1 > f2 ? f1 : f2;
            f[j + 1] = fv;
            int32_t v = diag + mrow[p->t[j]];
            v = v > 0 ? v : 0;
            v = v > e ? v : e;
            v = v > fv ? v : fv;
            diag = up;
            h[j + 1] = left = v;
            if (v > *score) {
                *score = v;
                *qe = i;
                *te = j;
            }
        }
    }
    free(h);
    free(f);
}

static int sw_main(const char *qpath, const char *tpath, int runs, const char *device)
{
    size_t m, n;
    uint8_t *q = read_dna(qpath, &m), *t = read_dna(tpath, &n);
    if (!q || !t || !m || !n) {
        fprintf(stderr, "hay_ocl_bench: cannot read DNA from %s and %s\n", qpath, tpath);
        return 2;
    }
    int32_t mat[16];
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            mat[a * 4 + b] = a == b ? 2 : -3;
    hay_sw_problem p = { q, m, t, n, mat, 4, 5, 2 };
    double t0 = bench_now();
    int32_t want;
    uint64_t qe, te;
    sw_scalar(&p, &want, &qe, &te);
    double scalar = bench_now() - t0;
    char params[96] = "";
    if (device)
        snprintf(params, sizeof params, "device=%s", device);
    double tot[MAX_RUNS], comp[MAX_RUNS], sync[MAX_RUNS], copy[MAX_RUNS];
    hay_sw_device_result r;
    int bad = 0;
    for (int k = 0; k <= runs; k++) {   /* run 0: warm-up (program, first launch) */
        int s = hay_opencl_sw_score(&p, "simple", device ? params : NULL, &r);
        if (s != 0 || r.score != want || r.q_end != qe || r.t_end != te) {
            fprintf(stderr, "sw: status %d score %d at (%llu, %llu), scalar %d at (%llu, %llu)\n",
                    s, r.score, (unsigned long long)r.q_end, (unsigned long long)r.t_end,
                    want, (unsigned long long)qe, (unsigned long long)te);
            bad = 1;
        }
        if (k) {
            tot[k - 1] = r.seconds_total;
            comp[k - 1] = r.seconds_compute;
            sync[k - 1] = r.seconds_sync;
            copy[k - 1] = r.seconds_copy;
        }
    }
    double mt = bench_median(tot, runs);
    printf("sw simple: %s (%zu) x %s (%zu) = %.0f Mcells, score %d at (%llu, %llu) %s; "
           "device: total %.1f ms (compute %.1f, launches/sync %.1f, copy %.1f), "
           "%.2f GCUPS, %d launches of %d x %d; scalar CPU reference %.1f ms (%.2f GCUPS)\n",
           qpath, m, tpath, n, (double)m * n / 1e6, want, (unsigned long long)qe,
           (unsigned long long)te, bad ? "MISMATCH" : "ok", mt * 1e3,
           bench_median(comp, runs) * 1e3, bench_median(sync, runs) * 1e3,
           bench_median(copy, runs) * 1e3,
           (double)m * n / mt / 1e9, (int)(m + n - 1), r.blocks, r.threads, scalar * 1e3,
           (double)m * n / scalar / 1e9);
    free(q);
    free(t);
    return bad;
}

static void usage(void)
{
    fprintf(stderr, "usage: hay_ocl_bench --data DIR [--size 10M] [--npat 1000] "
                    "[--maxlen 128] [--runs 5] [--device P:D] [--csv FILE] "
                    "[--rows paper|all]\n"
                    "       hay_ocl_bench --sw QUERY.fa TARGET.fa [--runs 5] [--device P:D]\n");
}

static const char *fmt_j(double j, char *buf, size_t cap)
{
    if (j < 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.3f", j);
    return buf;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* rows appear as they finish */
    cfg c = { NULL, NULL, NULL, "paper", (size_t)10 << 20, 1000, 128, 5 };
    const char *sw_q = NULL, *sw_t = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sw") && i + 2 < argc) {
            sw_q = argv[++i];
            sw_t = argv[++i];
            continue;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (!strcmp(a, "--data"))
            c.data = v;
        else if (!strcmp(a, "--device"))
            c.device = v;
        else if (!strcmp(a, "--csv"))
            c.csv = v;
        else if (!strcmp(a, "--rows"))
            c.rows = v;
        else if (!strcmp(a, "--size"))
            c.size = (size_t)strtoull(v, NULL, 10) << (strchr(v, 'M') ? 20 : strchr(v, 'K') ? 10 : 0);
        else if (!strcmp(a, "--npat"))
            c.npat = (size_t)strtoull(v, NULL, 10);
        else if (!strcmp(a, "--maxlen"))
            c.maxlen = (size_t)strtoull(v, NULL, 10);
        else if (!strcmp(a, "--runs"))
            c.runs = atoi(v);
        else {
            usage();
            return 2;
        }
    }
    if (sw_q && c.runs >= 1 && c.runs <= MAX_RUNS)
        return sw_main(sw_q, sw_t, c.runs, c.device);
    if (!c.data || c.runs < 1 || c.runs > MAX_RUNS || !c.size || !c.npat) {
        usage();
        return 2;
    }

    /* Patterns: the first npat Snort content strings of at most maxlen. */
    char path[1024];
    snprintf(path, sizeof path, "%s/patterns/snort-community.txt", c.data);
    size_t plen;
    uint8_t *ptext = read_all(path, &plen);
    if (!ptext) {
        fprintf(stderr, "hay_ocl_bench: cannot read %s\n", path);
        return 2;
    }
    pat_list all = { 0 };
    char err[256];
    if (pat_list_add_text(&all, ptext, plen, true, true, path, err, sizeof err) < 0) {
        fprintf(stderr, "hay_ocl_bench: %s\n", err);
        return 2;
    }
    hay_pattern *pats = malloc(c.npat * sizeof *pats);
    size_t np = 0;
    for (size_t i = 0; i < all.n && np < c.npat; i++)
        if (all.items[i].len <= c.maxlen)
            pats[np++] = all.items[i];
    uint8_t *text = build_text(c.data, c.size);
    if (!text) {
        fprintf(stderr, "hay_ocl_bench: cannot build %zu bytes of text from %s/text\n",
                c.size, c.data);
        return 2;
    }
    char dev_param[96] = "";
    if (c.device)
        snprintf(dev_param, sizeof dev_param, "device=%s,", c.device);

    /* Initialization, in fresh processes (before this one touches OpenCL). */
    double init_cold[MAX_RUNS], init_warm[MAX_RUNS], initj_cold = 0, initj_warm = 0;
    int ncold = 0, nwarm = 0;
    char params[256];
    for (int r = 0; r < c.runs; r++) {
        double v[2];
        snprintf(params, sizeof params, "%scache=0", dev_param);
        if (init_child(pats, np, params, v) == 0) {
            init_cold[ncold++] = v[0];
            initj_cold = v[1] < 0 || initj_cold < 0 ? -1 : initj_cold + v[1];
        }
        snprintf(params, sizeof params, "%scache=1", dev_param);
        if (init_child(pats, np, params, v) == 0) {
            init_warm[nwarm++] = v[0];
            initj_warm = v[1] < 0 || initj_warm < 0 ? -1 : initj_warm + v[1];
        }
    }
    if (!ncold || !nwarm) {
        fprintf(stderr, "hay_ocl_bench: no OpenCL device could compile the patterns\n");
        return 2;
    }
    double ic = bench_median(init_cold, ncold), iw = bench_median(init_warm, nwarm);

    /* The device's idle power, to subtract from the phases if wanted. */
    double idle_w = -1;
    hay_energy *meter = hay_energy_open(-1, -1);
    if (meter) {
        double j0 = hay_energy_read(meter), s0 = bench_now();
        usleep(1000000);
        double j1 = hay_energy_read(meter), s1 = bench_now();
        if (j0 >= 0 && j1 >= 0)
            idle_w = (j1 - j0) / (s1 - s0);
        printf("idle power: %.1f W (%s)\n", idle_w, hay_energy_method(meter));
        hay_energy_close(meter);
    }

    /* The CPU: the sequential automaton (the paper's baseline) and all cores. */
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = HAY_BACKEND_CPU;
    hay_patterns *cpu;
    if (hay_patterns_compile(pats, np, &co, &cpu) != HAY_OK) {
        fprintf(stderr, "hay_ocl_bench: CPU compile failed\n");
        return 2;
    }
    hay_scratch *sc;
    hay_scratch_create(cpu, &sc);
    double t1[MAX_RUNS], tall[MAX_RUNS];
    uint64_t want = 0;
    for (int r = 0; r <= c.runs; r++) {
        hay_scan_opts o;
        hay_scan_opts_init(&o);
        o.threads = 1;
        uint64_t n = 0;
        double t0 = bench_now();
        hay_scan(cpu, sc, text, c.size, &o, count_cb, &n);
        if (r)
            t1[r - 1] = bench_now() - t0;
        want = n;
        o.threads = 0;
        n = 0;
        t0 = bench_now();
        hay_scan(cpu, sc, text, c.size, &o, count_cb, &n);
        if (r)
            tall[r - 1] = bench_now() - t0;
    }
    double cpu1 = bench_median(t1, c.runs), cpun = bench_median(tall, c.runs);
    hay_patterns_info info;
    hay_patterns_info_get(cpu, &info);
    char desc[512] = "";
    hay_device_describe(HAY_BACKEND_OPENCL, 0, desc, sizeof desc);
    printf("# PFAC on OpenCL, pfac-opencl-mobile-energy.txt Figure 7/8\n\n");
    printf("device: %s%s%s\n", desc, c.device ? "; selected " : "", c.device ? c.device : "");
    printf("workload: %zu Snort patterns (<= %zu bytes) over %zu bytes of text; "
           "%llu matches; runs %d (medians)\n", np, c.maxlen, c.size,
           (unsigned long long)want, c.runs);
    printf("CPU %s: 1 thread %.2f ms, all cores %.2f ms (matches to a callback)\n",
           info.algo, cpu1 * 1e3, cpun * 1e3);
    char jb[32], jb2[32];
    printf("init (context + program), fresh process: built from source %.1f ms "
           "(%s J), from the binary cache %.1f ms (%s J)\n\n", ic * 1e3,
           fmt_j(initj_cold < 0 ? -1 : initj_cold / ncold, jb, sizeof jb), iw * 1e3,
           fmt_j(initj_warm < 0 ? -1 : initj_warm / nwarm, jb2, sizeof jb2));

    FILE *csv = c.csv ? fopen(c.csv, "w") : NULL;
    if (csv)
        fprintf(csv, "transfer,local,wg,bpw,table,prepare_ms,write_ms,kernel_ms,read_ms,"
                     "gpu_total_ms,tx_overhead,speedup_vs_cpu1,prepare_j,write_j,kernel_j,"
                     "read_j,energy_method,idle_w,energy_scans,matches,ok\n");
    printf("| transfer | local | wg | bpw | prepare ms | write ms | kernel ms | read ms | "
           "total ms | tx ovh | vs CPU 1T | vs CPU all | J write | J kernel | J read | check |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int bad = 0;
    /* the paper's nine rows, or also the copy-mode ones */
    size_t nrows = !strcmp(c.rows, "all") ? sizeof paper_rows / sizeof paper_rows[0] : 9;
    const char *method = "unavailable";
    for (size_t ri = 0; ri < nrows; ri++) {
        const row *w = &paper_rows[ri];
        snprintf(params, sizeof params, "%stransfer=%s,local=%d,wg=%d,bpw=%d", dev_param,
                 w->transfer, w->local, w->wg, w->bpw);
        double prep[MAX_RUNS], wr[MAX_RUNS], kr[MAX_RUNS], rd[MAX_RUNS];
        double jp = 0, jw = 0, jk = 0, jr = 0;
        bool ok = true, ran = true;
        char how[512] = "";
        for (int r = 0; r < c.runs && ran; r++) {
            hay_patterns *set;
            hay_status s = compile_ocl(pats, np, params, &set);
            if (s != HAY_OK) {
                printf("| %s | %d | %d | %d | %s |\n", w->transfer, w->local, w->wg,
                       w->bpw, hay_strerror(s));
                ran = false;
                break;
            }
            hay_opencl_describe_set(set, how, sizeof how);
            hay_scratch *gs;
            hay_scratch_create(set, &gs);
            /* one warm-up scan (it carries the prepare phase), then the timed one */
            for (int k = 0; k < 2; k++) {
                hay_scan_stats st;
                hay_scan_opts o;
                hay_scan_opts_init(&o);
                o.stats = &st;
                uint64_t n = 0;
                s = hay_scan(set, gs, text, c.size, &o, count_cb, &n);
                ok = ok && s == HAY_OK && n == want;
                if (k == 0) {
                    prep[r] = st.prepare_seconds;
                    jp = st.prepare_joules < 0 || jp < 0 ? -1 : jp + st.prepare_joules;
                    continue;
                }
                wr[r] = st.copy_in_seconds;
                kr[r] = st.kernel_seconds;
                rd[r] = st.copy_out_seconds;
                jw = st.copy_in_joules < 0 || jw < 0 ? -1 : jw + st.copy_in_joules;
                jk = st.kernel_joules < 0 || jk < 0 ? -1 : jk + st.kernel_joules;
                jr = st.copy_out_joules < 0 || jr < 0 ? -1 : jr + st.copy_out_joules;
                method = st.energy_method ? st.energy_method : "unavailable";
            }
            hay_scratch_free(gs);
            hay_patterns_free(set);
        }
        if (!ran) {
            bad = 1;
            continue;
        }
        /* Energy: the counter moves in steps of ~20 ms, far longer than a
         * phase, so scan for at least ENERGY_SECONDS and take the mean. */
        int reps = 0;
        if (strcmp(method, "unavailable") != 0) {
            hay_patterns *set;
            if (compile_ocl(pats, np, params, &set) == HAY_OK) {
                hay_scratch *gs;
                hay_scratch_create(set, &gs);
                jw = jk = jr = 0;
                double t_end = bench_now() + ENERGY_SECONDS;
                for (int k = 0; bench_now() < t_end || k < 2; k++) {
                    hay_scan_stats st;
                    hay_scan_opts o;
                    hay_scan_opts_init(&o);
                    o.stats = &st;
                    uint64_t n = 0;
                    ok = ok && hay_scan(set, gs, text, c.size, &o, count_cb, &n) == HAY_OK &&
                         n == want;
                    if (k == 0)
                        continue;   /* it carries the prepare phase */
                    jw += st.copy_in_joules;
                    jk += st.kernel_joules;
                    jr += st.copy_out_joules;
                    reps++;
                }
                hay_scratch_free(gs);
                hay_patterns_free(set);
            }
        }
        int jdiv = reps ? reps : c.runs;
        double mp = bench_median(prep, c.runs), mw = bench_median(wr, c.runs),
               mk = bench_median(kr, c.runs), mr = bench_median(rd, c.runs),
               tot = mw + mk + mr;
        const char *table = strstr(how, "table=dense") ? "dense" : "compact";
        char a[32], b[32], d[32];
        printf("| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f%% | %.1fx | "
               "%.1fx | %s | %s | %s | %s |\n", w->transfer, w->local ? "yes" : "no", w->wg,
               w->bpw, mp * 1e3, mw * 1e3, mk * 1e3, mr * 1e3, tot * 1e3,
               100 * (mw + mr) / tot, cpu1 / tot, cpun / tot,
               fmt_j(jw < 0 ? -1 : jw / jdiv, a, sizeof a),
               fmt_j(jk < 0 ? -1 : jk / jdiv, b, sizeof b),
               fmt_j(jr < 0 ? -1 : jr / jdiv, d, sizeof d), ok ? "ok" : "FAIL");
        if (csv)
            fprintf(csv, "%s,%d,%d,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.4f,%.4f,%.4f,"
                         "%.4f,%s,%.2f,%d,%llu,%d\n", w->transfer, w->local, w->wg, w->bpw, table,
                    mp * 1e3, mw * 1e3, mk * 1e3, mr * 1e3, tot * 1e3, (mw + mr) / tot,
                    cpu1 / tot, jp < 0 ? -1 : jp / c.runs, jw < 0 ? -1 : jw / jdiv,
                    jk < 0 ? -1 : jk / jdiv, jr < 0 ? -1 : jr / jdiv, method,
                    idle_w, reps, (unsigned long long)want, ok);
        if (!ok)
            bad = 1;
        fprintf(stderr, "row %zu: %s\n", ri, how);
    }
    printf("\nenergy: %s (joules per run, mean over the runs; '-': no meter)\n", method);
    if (csv)
        fclose(csv);
    hay_scratch_free(sc);
    hay_patterns_free(cpu);
    free(pats);
    pat_list_free(&all);
    free(ptext);
    free(text);
    return bad;
}
