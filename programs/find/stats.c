/* stats.c - summing the library's scan stats; --stats (see stats.h). */
#include "stats.h"

#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void find_totals_add_scan(find_totals *t, const hay_scan_stats *lib)
{
    if (lib->total_seconds <= 0)
        return;   /* the library did not fill them */
    hay_scan_stats *a = &t->lib;
    a->backend = lib->backend;
    a->algo = lib->algo;
    a->note = lib->note;
    a->init_seconds += lib->init_seconds;
    a->prepare_seconds += lib->prepare_seconds;
    a->copy_in_seconds += lib->copy_in_seconds;
    a->kernel_seconds += lib->kernel_seconds;
    a->copy_out_seconds += lib->copy_out_seconds;
    a->total_seconds += lib->total_seconds;
    t->lib_ran = true;
    a->split_cpu_bytes += lib->split_cpu_bytes;
    a->split_gpu_bytes += lib->split_gpu_bytes;
    a->split_cpu_seconds += lib->split_cpu_seconds;
    a->split_gpu_seconds += lib->split_gpu_seconds;
    if (lib->backend == HAY_BACKEND_CUDA || lib->backend == HAY_BACKEND_OPENCL) {
        /* Energy: the device scans only; one unreadable phase makes
         * that phase's sum unavailable. */
        double *j[] = { &a->init_joules, &a->prepare_joules, &a->copy_in_joules,
                        &a->kernel_joules, &a->copy_out_joules, &a->energy_joules };
        const double add[] = { lib->init_joules, lib->prepare_joules, lib->copy_in_joules,
                               lib->kernel_joules, lib->copy_out_joules, lib->energy_joules };
        for (int k = 0; k < 6; k++)
            *j[k] = (*j[k] < 0 || add[k] < 0) ? -1 : *j[k] + add[k];
        a->energy_method = lib->energy_method;
        t->dev_scans++;
    }
}

void find_stats_print(const find_config *cf, const hay_patterns *set,
                      const find_totals *t, double total_s)
{
    hay_patterns_info info;
    memset(&info, 0, sizeof info);
    if (set)
        hay_patterns_info_get(set, &info);
    unsigned threads = cf->threads ? cf->threads : cli_cpu_count();
    fprintf(stderr, "stats: backend=%s algo=%s threads=%u schedule=%s patterns=%zu\n",
            set ? hay_backend_name(info.backend) : "none",
            set ? info.algo : "none", threads,
            cf->schedule == HAY_SCHEDULE_STATIC ? "static" : "dynamic",
            cf->pats.n + cf->pats.empty);
    fprintf(stderr, "stats: reason=\"%s\" requested=%s\n", set ? info.reason : "",
            hay_backend_name(cf->backend));
    fprintf(stderr, "stats: phase=compile seconds=%.6f memory=%zu states=%zu "
            "build_seconds=%.6f\n", t->compile_s, info.memory, info.states,
            info.compile_seconds);
    fprintf(stderr, "stats: phase=map bytes=%" PRIu64 " seconds=%.6f\n",
            t->bytes, t->map_s);
    fprintf(stderr, "stats: phase=scan bytes=%" PRIu64 " seconds=%.6f gbps=%.3f\n",
            t->bytes, t->scan_s,
            t->scan_s > 0 ? (double)t->bytes / t->scan_s / 1e9 : 0.0);
    if (t->lib_ran) {
        const hay_scan_stats *g = &t->lib;
        fprintf(stderr, "stats: ran=%s algo=%s note=\"%s\"\n",
                hay_backend_name(g->backend), g->algo ? g->algo : "?",
                g->note ? g->note : "");
        /* Backend auto on the CPU: say whether a GPU could have run it
         * (probing costs a driver start-up, paid only with --stats). */
        if (g->backend == HAY_BACKEND_CPU && cf->backend == HAY_BACKEND_AUTO) {
            hay_status av = hay_backend_available(HAY_BACKEND_CUDA);
            fprintf(stderr, "stats: gpu cuda=%s\n",
                    av == HAY_OK ? "available" : hay_strerror(av));
        }
        if (g->split_cpu_bytes || g->split_gpu_bytes)   /* backend auto's split */
            fprintf(stderr, "stats: split cpu_bytes=%" PRIu64 " cpu_seconds=%.6f "
                    "cpu_gbps=%.3f gpu_bytes=%" PRIu64 " gpu_seconds=%.6f gpu_gbps=%.3f\n",
                    g->split_cpu_bytes, g->split_cpu_seconds,
                    g->split_cpu_seconds > 0
                        ? (double)g->split_cpu_bytes / g->split_cpu_seconds / 1e9 : 0.0,
                    g->split_gpu_bytes, g->split_gpu_seconds,
                    g->split_gpu_seconds > 0
                        ? (double)g->split_gpu_bytes / g->split_gpu_seconds / 1e9 : 0.0);
        if (g->backend != HAY_BACKEND_CPU)
            fprintf(stderr, "stats: device init=%.6f prepare=%.6f copy_in=%.6f "
                            "kernel=%.6f copy_out=%.6f scan_total=%.6f\n",
                    g->init_seconds, g->prepare_seconds, g->copy_in_seconds,
                    g->kernel_seconds, g->copy_out_seconds, g->total_seconds);
    }
    fprintf(stderr, "stats: phase=total seconds=%.6f gbps=%.3f\n", total_s,
            total_s > 0 ? (double)t->bytes / total_s / 1e9 : 0.0);
    if (t->dev_scans) {
        /* The device's own phases (pfac-opencl-mobile-energy.txt's split). */
        const hay_scan_stats *d = &t->lib;
        const char *names[] = { "init", "prepare", "write", "kernel", "read" };
        const double secs[] = { d->init_seconds, d->prepare_seconds, d->copy_in_seconds,
                                d->kernel_seconds, d->copy_out_seconds };
        const double js[] = { d->init_joules, d->prepare_joules, d->copy_in_joules,
                              d->kernel_joules, d->copy_out_joules };
        for (int k = 0; k < 5; k++) {
            fprintf(stderr, "stats: device phase=%s seconds=%.6f", names[k], secs[k]);
            if (js[k] >= 0)
                fprintf(stderr, " joules=%.4f\n", js[k]);
            else
                fprintf(stderr, " joules=unavailable\n");
        }
        fprintf(stderr, "stats: device energy=%s", d->energy_method ? d->energy_method
                                                                    : "unavailable");
        if (d->energy_joules >= 0)
            fprintf(stderr, " joules=%.4f", d->energy_joules);
        fputc('\n', stderr);
    }
}
