/*
 * main.c - `hay find`: grep -F-like search of files, directories and
 * standard input, through the public API of libhaystack only.
 *
 * The parts, as ripgrep cuts its CLI:
 *   options.c  the command line into a checked config (and --help)
 *   matcher.c  the config's patterns compiled into a set
 *   walk.c     operands and the -r directory walk: which files, what names
 *   input.c    one file's bytes: mapped, read from a pipe; binary detection
 *   search.c   one file's search: scan, then lines or counts to the printer
 *   lines.c    matches to lines: line bounds, line numbers, -w and -x
 *   context.c  lines selected (-v, -m) and the context around them
 *   globs.c    --include, --exclude, --exclude-dir
 *   printer.c  lines, -o, colour, per-file summaries, --json
 *   stats.c    totals over the files and the --stats report
 */
#include "cli.h"

#include "matcher.h"
#include "options.h"
#include "search.h"
#include "walk.h"

#include <stdio.h>
#include <string.h>

int find_main(int argc, char **argv)
{
    double t0 = cli_now();
    find_config cf;
    int parsed = find_options_parse(argc, argv, &cf);
    if (parsed != 0) {
        find_options_free(&cf);
        return parsed > 0 ? 0 : 2;   /* --help, or a bad command line */
    }
    /* grep reads nothing when no line can be selected: -m 0, no pattern
     * at all, or -v with one empty pattern (every line matches); only -L
     * would print. */
    bool none = (cf.has_max && cf.max_count == 0) ||
                (cf.pats.n == 0 && cf.pats.empty == 0 && !cf.invert) ||
                (cf.pats.n == 0 && cf.pats.empty > 0 && cf.invert && !cf.word &&
                 !cf.whole_line);
    if (none && !cf.list_without && !cf.json && !cf.count_matches) {
        find_options_free(&cf);
        return 1;
    }
        static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

    int rc = 2;
    find_matcher m;
    if (find_matcher_open(&cf, &m) < 0)
        goto out;
    find_searcher s;
    memset(&s, 0, sizeof s);
    s.cf = &cf;
    s.matcher = &m;
    s.t.compile_s = m.compile_s;
    /* As grep: names with several operands; with -r and at most one, names
     * only for the files found inside directories. */
    s.print_names = cf.with_filename == 1 || (cf.with_filename == -1 && cf.nfiles > 1);
    s.names_in_walk = cf.with_filename == -1 && cf.recursive;
    find_walk w = {
        .recursive = cf.recursive,
        .follow = cf.follow_links,
        .no_messages = cf.no_messages,
        .stdin_name = cf.label,
        .globs = cf.globs,
        .implicit_dot = cf.nfiles == 0 && cf.recursive,
        .visit = find_search_file,
        .ctx = &s,
    };
    if (cf.nfiles == 0)
        find_walk_operand(&w, cf.recursive ? "." : "-");
    for (int i = 0; i < cf.nfiles; i++) {
        find_walk_operand(&w, cf.files[i]);
        if (cf.quiet && s.t.any_match)
            break;
    }
    s.t.error |= w.error;
    fflush(stdout);
    if (cf.stats)
        find_stats_print(&cf, m.set, &s.t, cli_now() - t0);
    if (cf.quiet && s.t.any_match)
        rc = 0;
    else
        rc = s.t.error ? 2 : s.t.any_match ? 0 : 1;
out:
    fflush(stdout);
    find_matcher_close(&m);
    find_options_free(&cf);
    return rc;
}
