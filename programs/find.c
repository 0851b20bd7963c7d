/*
 * find.c - `hay find`: grep -F-like search of files, directories and stdin.
 *
 * The parts: option parsing into a validated config; input (mapping files,
 * reading pipes, walking directories, binary detection); the match callback,
 * which turns the library's matches (in order of end offset) into lines;
 * and printing.  Only the public API of libhaystack is used.
 */
#include "cli.h"
#include "patfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BINARY_PROBE ((size_t)32 << 10)
#define PROGRESS_MIN ((uint64_t)256 << 20)

/* grep's default colours (GREP_COLORS ms=01;31:fn=35:ln=32:bn=32:se=36). */
#define C_MATCH "\33[01;31m\33[K"
#define C_FILE "\33[35m\33[K"
#define C_NUM "\33[32m\33[K"
#define C_SEP "\33[36m\33[K"
#define C_END "\33[m\33[K"

typedef struct config {
    pat_list pats;
    bool escapes, icase, count_lines, count_matches, line_numbers;
    bool byte_offset, only, list, quiet, recursive, text, json, stats;
    bool progress;
    int with_filename;   /* -1 auto, 0 never, 1 always */
    bool color;
    unsigned threads;
    hay_backend backend;
    const char *algo;
    hay_schedule schedule;
    size_t chunk;
    const char *device;   /* --device: the engine parameter device=... */
    const char *params;   /* --params */
    char *params_all;     /* both, as given to hay_compile_opts.params */
    int match_mode;      /* a hay_match_mode, or -1: the output's default */
    hay_match_mode mode; /* what the scans report */
} config;

typedef struct totals {
    double compile_s, map_s, scan_s;
    uint64_t bytes;
    bool any_match, error;
    unsigned dev_scans;   /* scans that ran on a GPU backend */
    /* The library's per-scan stats, summed over files. */
    hay_scan_stats lib;
    bool lib_ran;
} totals;

typedef struct span {
    uint64_t s, e;
} span;

/* State of one file's search. */
typedef struct search {
    const config *cf;
    const hay_patterns *set;
    const char *name;
    const uint8_t *buf;
    uint64_t len;
    bool binary, print_name, matched, every_line;
    bool have_line;
    uint64_t line_start, line_end;   /* current line; line_end at '\n' or len */
    uint64_t next_line_from;         /* where the line after the current one starts */
    uint64_t lineno, lineno_pos;     /* lineno is the line of lineno_pos */
    uint64_t lines_matched;
    span *pend;                      /* matches on the current line */
    size_t npend, cap;
    bool nomem;
    double progress_t0, progress_last;
} search;

static void usage_find(FILE *f)
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
"  -i, --ignore-case         ASCII case-insensitive matching\n"
"  -F, --fixed-strings       accepted for grep compatibility (always on)\n"
"\n"
"Output:\n"
"  -c, --count               print the number of matching lines per file\n"
"      --count-matches       print the number of occurrences of every pattern,\n"
"                            overlapping ones included, per file\n"
"  -o, --only-matching       print only the matched parts (leftmost-longest,\n"
"                            non-overlapping, as grep -o)\n"
"      --match-mode=MODE     which matches -o, --color, --json and\n"
"                            --count-matches report: all (every occurrence),\n"
"                            leftmost-first (non-overlapping, the pattern given\n"
"                            first wins) or leftmost-longest (the longest wins);\n"
"                            default leftmost-longest for lines and -o, all for\n"
"                            --json and --count-matches\n"
"  -n, --line-number         prefix lines with their line number\n"
"  -b, --byte-offset         prefix with the 0-based byte offset\n"
"  -l, --files-with-matches  print only names of files with matches\n"
"  -q, --quiet               print nothing; exit status only\n"
"  -H, --with-filename       print the file name for each match\n"
"  -h, --no-filename         never print file names\n"
"      --color[=WHEN]        highlight matches: never, always, auto\n"
"      --json                one JSON object per occurrence:\n"
"                            {\"file\",\"pattern\",\"offset\",\"line\"}\n"
"\n"
"Input:\n"
"  -r, --recursive           search directories recursively\n"
"  -a, --text                treat binary files as text\n"
"\n"
"Engine:\n"
"      --backend=NAME        auto (default), cpu, cuda, opencl\n"
"      --algo=NAME           auto (default), simd, bm, horspool, ac, naive\n"
"      --threads=N           worker threads (0 = all cores, default)\n"
"      --schedule=KIND       dynamic (default) or static chunk scheduling\n"
"      --chunk-size=BYTES    chunk size for dynamic scheduling\n"
"      --params=KEY=VALUE,...  engine parameters (cpu: dfa_budget=BYTES,\n"
"                            pfac_budget=BYTES)\n"
"      --stats               print the engine choice and time per phase\n"
"                            (GPU backends: init, prepare, write, kernel, read,\n"
"                            with energy where the device reports it)\n"
"      --device=P:D          OpenCL platform P, device D (see 'hay devices')\n"
"      --params=K=V,...      engine and GPU driver knobs (e.g. CUDA: table=tex,\n"
"                            bpt=4; OpenCL: transfer=copy|map, local=0|1, wg=N,\n"
"                            bpw=N; see docs/DESIGN.md)\n"
"      --no-progress         no progress bar on a terminal\n"
"\n"
"Exit status: 0 if a line was selected, 1 if none, 2 on error.\n", f);
}

/* Options ------------------------------------------------------------------ */

enum {
    OPT_ESCAPES = 256, OPT_COUNT_MATCHES, OPT_COLOR, OPT_JSON, OPT_STATS,
    OPT_THREADS, OPT_BACKEND, OPT_ALGO, OPT_SCHEDULE, OPT_CHUNK,
    OPT_NO_PROGRESS, OPT_HELP, OPT_MATCH_MODE, OPT_PARAMS
};

enum { OPT_DEVICE = 400 };

static const struct option long_opts[] = {
    { "device", required_argument, NULL, OPT_DEVICE },
    { "params", required_argument, NULL, OPT_PARAMS },
    { "regexp", required_argument, NULL, 'e' },
    { "file", required_argument, NULL, 'f' },
    { "escapes", no_argument, NULL, OPT_ESCAPES },
    { "ignore-case", no_argument, NULL, 'i' },
    { "fixed-strings", no_argument, NULL, 'F' },
    { "count", no_argument, NULL, 'c' },
    { "count-matches", no_argument, NULL, OPT_COUNT_MATCHES },
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
    { "backend", required_argument, NULL, OPT_BACKEND },
    { "algo", required_argument, NULL, OPT_ALGO },
    { "threads", required_argument, NULL, OPT_THREADS },
    { "schedule", required_argument, NULL, OPT_SCHEDULE },
    { "chunk-size", required_argument, NULL, OPT_CHUNK },
    { "stats", no_argument, NULL, OPT_STATS },
    { "match-mode", required_argument, NULL, OPT_MATCH_MODE },
    { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

/* Pattern sources are kept in order and decoded once --escapes is known. */
typedef struct source {
    bool is_file;
    const char *text;
} source;

static int add_pattern_text(config *cf, const uint8_t *t, size_t n,
                            bool from_file, const char *origin)
{
    char err[512];
    if (pat_list_add_text(&cf->pats, t, n, cf->escapes, from_file, origin,
                          err, sizeof err) < 0) {
        fprintf(stderr, "hay: %s\n", err);
        return -1;
    }
    return 0;
}

static int add_pattern_file(config *cf, const char *path)
{
    uint8_t *data = NULL;
    size_t len = 0;
    char err[512];
    if (cli_read_all(path, &data, &len, err, sizeof err) < 0) {
        fprintf(stderr, "hay: %s\n", err);
        return -1;
    }
    int r = add_pattern_text(cf, data, len, true, path);
    free(data);
    return r;
}

static int parse_opts(int argc, char **argv, config *cf, int *first_file)
{
    memset(cf, 0, sizeof *cf);
    cf->with_filename = -1;
    cf->backend = HAY_BACKEND_AUTO;
    cf->schedule = HAY_SCHEDULE_DYNAMIC;
    cf->progress = true;
    cf->match_mode = -1;
    int color_mode = 0;   /* never */
    source *src = calloc((size_t)argc + 1, sizeof *src);
    size_t nsrc = 0;
    if (!src)
        return -1;
    int c, rc = -1;
    optind = 1;
    argv[0] = (char *)"hay find";   /* getopt's messages name the program */
    while ((c = getopt_long(argc, argv, "e:f:iFconblqHhraV", long_opts, NULL)) != -1) {
        switch (c) {
        case 'e': src[nsrc++] = (source){ false, optarg }; break;
        case 'f': src[nsrc++] = (source){ true, optarg }; break;
        case OPT_ESCAPES: cf->escapes = true; break;
        case 'i': cf->icase = true; break;
        case 'F': break;
        case 'c': cf->count_lines = true; break;
        case OPT_COUNT_MATCHES: cf->count_matches = true; break;
        case 'o': cf->only = true; break;
        case 'n': cf->line_numbers = true; break;
        case 'b': cf->byte_offset = true; break;
        case 'l': cf->list = true; break;
        case 'q': cf->quiet = true; break;
        case 'H': cf->with_filename = 1; break;
        case 'h': cf->with_filename = 0; break;
        case 'r': cf->recursive = true; break;
        case 'a': cf->text = true; break;
        case OPT_JSON: cf->json = true; break;
        case OPT_STATS: cf->stats = true; break;
        case OPT_NO_PROGRESS: cf->progress = false; break;
        case OPT_COLOR:
            if (!optarg || !strcmp(optarg, "auto") || !strcmp(optarg, "tty") ||
                !strcmp(optarg, "if-tty"))
                color_mode = 2;
            else if (!strcmp(optarg, "always") || !strcmp(optarg, "yes") ||
                     !strcmp(optarg, "force"))
                color_mode = 1;
            else if (!strcmp(optarg, "never") || !strcmp(optarg, "no") ||
                     !strcmp(optarg, "none"))
                color_mode = 0;
            else {
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
        case OPT_ALGO: cf->algo = optarg; break;
        case OPT_DEVICE: cf->device = optarg; break;
        case OPT_PARAMS: cf->params = optarg; break;
        case OPT_THREADS: {
            uint64_t v;
            if (cli_parse_size(optarg, &v) < 0 || v > 4096) {
                fprintf(stderr, "hay: invalid thread count '%s'\n", optarg);
                goto out;
            }
            cf->threads = (unsigned)v;
            break;
        }
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
        case OPT_CHUNK: {
            uint64_t v;
            if (cli_parse_size(optarg, &v) < 0 || v == 0) {
                fprintf(stderr, "hay: invalid chunk size '%s'\n", optarg);
                goto out;
            }
            cf->chunk = (size_t)v;
            break;
        }
        case OPT_MATCH_MODE:
            if (!strcmp(optarg, "all"))
                cf->match_mode = HAY_MATCH_ALL;
            else if (!strcmp(optarg, "leftmost-first"))
                cf->match_mode = HAY_MATCH_LEFTMOST_FIRST;
            else if (!strcmp(optarg, "leftmost-longest"))
                cf->match_mode = HAY_MATCH_LEFTMOST_LONGEST;
            else {
                fprintf(stderr, "hay: invalid match mode '%s' (all, leftmost-first, "
                                "leftmost-longest)\n", optarg);
                goto out;
            }
            break;
        case OPT_HELP: usage_find(stdout); exit(0);
        default:
            fprintf(stderr, "Usage: hay find [OPTION]... PATTERNS [FILE]...\n"
                            "Try 'hay find --help' for more information.\n");
            goto out;
        }
    }
    if (nsrc == 0) {
        if (optind >= argc) {
            fprintf(stderr, "Usage: hay find [OPTION]... PATTERNS [FILE]...\n"
                            "Try 'hay find --help' for more information.\n");
            goto out;
        }
        src[nsrc++] = (source){ false, argv[optind++] };
    }
    for (size_t i = 0; i < nsrc; i++) {
        int r = src[i].is_file
                    ? add_pattern_file(cf, src[i].text)
                    : add_pattern_text(cf, (const uint8_t *)src[i].text,
                                       strlen(src[i].text), false, "-e");
        if (r < 0)
            goto out;
    }
    /* grep's selection for lines and -o; every occurrence for the outputs
     * that report occurrences. */
    if (cf->match_mode >= 0)
        cf->mode = (hay_match_mode)cf->match_mode;
    else
        cf->mode = cf->json || cf->count_matches ? HAY_MATCH_ALL
                                                 : HAY_MATCH_LEFTMOST_LONGEST;
    cf->color = color_mode == 1 ||
                (color_mode == 2 && isatty(STDOUT_FILENO) &&
                 getenv("TERM") && strcmp(getenv("TERM"), "dumb") != 0);
    if (cf->device || cf->params) {
        size_t n = (cf->device ? strlen(cf->device) : 0) +
                   (cf->params ? strlen(cf->params) : 0) + 16;
        cf->params_all = malloc(n);
        if (!cf->params_all)
            goto out;
        snprintf(cf->params_all, n, "%s%s%s%s", cf->device ? "device=" : "",
                 cf->device ? cf->device : "", cf->device && cf->params ? "," : "",
                 cf->params ? cf->params : "");
    }
    *first_file = optind;
    rc = 0;
out:
    free(src);
    return rc;
}

/* Printing ----------------------------------------------------------------- */

static void put_sep(const search *s, char sep)
{
    if (s->cf->color)
        fputs(C_SEP, stdout), putchar(sep), fputs(C_END, stdout);
    else
        putchar(sep);
}

/* A line number or byte offset and its separator. */
static void put_number(const search *s, uint64_t v)
{
    printf(s->cf->color ? C_NUM "%" PRIu64 C_END : "%" PRIu64, v);
    put_sep(s, ':');
}

static void put_prefix(const search *s, uint64_t lineno, uint64_t offset)
{
    const config *cf = s->cf;
    if (s->print_name) {
        if (cf->color)
            printf(C_FILE "%s" C_END, s->name);
        else
            fputs(s->name, stdout);
        put_sep(s, ':');
    }
    if (cf->line_numbers)
        put_number(s, lineno);
    if (cf->byte_offset)
        put_number(s, offset);
}

static uint64_t count_newlines(const uint8_t *p, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++)
        c += p[i] == '\n';
    return c;
}

/* The line number of the current line, counting forward incrementally. */
static uint64_t current_lineno(search *s)
{
    s->lineno += count_newlines(s->buf + s->lineno_pos, s->line_start - s->lineno_pos);
    s->lineno_pos = s->line_start;
    return s->lineno;
}

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;   /* longest first */
    return 0;
}

/* The spans of the current line in order of start.  The library selects
 * them in the leftmost modes (they come in order, without overlaps); every
 * occurrence (--match-mode all) comes in order of end. */
static size_t order_spans(search *s)
{
    if (s->cf->mode == HAY_MATCH_ALL)
        qsort(s->pend, s->npend, sizeof *s->pend, cmp_span);
    return s->npend;
}

static void print_line(search *s, uint64_t ls, uint64_t le, uint64_t lineno,
                       size_t nspans)
{
    put_prefix(s, lineno, ls);
    if (s->cf->color && nspans) {
        uint64_t pos = ls;
        for (size_t i = 0; i < nspans; i++) {
            /* Overlapping spans (--match-mode all): colour the union. */
            uint64_t a = s->pend[i].s > pos ? s->pend[i].s : pos;
            if (s->pend[i].e <= a)
                continue;
            fwrite(s->buf + pos, 1, a - pos, stdout);
            fputs(C_MATCH, stdout);
            fwrite(s->buf + a, 1, s->pend[i].e - a, stdout);
            fputs(C_END, stdout);
            pos = s->pend[i].e;
        }
        fwrite(s->buf + pos, 1, le - pos, stdout);
    } else {
        fwrite(s->buf + ls, 1, le - ls, stdout);
    }
    putchar('\n');
}

/* Prints the current line (or its matched parts) and forgets its matches. */
static void flush_line(search *s)
{
    if (!s->have_line)
        return;
    const config *cf = s->cf;
    uint64_t lineno = cf->line_numbers ? current_lineno(s) : 0;
    size_t k = s->npend ? order_spans(s) : 0;
    if (cf->only) {
        for (size_t i = 0; i < k; i++) {
            put_prefix(s, lineno, s->pend[i].s);
            if (cf->color)
                fputs(C_MATCH, stdout);
            fwrite(s->buf + s->pend[i].s, 1, s->pend[i].e - s->pend[i].s, stdout);
            if (cf->color)
                fputs(C_END, stdout);
            putchar('\n');
        }
    } else {
        print_line(s, s->line_start, s->line_end, lineno, k);
    }
    s->npend = 0;
    s->have_line = false;
}

static void json_string(const char *t)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* The match callback --------------------------------------------------------- */

static bool is_printing(const config *cf)
{
    return !cf->count_lines && !cf->list && !cf->quiet;
}

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    search *s = ctx;
    const config *cf = s->cf;

    if (cf->json) {
        s->matched = true;
        /* The line of the match start.  Starts are not monotone when
         * patterns differ in length, so count in either direction. */
        if (start >= s->lineno_pos)
            s->lineno += count_newlines(s->buf + s->lineno_pos, start - s->lineno_pos);
        else
            s->lineno -= count_newlines(s->buf + start, s->lineno_pos - start);
        s->lineno_pos = start;
        fputs("{\"file\":", stdout);
        json_string(s->name);
        printf(",\"pattern\":%" PRIu32 ",\"offset\":%" PRIu64 ",\"line\":%" PRIu64 "}\n",
               id, start, s->lineno);
        return 0;
    }
    /* grep is line based: an occurrence holding a newline selects nothing. */
    if (memchr(s->buf + start, '\n', end - start))
        return 0;
    s->matched = true;
    if (cf->list || cf->quiet)
        return 1;
    if (s->binary && !cf->text && is_printing(cf))
        return 1;   /* the caller prints "Binary file ... matches" */

    bool same_line = s->have_line && start >= s->line_start && start < s->line_end;
    if (!same_line) {
        if (!cf->count_lines)
            flush_line(s);
        /* The new line starts after the last newline before the match, which
         * is no earlier than the end of the previous line. */
        uint64_t floor = s->next_line_from;
        const uint8_t *nl = start > floor
                                ? memrchr(s->buf + floor, '\n', start - floor) : NULL;
        s->line_start = nl ? (uint64_t)(nl - s->buf) + 1 : floor;
        const uint8_t *e = memchr(s->buf + end, '\n', s->len - end);
        s->line_end = e ? (uint64_t)(e - s->buf) : s->len;
        s->next_line_from = s->line_end < s->len ? s->line_end + 1 : s->len;
        s->have_line = true;
        s->lines_matched++;
    }
    if (cf->count_lines)
        return 0;
    if (s->npend == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        span *p = realloc(s->pend, cap * sizeof *p);
        if (!p) {
            s->nomem = true;
            return 1;
        }
        s->pend = p;
        s->cap = cap;
    }
    s->pend[s->npend++] = (span){ start, end };
    return 0;
}

/* Every line matches (an empty pattern was given): no scan is needed except
 * for -o, --json and --count-matches, which report the non-empty ones. */
static void every_line(search *s)
{
    const config *cf = s->cf;
    uint64_t lines = count_newlines(s->buf, s->len);
    if (s->len && s->buf[s->len - 1] != '\n')
        lines++;
    s->lines_matched = lines;
    s->matched = lines > 0;
    if (!is_printing(cf) || !s->matched)
        return;
    if (s->binary && !cf->text)
        return;
    uint64_t pos = 0, lineno = 1;
    while (pos < s->len) {
        const uint8_t *nl = memchr(s->buf + pos, '\n', s->len - pos);
        uint64_t end = nl ? (uint64_t)(nl - s->buf) : s->len;
        print_line(s, pos, end, lineno++, 0);
        pos = end + 1;
    }
}

/* Input -------------------------------------------------------------------- */

typedef struct input {
    const uint8_t *buf;
    uint64_t len;
    void *map;          /* munmap(map, map_len) on close */
    uint64_t map_len;
    uint8_t *heap;      /* free on close */
} input;

static void input_close(input *in)
{
    if (in->map)
        munmap(in->map, (size_t)in->map_len);
    free(in->heap);
    memset(in, 0, sizeof *in);
}

/* Maps a regular file; reads anything else (pipes, terminals) whole. */
static int input_open_fd(int fd, const char *name, input *in)
{
    memset(in, 0, sizeof *in);
    struct stat st;
    if (fstat(fd, &st) < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);   /* stdin may be part read */
        if (pos < 0)
            pos = 0;
        if (st.st_size <= pos)
            return 0;
        /* Shared, not private: read-only either way, and a shared mapping
         * is one the CUDA driver can pin in place (params transfer=register,
         * src/cuda/hostreg.h); pinning a private one copies every page. */
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "hay: %s: cannot map: %s\n", name, strerror(errno));
            return -1;
        }
        in->map = m;
        in->map_len = (uint64_t)st.st_size;
        in->buf = (const uint8_t *)m + pos;
        in->len = (uint64_t)(st.st_size - pos);
        return 0;
    }
    char err[512];
    size_t len = 0;
    if (cli_read_fd(fd, name, &in->heap, &len, err, sizeof err) < 0) {
        fprintf(stderr, "hay: %s\n", err);
        return -1;
    }
    in->buf = in->heap;
    in->len = len;
    return 0;
}

/* Searching one input ------------------------------------------------------- */

typedef struct run {
    const config *cf;
    hay_patterns *set;      /* NULL when only empty patterns were given */
    hay_scratch *scratch;
    totals t;
    bool print_names;       /* always print file names */
    bool names_in_walk;     /* print them for files found inside directories */
    bool implicit_dot;      /* -r with no operand: names relative to "." */
} run;

static void log_line(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static void on_progress(uint64_t done, uint64_t total, void *ctx)
{
    search *s = ctx;
    double now = cli_now();
    if (now - s->progress_last < 0.1 && done < total)
        return;
    s->progress_last = now;
    int width = 30, fill = (int)((double)done / (double)total * width);
    double secs = now - s->progress_t0;
    fprintf(stderr, "\rhay: %.40s [%.*s%*s] %3d%% %.2f GB/s", s->name, fill,
            "==============================", width - fill, "",
            (int)(100.0 * (double)done / (double)total),
            secs > 0 ? (double)done / secs / 1e9 : 0.0);
    if (done >= total)
        fprintf(stderr, "\r\33[K");
}

static void search_buffer(run *r, const char *name, const uint8_t *buf,
                          uint64_t len, bool walked)
{
    const config *cf = r->cf;
    search s;
    memset(&s, 0, sizeof s);
    s.cf = cf;
    s.set = r->set;
    s.name = name;
    s.buf = buf;
    s.len = len;
    s.print_name = r->print_names || (walked && r->names_in_walk);
    s.lineno = 1;
    s.binary = len && memchr(buf, 0, len < BINARY_PROBE ? (size_t)len : BINARY_PROBE);
    s.every_line = cf->pats.empty > 0;

    hay_scan_opts so;
    hay_scan_opts_init(&so);
    so.threads = cf->threads;
    so.schedule = cf->schedule;
    so.chunk_size = cf->chunk;
    if (cf->progress && len >= PROGRESS_MIN && isatty(STDERR_FILENO)) {
        so.progress = on_progress;
        so.progress_ctx = &s;
        s.progress_t0 = cli_now();
    }

    /* The library's diagnostic timelines (backend auto's split, the CUDA
     * driver's pinning), asked for by environment variable. */
    if (getenv("HAY_SPLIT_DEBUG") || getenv("HAY_CUDA_REG_DEBUG"))
        so.log = log_line;

    hay_scan_stats lib;
    memset(&lib, 0, sizeof lib);
    so.stats = cf->stats ? &lib : NULL;
    double t0 = cli_now();
    hay_status st = HAY_OK;
    uint64_t count = 0;
    if (cf->count_matches) {
        if (r->set && len)
            st = hay_scan_count(r->set, r->scratch, buf, len, &so, &count);
        s.matched = count > 0;
    } else if (s.every_line && !cf->only && !cf->json) {
        every_line(&s);
    } else {
        if (r->set && len) {
            st = hay_scan(r->set, r->scratch, buf, len, &so, on_match, &s);
            if (st == HAY_STOPPED)
                st = HAY_OK;
            if (!cf->count_lines && !(s.binary && !cf->text) && is_printing(cf))
                flush_line(&s);
        }
        if (s.every_line && len)   /* -o or --json with an empty pattern */
            s.matched = true;
    }
    r->t.scan_s += cli_now() - t0;
    r->t.bytes += len;
    if (lib.total_seconds > 0) {   /* the library filled the stats */
        hay_scan_stats *a = &r->t.lib;
        a->backend = lib.backend;
        a->algo = lib.algo;
        a->note = lib.note;
        a->init_seconds += lib.init_seconds;
        a->prepare_seconds += lib.prepare_seconds;
        a->copy_in_seconds += lib.copy_in_seconds;
        a->kernel_seconds += lib.kernel_seconds;
        a->copy_out_seconds += lib.copy_out_seconds;
        a->total_seconds += lib.total_seconds;
        r->t.lib_ran = true;
        a->split_cpu_bytes += lib.split_cpu_bytes;
        a->split_gpu_bytes += lib.split_gpu_bytes;
        a->split_cpu_seconds += lib.split_cpu_seconds;
        a->split_gpu_seconds += lib.split_gpu_seconds;
        if (lib.backend == HAY_BACKEND_CUDA || lib.backend == HAY_BACKEND_OPENCL) {
            /* Energy: the device scans only; one unreadable phase makes
             * that phase's sum unavailable. */
            double *j[] = { &a->init_joules, &a->prepare_joules, &a->copy_in_joules,
                            &a->kernel_joules, &a->copy_out_joules, &a->energy_joules };
            const double add[] = { lib.init_joules, lib.prepare_joules, lib.copy_in_joules,
                                   lib.kernel_joules, lib.copy_out_joules, lib.energy_joules };
            for (int k = 0; k < 6; k++)
                *j[k] = (*j[k] < 0 || add[k] < 0) ? -1 : *j[k] + add[k];
            a->energy_method = lib.energy_method;
            r->t.dev_scans++;
        }
    }

    if (s.nomem)
        st = HAY_ERR_NOMEM;
    if (st < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(st));
        r->t.error = true;
    }
    if (s.matched)
        r->t.any_match = true;

    if (cf->quiet) {
        /* nothing */
    } else if (cf->list) {
        if (s.matched)
            printf("%s\n", name);
    } else if (cf->count_matches) {
        if (s.print_name)
            printf("%s:", name);
        printf("%" PRIu64 "\n", count);
    } else if (cf->count_lines) {
        if (s.print_name)
            printf("%s:", name);
        printf("%" PRIu64 "\n", s.lines_matched);
    } else if (s.matched && s.binary && !cf->text && !cf->json) {
        printf("Binary file %s matches\n", name);
    }
    free(s.pend);
}

static int count_stream_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)ctx;
    return 0;
}

/* --count-matches on a pipe: stream it through in pieces instead of reading
 * it whole; matches that span two reads are counted once. */
static void count_pipe(run *r, int fd, const char *name, bool walked)
{
    uint64_t count = 0, bytes = 0;
    hay_stream *stream = NULL;
    size_t cap = (size_t)1 << 20;
    uint8_t *buf = malloc(cap);
    hay_status st = buf ? HAY_OK : HAY_ERR_NOMEM;
    if (st == HAY_OK && r->set)
        st = hay_stream_open(r->set, count_stream_match, &count, &stream);
    double t0 = cli_now();
    while (st == HAY_OK) {
        ssize_t got = read(fd, buf, cap);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "hay: %s: %s\n", name, strerror(errno));
            r->t.error = true;
            break;
        }
        if (got == 0)
            break;
        bytes += (uint64_t)got;
        if (stream)
            st = hay_stream_write(stream, buf, (size_t)got);
    }
    r->t.scan_s += cli_now() - t0;
    r->t.bytes += bytes;
    hay_stream_close(stream);
    free(buf);
    if (st < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(st));
        r->t.error = true;
    }
    if (count)
        r->t.any_match = true;
    if (r->cf->quiet) {
        /* nothing */
    } else if (r->cf->list) {
        if (count)
            printf("%s\n", name);
    } else {
        if (r->print_names || (walked && r->names_in_walk))
            printf("%s:", name);
        printf("%" PRIu64 "\n", count);
    }
}

static void search_fd(run *r, int fd, const char *name, bool walked)
{
    struct stat sb;
    if (r->cf->count_matches && fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        count_pipe(r, fd, name, walked);
        return;
    }
    double t0 = cli_now();
    input in;
    if (input_open_fd(fd, name, &in) < 0) {
        r->t.error = true;
        return;
    }
    r->t.map_s += cli_now() - t0;
    search_buffer(r, name, in.buf, in.len, walked);
    input_close(&in);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void search_path(run *r, const char *path, bool top);

static void walk_dir(run *r, const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "hay: %s: %s\n", path, strerror(errno));
        r->t.error = true;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        /* grep -r with no operand names files relative to ".". */
        bool bare = r->implicit_dot && !strcmp(path, ".");
        size_t pl = bare ? 0 : strlen(path);
        bool slash = pl && path[pl - 1] == '/';
        char *full = malloc(pl + strlen(e->d_name) + 2);
        if (!full)
            break;
        if (bare)
            strcpy(full, e->d_name);
        else
            sprintf(full, slash ? "%s%s" : "%s/%s", path, e->d_name);
        names[n++] = full;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        search_path(r, names[i], false);
        free(names[i]);
    }
    free(names);
}

static void search_path(run *r, const char *path, bool top)
{
    if (top && !strcmp(path, "-")) {
        search_fd(r, STDIN_FILENO, "(standard input)", false);
        return;
    }
    struct stat st;
    /* Inside a walk, symbolic links are not followed (as grep -r). */
    if ((top ? stat(path, &st) : lstat(path, &st)) < 0) {
        fprintf(stderr, "hay: %s: %s\n", path, strerror(errno));
        r->t.error = true;
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        if (r->cf->recursive) {
            walk_dir(r, path);
        } else {
            fprintf(stderr, "hay: %s: Is a directory\n", path);
            r->t.error = true;
        }
        return;
    }
    if (!top && !S_ISREG(st.st_mode))
        return;   /* devices, fifos and links met while walking */
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "hay: %s: %s\n", path, strerror(errno));
        r->t.error = true;
        return;
    }
    search_fd(r, fd, path, !top);
    close(fd);
}

/* Entry point ----------------------------------------------------------------- */

static int compile_set(run *r)
{
    const config *cf = r->cf;
    if (cf->pats.n == 0)
        return 0;   /* only empty patterns, or none at all */
    hay_compile_opts co;
    hay_compile_opts_init(&co);
    co.flags = cf->icase ? HAY_CASELESS : 0;
    co.backend = cf->backend;
    co.algo = cf->algo;
    co.mode = cf->mode;
    co.params = cf->params_all;
    /* Lines never match across a newline (grep), so for the line outputs a
     * pattern holding one is left out: selected by the leftmost modes it
     * would hide the matches it overlaps. */
    const hay_pattern *items = cf->pats.items;
    hay_pattern *kept = NULL;
    size_t n = cf->pats.n;
    if (!cf->json && !cf->count_matches) {
        size_t k = 0;
        for (size_t i = 0; i < cf->pats.n; i++)
            k += memchr(items[i].data, '\n', items[i].len) == NULL;
        if (k < n) {
            kept = malloc((k ? k : 1) * sizeof *kept);
            if (!kept) {
                fprintf(stderr, "hay: %s\n", hay_strerror(HAY_ERR_NOMEM));
                return -1;
            }
            k = 0;
            for (size_t i = 0; i < cf->pats.n; i++)
                if (!memchr(items[i].data, '\n', items[i].len))
                    kept[k++] = items[i];
            items = kept;
            n = k;
            if (n == 0) {
                free(kept);
                return 0;
            }
        }
    }
    double t0 = cli_now();
    hay_status st = hay_patterns_compile(items, n, &co, &r->set);
    r->t.compile_s = cli_now() - t0;
    free(kept);
    if (st == HAY_ERR_UNKNOWN_NAME) {
        fprintf(stderr, "hay: unknown algorithm '%s' for backend %s; choose one of:",
                cf->algo, hay_backend_name(cf->backend));
        const char *name;
        for (size_t i = 0; hay_algo_name(cf->backend, i, &name) == HAY_OK; i++)
            fprintf(stderr, " %s", name);
        fputc('\n', stderr);
        return -1;
    }
    if (st == HAY_ERR_UNSUPPORTED && (cf->backend == HAY_BACKEND_AUTO ||
                                      cf->backend == HAY_BACKEND_CPU)) {
        fprintf(stderr, "hay: algorithm '%s' searches for one pattern only (%zu given); "
                        "use --algo ac or naive\n", cf->algo, cf->pats.n);
        return -1;
    }
    if (st == HAY_ERR_UNSUPPORTED) {
        fprintf(stderr, "hay: backend %s: this version has no search engine for it yet\n",
                hay_backend_name(cf->backend));
        return -1;
    }
    if (st == HAY_ERR_TOO_LARGE && cf->algo && !strcmp(cf->algo, "dfa")) {
        fprintf(stderr, "hay: the DFA of these patterns exceeds its table budget; "
                        "raise it (--params dfa_budget=BYTES) or use --algo ac\n");
        return -1;
    }
    if (st == HAY_ERR_TOO_LARGE) {
        fprintf(stderr, "hay: a pattern is longer than %u bytes, or there are more "
                        "than %u patterns\n", HAY_MAX_PATTERN_LEN, HAY_MAX_PATTERNS);
        return -1;
    }
    if (st == HAY_ERR_NO_DEVICE || st == HAY_ERR_NO_BACKEND) {
        fprintf(stderr, "hay: backend %s: %s; 'hay devices' lists what this machine "
                        "has, --backend auto falls back to the CPU\n",
                hay_backend_name(cf->backend), hay_strerror(st));
        return -1;
    }
    if (st == HAY_ERR_INVALID && cf->params_all) {
        fprintf(stderr, "hay: backend %s: invalid --device or --params '%s' "
                        "(see 'hay devices' and 'hay find --help')\n",
                hay_backend_name(cf->backend), cf->params_all);
        return -1;
    }
    if (st < 0) {
        fprintf(stderr, "hay: backend %s: %s\n", hay_backend_name(cf->backend),
                hay_strerror(st));
        return -1;
    }
    st = hay_scratch_create(r->set, &r->scratch);
    if (st < 0) {
        fprintf(stderr, "hay: %s\n", hay_strerror(st));
        return -1;
    }
    return 0;
}

static void print_stats(const run *r, double total_s)
{
    const config *cf = r->cf;
    hay_patterns_info info;
    memset(&info, 0, sizeof info);
    if (r->set)
        hay_patterns_info_get(r->set, &info);
    unsigned threads = cf->threads ? cf->threads : cli_cpu_count();
    fprintf(stderr, "stats: backend=%s algo=%s threads=%u schedule=%s patterns=%zu\n",
            r->set ? hay_backend_name(info.backend) : "none",
            r->set ? info.algo : "none", threads,
            cf->schedule == HAY_SCHEDULE_STATIC ? "static" : "dynamic",
            cf->pats.n + cf->pats.empty);
    /* Probing a GPU costs a driver start-up (a fraction of a second), so it
     * is only done, and reported, when a GPU backend was asked for. */
    fprintf(stderr, "stats: reason=\"%s\" requested=%s\n", r->set ? info.reason : "",
            hay_backend_name(cf->backend));
    fprintf(stderr, "stats: phase=compile seconds=%.6f memory=%zu states=%zu "
            "build_seconds=%.6f\n", r->t.compile_s, info.memory, info.states,
            info.compile_seconds);
    fprintf(stderr, "stats: phase=map bytes=%" PRIu64 " seconds=%.6f\n",
            r->t.bytes, r->t.map_s);
    fprintf(stderr, "stats: phase=scan bytes=%" PRIu64 " seconds=%.6f gbps=%.3f\n",
            r->t.bytes, r->t.scan_s,
            r->t.scan_s > 0 ? (double)r->t.bytes / r->t.scan_s / 1e9 : 0.0);
    if (r->t.lib_ran) {
        const hay_scan_stats *g = &r->t.lib;
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
            total_s > 0 ? (double)r->t.bytes / total_s / 1e9 : 0.0);
    if (r->t.dev_scans) {
        /* The device's own phases (pfac-opencl-mobile-energy.txt's split). */
        const hay_scan_stats *d = &r->t.lib;
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

int find_main(int argc, char **argv)
{
    double t0 = cli_now();
    config cf;
    int first;
    if (parse_opts(argc, argv, &cf, &first) < 0) {
        free(cf.params_all);
        pat_list_free(&cf.pats);
        return 2;
    }
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

    run r;
    memset(&r, 0, sizeof r);
    r.cf = &cf;
    int rc = 2;
    if (compile_set(&r) < 0)
        goto out;
    int nfiles = argc - first;
    /* As grep: names with several operands; with -r and at most one, names
     * only for the files found inside directories. */
    r.print_names = cf.with_filename == 1 || (cf.with_filename == -1 && nfiles > 1);
    r.names_in_walk = cf.with_filename == -1 && cf.recursive;
    r.implicit_dot = nfiles == 0 && cf.recursive;
    if (nfiles == 0)
        search_path(&r, cf.recursive ? "." : "-", true);
    for (int i = first; i < argc; i++) {
        search_path(&r, argv[i], true);
        if (cf.quiet && r.t.any_match)
            break;
    }
    fflush(stdout);
    if (cf.stats)
        print_stats(&r, cli_now() - t0);
    if (cf.quiet && r.t.any_match)
        rc = 0;
    else
        rc = r.t.error ? 2 : r.t.any_match ? 0 : 1;
out:
    fflush(stdout);
    hay_scratch_free(r.scratch);
    hay_patterns_free(r.set);
    free(cf.params_all);
    pat_list_free(&cf.pats);
    return rc;
}
