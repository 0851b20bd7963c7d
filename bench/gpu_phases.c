/*
 * gpu_phases.c - time and energy of each phase of one search of a file
 * from the page cache, through the public API (bench/README.md):
 *
 *   gpu_phases [--backend cuda] [--params P] [--runs 7] [--energy-seconds 2]
 *              [--threads N] [--map shared|private] [--populate] [-i]
 *              -e PATTERN [-e PATTERN...] FILE
 *
 * Phases, each timed on its own:
 *   compile   hay_patterns_compile (for a GPU backend: the device's start-up
 *             in this process, the first CUDA call, and the tables)
 *   one-shot  the first scan in the process, of a fresh mapping of FILE
 *   warm      later scans, each of a fresh mapping (what `hay find` does
 *             with a file: the page faults of the mapping are included)
 *   warm-mapped  later scans of one mapping already faulted in
 *   upload    hay_buffer_create: FILE copied to the device (pageable copy)
 *   resident  scans of that buffer: the kernel with no copy-in
 * FILE is mapped MAP_SHARED, as hay maps it (--map private for the old
 * way; a private mapping cannot be pinned in place, src/cuda/hostreg.h);
 * --populate maps with MAP_POPULATE (page tables filled before the clock
 * starts: what the scans lose to page faults).
 * Times are medians of --runs after the one-shot scan; every count must
 * equal the first (exit 1 otherwise).
 *
 * Energy (NVIDIA, NVML, src/core/energy.h): the driver's counter advances in
 * steps of tens of milliseconds, longer than one scan, so each phase is
 * repeated back to back for --energy-seconds and the joules are divided by
 * the repetitions; the device's idle power over 1 s of sleep is measured
 * first.  copy-in (staging and PCIe) = warm - resident, per GB: derived,
 * said so.  Without a meter the energy lines say "unavailable".
 *
 * Internals: the NVML meter (src/core/energy.h) is not public API (the
 * library reports joules only through a scan's stats, which cannot time a
 * phase on its own), so this program links the static library.
 *
 * Output: readable lines, then one "phase<TAB>metric<TAB>value<TAB>unit" line
 * per figure after a "# tsv" line (bench/run.py's energy part reads them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "haystack.h"
#include "../src/core/energy.h"
#include "bench_util.h"
#include "patfile.h"

#define MAX_RUNS 101
#define MAX_PATTERNS 64

typedef struct input {
    const char *path;
    int fd;
    uint64_t len;
    int flags;               /* MAP_SHARED (what hay maps) or MAP_PRIVATE */
} input;

static void *map_input(const input *in)
{
    void *p = mmap(NULL, in->len, PROT_READ, in->flags, in->fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

typedef struct tsv_row {
    char phase[32], metric[32], unit[16];
    double value;
} tsv_row;

static tsv_row rows[64];
static int nrows;

static void put(const char *phase, const char *metric, double value, const char *unit)
{
    if (nrows == (int)(sizeof rows / sizeof rows[0]))
        return;
    tsv_row *r = &rows[nrows++];
    snprintf(r->phase, sizeof r->phase, "%s", phase);
    snprintf(r->metric, sizeof r->metric, "%s", metric);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->value = value;
}

/* Backend auto's split: each side's share and own rate. */
static void split_line(const char *which, const hay_scan_stats *st, uint64_t len)
{
    if (st->split_cpu_bytes + st->split_gpu_bytes == 0)
        return;
    double cs = st->split_cpu_seconds, gs = st->split_gpu_seconds;
    printf("  split, %s: CPU %.1f%% (%.2f GB/s over %.2f ms), GPU %.1f%% (%.2f GB/s "
           "over %.2f ms)\n", which, 100.0 * st->split_cpu_bytes / len,
           cs > 0 ? st->split_cpu_bytes / cs / 1e9 : 0, cs * 1e3,
           100.0 * st->split_gpu_bytes / len,
           gs > 0 ? st->split_gpu_bytes / gs / 1e9 : 0, gs * 1e3);
}

static int fail(const char *what, hay_status s)
{
    fprintf(stderr, "gpu_phases: %s: %s\n", what, hay_strerror(s));
    return s == HAY_ERR_NO_DEVICE || s == HAY_ERR_NO_BACKEND ? 77 : 2;
}

/* What a phase scans, and what the last scan found. */
typedef struct phase_ctx {
    const hay_patterns *set;
    hay_scratch *sc;
    const input *in;
    const hay_scan_opts *o;
    const void *map;           /* a mapping of the input, faulted in */
    const hay_buffer *buf;     /* the input on the device */
    uint64_t want, n;          /* the first scan's count, the last scan's */
    int counted;               /* want is set */
    int bad;                   /* a count differed from want */
    hay_status s;
} phase_ctx;

/* A phase: one scan; its seconds, or < 0 with c->s set. */
typedef double (*phase_fn)(phase_ctx *c);

static double count_done(phase_ctx *c, double t0)
{
    double t = bench_now() - t0;
    if (c->s != HAY_OK)
        return -1;
    if (!c->counted) {
        c->want = c->n;
        c->counted = 1;
    }
    c->bad |= c->n != c->want;
    return t;
}

/* A fresh mapping of the input (what `hay find FILE` scans). */
static double scan_fresh(phase_ctx *c)
{
    void *p = map_input(c->in);
    if (!p) {
        c->s = HAY_ERR_INVALID;
        return -1;
    }
    double t0 = bench_now();
    c->s = hay_scan_count(c->set, c->sc, p, c->in->len, c->o, &c->n);
    double t = count_done(c, t0);
    munmap(p, c->in->len);
    return t;
}

static double scan_mapped(phase_ctx *c)
{
    double t0 = bench_now();
    c->s = hay_scan_count(c->set, c->sc, c->map, c->in->len, c->o, &c->n);
    return count_done(c, t0);
}

static double scan_resident(phase_ctx *c)
{
    double t0 = bench_now();
    c->s = hay_scan_count_buffer(c->set, c->sc, c->buf, c->o, &c->n);
    return count_done(c, t0);
}

/* The median seconds of `runs` scans after `warmup` untimed ones; < 0 on
 * error. */
static double median_runs(phase_fn f, phase_ctx *c, int warmup, int runs)
{
    double v[MAX_RUNS];
    for (int r = 0; r < warmup + runs; r++) {
        double t = f(c);
        if (t < 0)
            return -1;
        if (r >= warmup)
            v[r - warmup] = t;
    }
    return bench_median(v, runs);
}

/* Repeats the phase back to back for at least `seconds` (2 scans at least)
 * under the meter: joules per scan (< 0 unreadable), scans and seconds. */
typedef struct phase_energy {
    double j, seconds;
    int scans;
} phase_energy;

static int energy_of(phase_fn f, phase_ctx *c, hay_energy *meter, double seconds,
                     phase_energy *e)
{
    double e0 = hay_energy_read(meter), t0 = bench_now();
    e->scans = 0;
    while (bench_now() - t0 < seconds || e->scans < 2) {
        if (f(c) < 0)
            return -1;
        e->scans++;
    }
    e->seconds = bench_now() - t0;
    double e1 = hay_energy_read(meter);
    e->j = e0 >= 0 && e1 >= 0 ? (e1 - e0) / e->scans : -1;
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: gpu_phases [--backend cuda] [--params P] [--runs 7] "
                    "[--energy-seconds 2] [--threads N] [--map shared|private] [--populate] "
                    "[-i] (-e PATTERN [-e PATTERN...] | -f PATFILE) FILE\n"
                    "  -f: one pattern per line with \\xHH escapes (hay find --escapes -f)\n");
}

int main(int argc, char **argv)
{
    const char *backend_name = "cuda", *params = NULL, *path = NULL;
    hay_pattern epats[MAX_PATTERNS], *pats = epats;
    size_t npats = 0;
    const char *patfile = NULL;
    int runs = 7, map_flags = MAP_SHARED, populate = 0, caseless = 0;
    unsigned threads = 0;
    double esec = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--backend") && v)
            backend_name = v, i++;
        else if (!strcmp(a, "--params") && v)
            params = v, i++;
        else if (!strcmp(a, "--runs") && v)
            runs = atoi(v), i++;
        else if (!strcmp(a, "--energy-seconds") && v)
            esec = atof(v), i++;
        else if (!strcmp(a, "--map") && v && (!strcmp(v, "shared") || !strcmp(v, "private")))
            map_flags = !strcmp(v, "shared") ? MAP_SHARED : MAP_PRIVATE, i++;
        else if (!strcmp(a, "--populate"))
            populate = MAP_POPULATE;
        else if (!strcmp(a, "--threads") && v)
            threads = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "-e") && v && *v && npats < MAX_PATTERNS) {
            pats[npats].data = v;
            pats[npats++].len = strlen(v);
            i++;
        } else if (!strcmp(a, "-f") && v && !patfile)
            patfile = v, i++;
        else if (!strcmp(a, "-i"))
            caseless = 1;
        else if (a[0] != '-' && !path)
            path = a;
        else {
            usage();
            return 2;
        }
    }
    pat_list fl;
    memset(&fl, 0, sizeof fl);
    if (patfile && !npats) {
        size_t tlen;
        uint8_t *t = read_all(patfile, &tlen);
        char err[256];
        if (!t) {
            fprintf(stderr, "gpu_phases: cannot read %s\n", patfile);
            return 2;
        }
        if (pat_list_add_text(&fl, t, tlen, true, true, patfile, err, sizeof err) < 0) {
            fprintf(stderr, "gpu_phases: %s\n", err);
            return 2;
        }
        free(t);
        pats = fl.items;
        npats = fl.n;
    } else if (patfile) {
        usage();
        return 2;
    }
    hay_backend backend;
    if (!npats || !path || runs < 1 || runs > MAX_RUNS || esec < 0 ||
        hay_backend_parse(backend_name, &backend) != HAY_OK) {
        usage();
        return 2;
    }
    input in = { path, open(path, O_RDONLY), 0, map_flags | populate };
    struct stat sb;
    if (in.fd < 0 || fstat(in.fd, &sb) != 0 || sb.st_size <= 0) {
        fprintf(stderr, "gpu_phases: %s: %s\n", path, in.fd < 0 ? strerror(errno)
                                                              : "empty or unreadable");
        return 2;
    }
    in.len = (uint64_t)sb.st_size;
    double gb = in.len / 1e9;

    hay_energy *meter = backend == HAY_BACKEND_CPU ? NULL : hay_energy_open(-1, -1);
    double idle_w = -1;
    if (meter) {   /* before the device starts, so its start-up is not in it */
        double j0 = hay_energy_read(meter), t0 = bench_now();
        usleep(1000000);
        double j1 = hay_energy_read(meter), t1 = bench_now();
        if (j0 >= 0 && j1 >= 0)
            idle_w = (j1 - j0) / (t1 - t0);
    }

    /* compile: the device's start-up and the tables */
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.backend = backend;
    co.params = params;
    co.flags = caseless ? HAY_CASELESS : 0;
    hay_patterns *set = NULL;
    double ej0 = meter ? hay_energy_read(meter) : -1, t0 = bench_now();
    hay_status s = hay_patterns_compile(pats, npats, &co, &set);
    double compile_s = bench_now() - t0, ej1 = meter ? hay_energy_read(meter) : -1;
    if (s != HAY_OK)
        return fail("compile", s);
    hay_patterns_info info;
    hay_patterns_info_get(set, &info);
    hay_scratch *sc = NULL;
    if ((s = hay_scratch_create(set, &sc)) != HAY_OK)
        return fail("scratch", s);
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;
    hay_scan_stats last;   /* of the latest scan: where it ran, the split */
    memset(&last, 0, sizeof last);
    o.stats = &last;

    /* one-shot, then warm scans of fresh mappings, of one mapping, and of
     * the input on the device */
    phase_ctx c = { set, sc, &in, &o, NULL, NULL, 0, 0, 0, 0, HAY_OK };
    double oneshot = scan_fresh(&c);   /* its count is the one all must give */
    if (oneshot < 0)
        return fail("scan", c.s);
    hay_scan_stats first_st = last;
    const char *ran = hay_backend_name(info.backend);
    double w = median_runs(scan_fresh, &c, 0, runs);
    if (w < 0)
        return fail("scan", c.s);
    hay_scan_stats warm_st = last;
    void *map = map_input(&in);
    if (!map)
        return fail("mmap", HAY_ERR_INVALID);
    c.map = map;
    double wm = median_runs(scan_mapped, &c, 1, runs);   /* the first faults it in */
    if (wm < 0)
        return fail("scan", c.s);

    hay_buffer *buf = NULL;
    t0 = bench_now();
    s = hay_buffer_create(info.backend == HAY_BACKEND_CUDA ? HAY_BACKEND_CUDA
                                                           : HAY_BACKEND_CPU,
                          map, in.len, &buf);
    double upload = bench_now() - t0;
    if (s != HAY_OK)
        return fail("buffer", s);
    c.buf = buf;
    double rk = median_runs(scan_resident, &c, 1, runs);
    if (rk < 0)
        return fail("scan buffer", c.s);
    uint64_t want = c.want;

    printf("# gpu_phases: '%.*s'%s%s in %s (%.3f GB), backend %s (ran %s, algo %s), "
           "params %s\n", (int)pats[0].len, (const char *)pats[0].data,
           npats > 1 ? " and more" : "", caseless ? " caseless" : "", path, gb,
           backend_name, ran, info.algo, params ? params : "-");
    printf("matches %llu; times: medians of %d runs\n", (unsigned long long)want, runs);
    printf("compile (device start-up + tables)  %9.2f ms\n", compile_s * 1e3);
    printf("one-shot scan (first in process)    %9.2f ms  %7.2f GB/s\n", oneshot * 1e3,
           gb / oneshot);
    split_line("the one-shot scan", &first_st, in.len);
    printf("warm scan, fresh mapping            %9.2f ms  %7.2f GB/s\n", w * 1e3, gb / w);
    printf("warm scan, mapping faulted in       %9.2f ms  %7.2f GB/s\n", wm * 1e3, gb / wm);
    const char *wnote = warm_st.note ? warm_st.note : "";
    if (warm_st.algo)   /* backends that fill the stats */
        printf("  the last warm scan ran on %s (%s)%s%s\n",
               hay_backend_name(warm_st.backend), warm_st.algo, *wnote ? ": " : "", wnote);
    split_line("the last warm scan", &warm_st, in.len);
    printf("upload (hay_buffer_create)          %9.2f ms  %7.2f GB/s\n", upload * 1e3,
           gb / upload);
    printf("resident scan (no copy-in)          %9.2f ms  %7.2f GB/s\n", rk * 1e3, gb / rk);
    put("compile", "ms", compile_s * 1e3, "ms");
    put("one-shot", "GBps", gb / oneshot, "GB/s");
    put("one-shot", "ms", oneshot * 1e3, "ms");
    put("warm", "GBps", gb / w, "GB/s");
    put("warm", "ms", w * 1e3, "ms");
    put("warm-mapped", "GBps", gb / wm, "GB/s");
    put("upload", "GBps", gb / upload, "GB/s");
    put("resident", "GBps", gb / rk, "GB/s");

    if (meter) {
        /* Each phase back to back for esec seconds; joules per repetition. */
        double jc = ej0 >= 0 && ej1 >= 0 ? ej1 - ej0 : -1;
        phase_energy ew, er;
        if (energy_of(scan_fresh, &c, meter, esec, &ew) < 0)
            return fail("scan", c.s);
        if (energy_of(scan_resident, &c, meter, esec, &er) < 0)
            return fail("scan buffer", c.s);
        double jw = ew.j, jr = er.j, tw = ew.seconds, tr = er.seconds;
        int kw = ew.scans, kr = er.scans;
        printf("energy (%s): idle %.1f W\n", hay_energy_method(meter), idle_w);
        printf("  compile    %8.3f J\n", jc);
        printf("  warm scan  %8.4f J per scan, %.3f J/GB, %.0f W (%d scans in %.2f s)\n", jw,
               jw / gb, jw * kw / tw, kw, tw);
        printf("  resident   %8.4f J per scan, %.3f J/GB, %.0f W (%d scans in %.2f s)\n", jr,
               jr / gb, jr * kr / tr, kr, tr);
        printf("  copy-in (staging + PCIe) = warm - resident: %.3f J/GB (derived)\n",
               (jw - jr) / gb);
        put("idle", "W", idle_w, "W");
        put("compile", "J", jc, "J");
        put("warm", "J_per_GB", jw / gb, "J/GB");
        put("warm", "W", jw * kw / tw, "W");
        put("resident", "J_per_GB", jr / gb, "J/GB");
        put("resident", "W", jr * kr / tr, "W");
        put("copy-in (warm - resident)", "J_per_GB", (jw - jr) / gb, "J/GB");
    } else {
        printf("energy: unavailable (no NVML meter for this device)\n");
    }
    printf("# tsv energy=%s\n", hay_energy_method(meter));
    for (int i = 0; i < nrows; i++)
        printf("%s\t%s\t%.6g\t%s\n", rows[i].phase, rows[i].metric, rows[i].value,
               rows[i].unit);
    if (c.bad)
        fprintf(stderr, "gpu_phases: counts differ between scans (first %llu)\n",
                (unsigned long long)want);
    hay_buffer_free(buf);
    munmap(map, in.len);
    hay_scratch_free(sc);
    hay_patterns_free(set);
    pat_list_free(&fl);
    hay_energy_close(meter);
    close(in.fd);
    return c.bad ? 1 : 0;
}
