/*
 * options.c - `hay find`'s options: the help text, the option table, and
 * the parser that turns them into a checked find_config.  Every message
 * about a bad command line comes from here.
 */
#include "options.h"

#include "casefold.h"
#include "cli.h"
#include "globs.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs(
"Usage: hay find [OPTION]... PATTERNS [FILE]...\n"
"       hay find [OPTION]... -e PATTERN... [-f FILE]... [FILE]...\n"
"Search FILEs (or standard input) for PATTERNS.  Patterns are literal bytes,\n"
"like grep -F: no regular expressions.  PATTERNS may hold several patterns,\n"
"one per line.  With no FILE, read standard input (or '.' with -r).\n"
"\n"
"Patterns:\n"
"  -e, --regexp=PATTERN      use PATTERN (repeatable)\n"
"  -f, --file=FILE           take patterns from FILE, one per line (- = stdin)\n"
"      --escapes             decode \\xHH in patterns (the format of pattern\n"
"                            sets such as Snort content literals)\n"
"  -i, --ignore-case         case-insensitive matching: ASCII letters always;\n"
"                            in a UTF-8 locale, patterns holding UTF-8 beyond\n"
"                            ASCII by Unicode simple case folding\n"
"      --no-unicode          -i folds ASCII letters only, whatever the locale\n"
"  -F, --fixed-strings       accepted for grep compatibility (always on)\n"
"  -w, --word-regexp         select only matches that are whole words (letters,\n"
"                            digits and '_' do not touch them on either side)\n"
"  -x, --line-regexp         select only lines equal to a pattern\n"
"\n"
"Selection and context:\n"
"  -v, --invert-match        select the lines that do not match\n"
"  -m, --max-count=NUM       stop after NUM selected lines per file\n"
"  -A, --after-context=NUM   print NUM lines of context after selected lines\n"
"  -B, --before-context=NUM  print NUM lines of context before them\n"
"  -C, --context=NUM, -NUM   print NUM lines of context around them\n"
"      --group-separator=SEP print SEP between groups of context (default --)\n"
"      --no-group-separator  print nothing between them\n"
"\n"
"Output:\n"
"  -c, --count               print the number of selected lines per file\n"
"      --count-matches[=each]\n"
"                            print the number of occurrences, overlapping ones\n"
"                            included (with -w or -x: those -o would print),\n"
"                            per file: of all patterns together, or\n"
"                            with =each a line per pattern: COUNT, a tab, the\n"
"                            pattern (unprintable bytes as --escapes' \\xHH)\n"
"  -o, --only-matching       print only the matched parts (leftmost-longest,\n"
"                            non-overlapping, as grep -o)\n"
"      --match-mode=MODE     which matches -o, --color, --json and\n"
"                            --count-matches report: all (every occurrence),\n"
"                            leftmost-first (non-overlapping, the pattern given\n"
"                            first wins) or leftmost-longest (the longest wins);\n"
"                            default leftmost-longest for lines, -o and --json,\n"
"                            all for --count-matches\n"
"  -n, --line-number         prefix lines with their line number\n"
"  -b, --byte-offset         prefix with the 0-based byte offset\n"
"  -l, --files-with-matches  print only names of files with matches\n"
"  -L, --files-without-match print only names of files with no selected line\n"
"  -q, --quiet               print nothing; exit status only\n"
"  -H, --with-filename       print the file name for each match\n"
"  -h, --no-filename         never print file names\n"
"      --label=LABEL         the name standard input is printed as\n"
"  -Z, --null                print a NUL byte after file names\n"
"  -T, --initial-tab         line up the lines after the prefixes with a tab\n"
"      --line-buffered       flush the output after every line\n"
"      --color[=WHEN]        highlight matches: never, always, auto\n"
"      --json                JSON Lines as ripgrep's --json: begin, match (a\n"
"                            selected line and its matches), end per file and\n"
"                            a summary; with -c, -l or --count-matches the\n"
"                            counts only (docs/JSON.md)\n"
"\n"
"Input:\n"
"  -r, --recursive           search directories recursively (symbolic links\n"
"                            found inside them are not followed)\n"
"  -R, --dereference-recursive  the same, following every symbolic link\n"
"      --include=GLOB        search only files whose base name matches GLOB\n"
"      --exclude=GLOB        skip files whose base name matches GLOB\n"
"      --exclude-dir=GLOB    skip directories whose base name matches GLOB\n"
"  -a, --text                treat binary files as text\n"
"      --sort=ORDER          the order of a walk's files: path (default: by\n"
"                            name, directory by directory) or none (as they\n"
"                            finish; faster)\n"
"      --ignore              with -r, skip what .gitignore and .ignore files in\n"
"                            the tree leave out (not by default, as grep)\n"
"      --no-hidden           with -r, skip files and directories whose name\n"
"                            starts with '.' (searched by default, as grep)\n"
"  -I                        skip binary files (--binary-files=without-match)\n"
"      --binary-files=TYPE   binary (default: one line saying the file matches),\n"
"                            text (as -a) or without-match (as -I)\n"
"  -z, --null-data           lines end with a NUL byte, not a newline\n"
"  -s, --no-messages         no messages about missing or unreadable files\n"
"\n"
"Engine:\n"
"      --backend=NAME        auto (default), cpu, cuda, opencl\n"
"      --algo=NAME           auto (default); cpu: simd, bm, horspool, teddy,\n"
"                            fdr, dfa, ac, pfac, naive ('hay devices' lists\n"
"                            every backend's)\n"
"      --threads=N           worker threads (0 = all cores, default)\n"
"      --schedule=KIND       dynamic (default) or static chunk scheduling\n"
"      --chunk-size=BYTES    chunk size for dynamic scheduling\n"
"      --params=K=V,...      engine and GPU driver knobs (CPU: dfa_budget=BYTES,\n"
"                            pfac_budget=BYTES; CUDA: table=tex, bpt=4; OpenCL:\n"
"                            transfer=copy|map, local=0|1, wg=N, bpw=N; see\n"
"                            docs/DESIGN.md)\n"
"      --stats               print the engine choice and time per phase\n"
"                            (GPU backends: init, prepare, write, kernel, read,\n"
"                            with energy where the device reports it)\n"
"      --device=P:D          OpenCL platform P, device D (see 'hay devices')\n"
"      --no-progress         no progress bar (drawn on standard error for long\n"
"                            scans when it is a terminal other than stdout's)\n"
"  -V, --version             print the version and exit\n"
"\n"
"Exit status: 0 if a line was selected, 1 if none, 2 on error.\n", f);
}

enum {
    OPT_ESCAPES = 256, OPT_COUNT_MATCHES, OPT_COLOR, OPT_JSON, OPT_STATS,
    OPT_THREADS, OPT_BACKEND, OPT_ALGO, OPT_SCHEDULE, OPT_CHUNK,
    OPT_NO_PROGRESS, OPT_HELP, OPT_MATCH_MODE, OPT_PARAMS, OPT_DEVICE,
    /* find-case: Unicode -i, per-pattern counts */
    OPT_NO_UNICODE,
    OPT_SORT, OPT_IGNORE, OPT_NO_HIDDEN,
    OPT_GROUP_SEP, OPT_NO_GROUP_SEP, OPT_INCLUDE, OPT_EXCLUDE, OPT_EXCLUDE_DIR,
    OPT_BINARY_FILES, OPT_LABEL, OPT_LINE_BUFFERED
};

static const struct option long_opts[] = {
    { "device", required_argument, NULL, OPT_DEVICE },
    { "params", required_argument, NULL, OPT_PARAMS },
    { "regexp", required_argument, NULL, 'e' },
    { "file", required_argument, NULL, 'f' },
    { "escapes", no_argument, NULL, OPT_ESCAPES },
    { "ignore-case", no_argument, NULL, 'i' },
    { "fixed-strings", no_argument, NULL, 'F' },
    { "count", no_argument, NULL, 'c' },
    { "count-matches", optional_argument, NULL, OPT_COUNT_MATCHES },
    { "only-matching", no_argument, NULL, 'o' },
    { "line-number", no_argument, NULL, 'n' },
    { "byte-offset", no_argument, NULL, 'b' },
    { "files-with-matches", no_argument, NULL, 'l' },
    { "quiet", no_argument, NULL, 'q' },
    { "silent", no_argument, NULL, 'q' },
    { "with-filename", no_argument, NULL, 'H' },
    { "no-filename", no_argument, NULL, 'h' },
    { "color", optional_argument, NULL, OPT_COLOR },
    { "colour", optional_argument, NULL, OPT_COLOR },
    { "json", no_argument, NULL, OPT_JSON },
    { "recursive", no_argument, NULL, 'r' },
    { "text", no_argument, NULL, 'a' },
    { "sort", required_argument, NULL, OPT_SORT },
    { "ignore", no_argument, NULL, OPT_IGNORE },
    { "no-hidden", no_argument, NULL, OPT_NO_HIDDEN },
    { "backend", required_argument, NULL, OPT_BACKEND },
    { "algo", required_argument, NULL, OPT_ALGO },
    { "threads", required_argument, NULL, OPT_THREADS },
    { "schedule", required_argument, NULL, OPT_SCHEDULE },
    { "chunk-size", required_argument, NULL, OPT_CHUNK },
    { "stats", no_argument, NULL, OPT_STATS },
    { "match-mode", required_argument, NULL, OPT_MATCH_MODE },
    { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
    { "help", no_argument, NULL, OPT_HELP },
    /* find-case: Unicode -i */
    { "no-unicode", no_argument, NULL, OPT_NO_UNICODE },
    { "version", no_argument, NULL, 'V' },
    { "invert-match", no_argument, NULL, 'v' },
    { "word-regexp", no_argument, NULL, 'w' },
    { "line-regexp", no_argument, NULL, 'x' },
    { "max-count", required_argument, NULL, 'm' },
    { "after-context", required_argument, NULL, 'A' },
    { "before-context", required_argument, NULL, 'B' },
    { "context", required_argument, NULL, 'C' },
    { "group-separator", required_argument, NULL, OPT_GROUP_SEP },
    { "no-group-separator", no_argument, NULL, OPT_NO_GROUP_SEP },
    { "files-without-match", no_argument, NULL, 'L' },
    { "no-messages", no_argument, NULL, 's' },
    { "null", no_argument, NULL, 'Z' },
    { "null-data", no_argument, NULL, 'z' },
    { "initial-tab", no_argument, NULL, 'T' },
    { "line-buffered", no_argument, NULL, OPT_LINE_BUFFERED },
    { "label", required_argument, NULL, OPT_LABEL },
    { "dereference-recursive", no_argument, NULL, 'R' },
    { "include", required_argument, NULL, OPT_INCLUDE },
    { "exclude", required_argument, NULL, OPT_EXCLUDE },
    { "exclude-dir", required_argument, NULL, OPT_EXCLUDE_DIR },
    { "binary-files", required_argument, NULL, OPT_BINARY_FILES },
    { NULL, 0, NULL, 0 },
};

static void usage_hint(void)
{
    fprintf(stderr, "Usage: hay find [OPTION]... PATTERNS [FILE]...\n"
                    "Try 'hay find --help' for more information.\n");
}

/* Pattern sources are kept in order and decoded once --escapes is known. */
typedef struct source {
    bool is_file;
    const char *text;
} source;

static int add_source(find_config *cf, source src, bool escapes)
{
    char err[512];
    uint8_t *data = NULL;
    size_t len;
    if (src.is_file) {
        if (cli_read_all(src.text, &data, &len, err, sizeof err) < 0)
            goto fail;
    }
    const uint8_t *text = src.is_file ? data : (const uint8_t *)src.text;
    if (!src.is_file)
        len = strlen(src.text);
    if (pat_list_add_text(&cf->pats, text, len, escapes, src.is_file,
                          src.is_file ? src.text : "-e", err, sizeof err) < 0)
        goto fail;
    free(data);
    return 0;
fail:
    free(data);
    fprintf(stderr, "hay: %s\n", err);
    return -1;
}

/* find-case: fds a and b write to the same file (terminal). */
static bool same_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* --color's WHEN: 0 never, 1 always, 2 auto; -1 if unknown. */
static int parse_when(const char *s)
{
    if (!s || !strcmp(s, "auto") || !strcmp(s, "tty") || !strcmp(s, "if-tty"))
        return 2;
    if (!strcmp(s, "always") || !strcmp(s, "yes") || !strcmp(s, "force"))
        return 1;
    if (!strcmp(s, "never") || !strcmp(s, "no") || !strcmp(s, "none"))
        return 0;
    return -1;
}

static int parse_match_mode(const char *s, hay_match_mode *mode)
{
    if (!strcmp(s, "all"))
        *mode = HAY_MATCH_ALL;
    else if (!strcmp(s, "leftmost-first"))
        *mode = HAY_MATCH_LEFTMOST_FIRST;
    else if (!strcmp(s, "leftmost-longest"))
        *mode = HAY_MATCH_LEFTMOST_LONGEST;
    else
        return -1;
    return 0;
}

/* "device=D,PARAMS", "device=D", "PARAMS" or NULL, malloc'd. */
static int join_params(const char *device, const char *params, char **out)
{
    *out = NULL;
    if (!device && !params)
        return 0;
    size_t n = (device ? strlen(device) : 0) + (params ? strlen(params) : 0) + 16;
    if (!(*out = malloc(n)))
        return -1;
    snprintf(*out, n, "%s%s%s%s", device ? "device=" : "", device ? device : "",
             device && params && *params ? "," : "", params ? params : "");
    return 0;
}

/* A context length: a decimal count, saturated when huge (grep). */
static int parse_context(const char *s, uint64_t *out)
{
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return 0;
}

/* -m's NUM: a decimal count; a negative one means no limit (grep 3.8). */
static int parse_max(const char *s, find_config *cf)
{
    char *end;
    errno = 0;
    intmax_t v = strtoimax(s, &end, 10);
    if (end == s || *end)
        return -1;
    if (errno == ERANGE && v > 0)
        v = INTMAX_MAX;
    cf->has_max = v >= 0;
    cf->max_count = v >= 0 ? (uint64_t)v : 0;
    return 0;
}

int find_options_parse(int argc, char **argv, find_config *cf)
{
    memset(cf, 0, sizeof *cf);
    cf->with_filename = -1;
    cf->backend = HAY_BACKEND_AUTO;
    cf->schedule = HAY_SCHEDULE_DYNAMIC;
    cf->progress = true;
    cf->eol = '\n';
    cf->label = "(standard input)";
    cf->group_sep = "--";
    bool escapes = false, mode_given = false, no_unicode = false;
    bool have_default = false;
    uint64_t default_context = 0, digits = 0;
    int before = -1, after = -1, digit_optind = -1;
    int color = 0;
    const char *device = NULL, *params = NULL;
    source *src = calloc((size_t)argc + 1, sizeof *src);
    size_t nsrc = 0;
    if (!src)
        return -1;
    int c, rc = -1;
    uint64_t v;
    optind = 1;
    argv[0] = (char *)"hay find";   /* getopt's messages name the program */
    for (;;) {
        int this_optind = optind;
        c = getopt_long(argc, argv, "e:f:iFconblqHhraVvwxm:A:B:C:LsZzTRI0123456789",
                        long_opts, NULL);
        if (c == -1)
            break;
        if (c >= '0' && c <= '9') {
            /* -NUM: the digits of one argument make one number (grep). */
            if (digit_optind != this_optind)
                digits = 0;
            digits = digits > (UINT64_MAX - 9) / 10 ? UINT64_MAX
                                                    : digits * 10 + (uint64_t)(c - '0');
            digit_optind = this_optind;
            default_context = digits;
            have_default = true;
            continue;
        }
        switch (c) {
        case 'e': src[nsrc++] = (source){ false, optarg }; break;
        case 'f': src[nsrc++] = (source){ true, optarg }; break;
        case OPT_ESCAPES: escapes = true; break;
        case 'i': cf->icase = true; break;
        case 'F': break;
        case 'c': cf->count_lines = true; break;
        case OPT_COUNT_MATCHES:
            /* find-case: --count-matches=each */
            if (optarg && strcmp(optarg, "each") != 0) {
                fprintf(stderr, "hay: invalid argument '%s' for --count-matches (each)\n",
                        optarg);
                goto out;
            }
            cf->count_matches = true;
            cf->count_each = optarg != NULL;
            break;
        case OPT_NO_UNICODE: no_unicode = true; break;
        case 'o': cf->only = true; break;
        case 'n': cf->line_numbers = true; break;
        case 'b': cf->byte_offset = true; break;
        case 'l': cf->list = true; cf->list_without = false; break;
        case 'q': cf->quiet = true; break;
        case 'H': cf->with_filename = 1; break;
        case 'h': cf->with_filename = 0; break;
        case 'r': cf->recursive = true; break;
        case 'a': cf->text = true; cf->skip_binary = false; break;
        case 'I': cf->skip_binary = true; cf->text = false; break;
        case 'R': cf->recursive = cf->follow_links = true; break;
        case 'v': cf->invert = true; break;
        case 'w': cf->word = true; break;
        case 'x': cf->whole_line = true; break;
        case 'L': cf->list_without = true; cf->list = false; break;
        case 's': cf->no_messages = true; break;
        case 'Z': cf->null_names = true; break;
        case 'z': cf->eol = '\0'; break;
        case 'T': cf->initial_tab = true; break;
        case OPT_LINE_BUFFERED: cf->line_buffered = true; break;
        case OPT_LABEL: cf->label = optarg; break;
        case OPT_GROUP_SEP: cf->group_sep = optarg; break;
        case OPT_NO_GROUP_SEP: cf->group_sep = NULL; break;
        case 'm':
            if (parse_max(optarg, cf) < 0) {
                fprintf(stderr, "hay: invalid max count\n");
                goto out;
            }
            break;
        case 'A':
        case 'B':
        case 'C': {
            uint64_t n;
            if (parse_context(optarg, &n) < 0) {
                fprintf(stderr, "hay: %s: invalid context length argument\n", optarg);
                goto out;
            }
            if (c == 'C') {
                default_context = n;
                have_default = true;
            } else if (c == 'A') {
                cf->after = n;
                after = 1;
            } else {
                cf->before = n;
                before = 1;
            }
            break;
        }
        case OPT_INCLUDE:
        case OPT_EXCLUDE:
        case OPT_EXCLUDE_DIR:
            if (find_globs_add(&cf->globs, c == OPT_INCLUDE ? FIND_GLOB_INCLUDE
                                           : c == OPT_EXCLUDE ? FIND_GLOB_EXCLUDE
                                                              : FIND_GLOB_EXCLUDE_DIR,
                               optarg) < 0) {
                fprintf(stderr, "hay: out of memory\n");
                goto out;
            }
            break;
        case OPT_BINARY_FILES:
            if (!strcmp(optarg, "binary")) {
                cf->text = cf->skip_binary = false;
            } else if (!strcmp(optarg, "text")) {
                cf->text = true;
                cf->skip_binary = false;
            } else if (!strcmp(optarg, "without-match")) {
                cf->skip_binary = true;
                cf->text = false;
            } else {
                fprintf(stderr, "hay: unknown binary-files type\n");
                goto out;
            }
            break;
        case 'V':
            printf("hay find (haystack) %d.%d.%d\n", HAY_VERSION_MAJOR,
                   HAY_VERSION_MINOR, HAY_VERSION_PATCH);
            rc = 1;
            goto out;
        case OPT_JSON: cf->json = true; break;
        case OPT_STATS: cf->stats = true; break;
        case OPT_NO_PROGRESS: cf->progress = false; break;
        case OPT_COLOR:
            if ((color = parse_when(optarg)) < 0) {
                fprintf(stderr, "hay: invalid argument '%s' for --color (never, always, auto)\n", optarg);
                goto out;
            }
            break;
        case OPT_BACKEND:
            if (hay_backend_parse(optarg, &cf->backend) != HAY_OK) {
                fprintf(stderr, "hay: unknown backend '%s' (auto, cpu, cuda, opencl)\n", optarg);
                goto out;
            }
            break;
        case OPT_SORT:
            if (strcmp(optarg, "path") && strcmp(optarg, "none")) {
                fprintf(stderr, "hay: invalid argument '%s' for --sort (path, none)\n", optarg);
                goto out;
            }
            cf->sort_none = !strcmp(optarg, "none");
            break;
        case OPT_IGNORE: cf->ignore_files = true; break;
        case OPT_NO_HIDDEN: cf->skip_hidden = true; break;
        case OPT_ALGO: cf->algo = optarg; break;
        case OPT_DEVICE: device = optarg; break;
        case OPT_PARAMS: params = optarg; break;
        case OPT_THREADS:
            if (cli_parse_size(optarg, &v) < 0 || v > 4096) {
                fprintf(stderr, "hay: invalid thread count '%s'\n", optarg);
                goto out;
            }
            cf->threads = (unsigned)v;
            break;
        case OPT_SCHEDULE:
            if (!strcmp(optarg, "dynamic"))
                cf->schedule = HAY_SCHEDULE_DYNAMIC;
            else if (!strcmp(optarg, "static"))
                cf->schedule = HAY_SCHEDULE_STATIC;
            else {
                fprintf(stderr, "hay: invalid schedule '%s' (static, dynamic)\n", optarg);
                goto out;
            }
            break;
        case OPT_CHUNK:
            if (cli_parse_size(optarg, &v) < 0 || v == 0) {
                fprintf(stderr, "hay: invalid chunk size '%s'\n", optarg);
                goto out;
            }
            cf->chunk = (size_t)v;
            break;
        case OPT_MATCH_MODE:
            if (parse_match_mode(optarg, &cf->mode) < 0) {
                fprintf(stderr, "hay: invalid match mode '%s' (all, leftmost-first, "
                                "leftmost-longest)\n", optarg);
                goto out;
            }
            mode_given = true;
            break;
        case OPT_HELP:
            usage(stdout);
            rc = 1;
            goto out;
        default:
            usage_hint();
            goto out;
        }
    }
    if (nsrc == 0) {
        if (optind >= argc) {
            usage_hint();
            goto out;
        }
        src[nsrc++] = (source){ false, argv[optind++] };
    }
    for (size_t i = 0; i < nsrc; i++)
        if (add_source(cf, src[i], escapes) < 0)
            goto out;
    /* -A and -B win over -C and -NUM, whatever their order (grep). */
    if (after < 0)
        cf->after = default_context;
    if (before < 0)
        cf->before = default_context;
    cf->context = after >= 0 || before >= 0 || have_default;
    /* grep's selection for lines and -o; every occurrence for the outputs
     * that report occurrences. */
    if (!mode_given)
        cf->mode = cf->count_matches ? HAY_MATCH_ALL : HAY_MATCH_LEFTMOST_LONGEST;
    /* -w and -x test every occurrence (a longer one failing the test may
     * hide a shorter one passing it); lines.c picks grep's matches among
     * those that pass (for the lines of --json too). */
    if ((cf->word || cf->whole_line) && !cf->count_matches)
        cf->mode = HAY_MATCH_ALL;
    /* find-case: the locale decides Unicode -i; a bar on the terminal
     * that shows the matches would write over them. */
    cf->unicode = !no_unicode && find_casefold_locale_is_utf8();
    cf->progress = cf->progress && isatty(STDERR_FILENO) && !same_file(STDOUT_FILENO,
                                                                       STDERR_FILENO);
    cf->diag_log = getenv("HAY_SPLIT_DEBUG") || getenv("HAY_CUDA_REG_DEBUG");
    cf->color = color == 1 ||
                (color == 2 && isatty(STDOUT_FILENO) &&
                 getenv("TERM") && strcmp(getenv("TERM"), "dumb") != 0);
    /* Lines printed whole, counted or listed: any occurrence selects its
     * line (no pattern spans lines), so every occurrence is asked for.  A
     * leftmost mode's filter decides a match only once the scan is the
     * longest pattern's length past it: a scan that stops on a selected
     * line would stop that late, and scan it again from the next line
     * (docs/notes/2026-11-26-find-dense.md). */
    if (!cf->count_matches && !find_shows_matches(cf))
        cf->mode = HAY_MATCH_ALL;
    cf->device_given = device != NULL;
    if (join_params(device, params, &cf->params) < 0)
        goto out;
    cf->files = argv + optind;
    cf->nfiles = argc - optind;
    rc = 0;
out:
    free(src);
    return rc;
}

bool find_shows_matches(const find_config *cf)
{
    bool prints = !cf->count_lines && !cf->list && !cf->list_without && !cf->quiet;
    /* -v prints the lines without a match: their matches show only on
     * context lines in colour (grep), or in --json's records. */
    return prints && (cf->only || cf->color || cf->json) &&
           !(cf->invert && !cf->json && !(cf->color && cf->context && !cf->only));
}

void find_options_free(find_config *cf)
{
    find_globs_free(cf->globs);
    cf->globs = NULL;
    free(cf->params);
    pat_list_free(&cf->pats);
}
