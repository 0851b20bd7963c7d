/*
 * options.h - `hay find`'s command line, parsed and checked once into a
 * config that the other parts only read.  Nothing after parsing looks at
 * argv, getenv or the terminal to decide what to do.
 */
#ifndef HAY_FIND_OPTIONS_H
#define HAY_FIND_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "haystack.h"
#include "patfile.h"

typedef struct find_config {
    /* Patterns: every -e, -f and positional one, in order, decoded. */
    pat_list pats;
    bool icase;
    bool unicode;          /* -i folds UTF-8 patterns by Unicode's simple
                              case folding: the locale is UTF-8 and
                              --no-unicode was not given (casefold.h) */

    /* Output.  The summaries win over lines in this order: -q, -l,
     * --count-matches, -c; --json reports occurrences (see search.c). */
    bool quiet, list, count_matches, count_lines, json;
    bool count_each;       /* --count-matches=each: a count per pattern */
    bool only, line_numbers, byte_offset;
    bool list_without;     /* -L: names of files with no selected line */
    bool null_names;       /* -Z: a NUL after file names */
    bool initial_tab;      /* -T */
    bool line_buffered;    /* --line-buffered: flush after every line */
    const char *label;     /* --label: standard input's name */
    const char *group_sep; /* "--", or NULL (--no-group-separator) */

    /* Selection (grep's -v, -w, -x, -m, -A/-B/-C; see context.h). */
    bool invert, word, whole_line;
    bool has_max;          /* -m given */
    uint64_t max_count;
    bool context;          /* -A, -B, -C or -NUM given (even 0) */
    uint64_t before, after;
    unsigned char eol;     /* '\n', or '\0' with -z */
    int with_filename;     /* -H 1, -h 0, neither -1 (grep's rule, main.c) */
    bool color;            /* --color resolved against the terminal */
    bool progress;         /* stderr is a terminal other than stdout and
                              --no-progress was not given: long scans
                              draw a bar there */
    bool stats;
    hay_match_mode mode;   /* what the scans report (--match-mode or the
                              output's default) */

    /* Input. */
    bool recursive, text;
    bool sort_none;        /* --sort none: a walk's files print as they
                              finish, not in path order */
    bool ignore_files;     /* --ignore: a walk honours .gitignore, .ignore */
    bool skip_hidden;      /* --no-hidden: a walk skips names starting '.' */
    bool follow_links;     /* -R: symbolic links inside the walk too */
    bool skip_binary;      /* --binary-files=without-match, -I */
    bool no_messages;      /* -s: no messages about unreadable files */
    struct find_globs *globs;   /* --include/--exclude/--exclude-dir */
    char **files;          /* the operands after the patterns */
    int nfiles;
    uint64_t size_hint;    /* the largest regular file operand (not -r) with
                              --count-matches, else 0: the library's
                              hay_compile_opts.size_hint */

    /* Engine. */
    hay_backend backend;
    const char *algo;      /* NULL: the library's choice */
    unsigned threads;
    hay_schedule schedule;
    size_t chunk;
    char *params;          /* --device and --params as one
                              hay_compile_opts.params string, or NULL */
    bool device_given;     /* --device was given (for messages) */
    bool diag_log;         /* HAY_SPLIT_DEBUG or HAY_CUDA_REG_DEBUG set: the
                              library's diagnostic lines go to stderr */
} find_config;

/*
 * Parses `hay find`'s arguments (argv[0] is the subcommand) into *cf,
 * reading -f files.  Returns 0 to search, 1 when --help or --version was
 * printed (exit 0), -1 after printing why the command line is wrong (exit
 * 2).  In every case call find_options_free(cf) afterwards.  cf->files points into argv.
 */
int find_options_parse(int argc, char **argv, find_config *cf);

void find_options_free(find_config *cf);

/* Whether the lines printed show their matches (-o, colour, --json), so
 * that which occurrences the leftmost mode picks matters; false when lines
 * are only counted or listed, or printed whole. */
bool find_shows_matches(const find_config *cf);

#endif
