/*
 * hay.c - the `hay` command: dispatch to subcommands.  The program uses only
 * the public API of libhaystack.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("Usage: hay COMMAND [ARGS]...\n"
          "Fast exact string matching on multi-core CPUs and GPUs.\n"
          "\n"
          "Commands:\n"
          "  find      search files for literal patterns (like grep -F)\n"
          "  demo      generate a corpus with planted needles and search it\n"
          "  align     Smith-Waterman local alignment of sequences (FASTA/FASTQ)\n"
          "  db        build a sequence database for align's database search\n"
          "  devices   list backends and whether they can run here\n"
          "  version   print the version\n"
          "\n"
          "Run 'hay COMMAND --help' for the options of a command.\n", f);
}

static int devices_main(void)
{
    static const hay_backend all[] = { HAY_BACKEND_CPU, HAY_BACKEND_CUDA,
                                       HAY_BACKEND_OPENCL };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        hay_status s = hay_backend_available(all[i]);
        printf("%-7s %s", hay_backend_name(all[i]),
               s == HAY_OK ? "available" : hay_strerror(s));
        const char *name;
        if (s == HAY_OK) {
            printf("; algorithms:");
            size_t k = 0;
            for (; hay_algo_name(all[i], k, &name) == HAY_OK; k++)
                printf(" %s", name);
            if (k == 0)
                printf(" none yet");
        }
        putchar('\n');
        int n = 0;
        hay_device_count(all[i], &n);
        for (int d = 0; d < n; d++) {
            char desc[512];
            if (hay_device_describe(all[i], d, desc, sizeof desc) == HAY_OK)
                printf("  %d: %s\n", d, desc);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "find"))
        return find_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "demo"))
        return demo_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "align"))
        return align_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "db"))
        return db_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "devices"))
        return devices_main();
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("hay %s\n", hay_version());
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "hay: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
