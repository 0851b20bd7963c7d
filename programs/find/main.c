/*
 * main.c - `hay find`: grep -F-like search of files, directories and
 * standard input, through the public API of libhaystack only.
 *
 * The parts, as ripgrep cuts its CLI:
 *   options.c  the command line into a checked config (and --help)
 *   matcher.c  the config's patterns compiled into a set
 *   walk.c     operands and the -r directory walk: which files, what names
 *   pool.c     many threads walking and searching, output in order
 *   input.c    one file's bytes in pieces of lines: mapped or read; binary test
 *   search.c   one file's search: scan, then lines or counts to the printer
 *   lines.c    matches to lines: line bounds, line numbers, -w and -x
 *   context.c  lines selected (-v, -m) and the context around them
 *   globs.c    --include, --exclude, --exclude-dir
 *   printer.c  lines, -o, colour, per-file summaries
 *   json.c     the --json records
 *   casefold.c -i's case variants of UTF-8 patterns (Unicode folding)
 *   stats.c    totals over the files and the --stats report
 */
#include "cli.h"

#include "globs.h"
#include "json.h"
#include "matcher.h"
#include "options.h"
#include "pool.h"
#include "search.h"
#include "walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The walk's keep hook: --include, --exclude and --exclude-dir. */
static bool keep_globbed(void *globs, const char *name, bool is_dir, bool operand)
{
    return !find_globs_skip(globs, name, is_dir, operand);
}

/* A find_visit_fn: the file searched on this thread. */
static bool search_here(void *worker, int fd, char *name, bool walked)
{
    find_worker *w = worker;
    find_search_file(w, fd, name, walked);
    close(fd);
    free(name);
    return !(w->r->cf->quiet && w->t.any_match);
}

/* The size of the largest regular file among the first operands (a hint
 * for backend auto, which may start the GPU while the patterns compile);
 * 0 for -r, standard input or anything else, and 0 unless the output is
 * --count-matches: the other outputs hand the library parts of a file on
 * several threads (or let it choose per scan, cold), and a start-up they
 * leave unused cost `-c -f et-open` over 1 GiB 0.70-0.82 s against the
 * CPU's 0.41-0.52 on the H100 host (the context's start beside the scan,
 * its teardown at exit). */
static uint64_t operand_hint(const find_config *cf)
{
    uint64_t hint = 0;
    if (!cf->count_matches)
        return 0;
    for (int i = 0; i < cf->nfiles && i < 64 && !cf->recursive; i++) {
        struct stat st;
        if (strcmp(cf->files[i], "-") != 0 && stat(cf->files[i], &st) == 0 &&
            S_ISREG(st.st_mode) && (uint64_t)st.st_size > hint)
            hint = (uint64_t)st.st_size;
    }
    return hint;
}

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

    cf.size_hint = operand_hint(&cf);
    int rc = 2;
    find_matcher m;
    if (find_matcher_open(&cf, &m) < 0)
        goto out;
    find_searcher s;
    find_searcher_init(&s, &cf, &m);
    find_totals t;
    memset(&t, 0, sizeof t);
    t.compile_s = m.compile_s;
    find_worker main_worker = { .r = &s, .scratch = m.scratch, .out = stdout };
    find_walk w = {
        .recursive = cf.recursive,
        .follow = cf.follow_links,
        .no_messages = cf.no_messages,
        .stdin_name = cf.label,
        .implicit_dot = cf.nfiles == 0 && cf.recursive,
        .sorted = !cf.sort_none,
        .ignore_files = cf.ignore_files,
        .skip_hidden = cf.skip_hidden,
        .keep = cf.globs ? keep_globbed : NULL,
        .keep_ctx = cf.globs,
        .visit = search_here,
        .ctx = &main_worker,
    };
    /* Many files (a walk, or several operands) are searched at once, one
     * per thread, a walk's directories listed by the same threads; not
     * with context lines, whose group separator between files depends on
     * whether an earlier file printed a line. */
    find_pool *pool = (cf.recursive || cf.nfiles > 1) && s.threads > 1 && !cf.context
                          ? find_pool_start(&s, &w, s.threads, !cf.sort_none) : NULL;
    if (pool) {
        w.visit = find_pool_visit;
        w.visit_dir = find_pool_visit_dir;
        w.ctx = pool;
    }
    if (cf.nfiles == 0)
        find_walk_operand(&w, cf.recursive ? "." : "-");
    for (int i = 0; i < cf.nfiles && !w.stopped; i++)
        find_walk_operand(&w, cf.files[i]);
    if (pool)
        find_pool_finish(pool, &t);
    find_totals_merge(&t, &main_worker.t);
    find_readbuf_free(&main_worker.rb);
    t.error |= w.error;
    if (cf.json && !cf.quiet)
        find_json_summary(&cf, &t, cli_now() - t0);
    fflush(stdout);
    if (cf.stats)
        find_stats_print(&cf, m.set, &t, cli_now() - t0);
    if (cf.quiet && t.any_match)
        rc = 0;
    else
        rc = t.error ? 2 : t.any_match ? 0 : 1;
out:
    fflush(stdout);
    find_matcher_close(&m);
    find_options_free(&cf);
    return rc;
}
