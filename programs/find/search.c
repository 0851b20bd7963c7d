/*
 * search.c - one file's search (see search.h).  Each piece of the file
 * takes one of these paths:
 *   --count-matches   hay_scan_count over the piece; =each (or patterns
 *                     whose case variants are verified, matcher.h) counts
 *                     every match through a callback instead
 *   an empty pattern  every line is selected; no scan unless -o
 *   lines, -o, -c     matches become lines (--json prints them as records);
 *                     -l and -q stop at the first
 * Offsets and line numbers run on from piece to piece.
 *
 * Binary files, as grep 3.8 reads them: a NUL byte in the first 32 KiB
 * makes the whole file binary (no line is printed); a NUL met later stops
 * the printing of lines at the first selected line after it (the lines
 * before it were printed).  Either way a selected line after the NUL gives
 * the binary-file note instead of lines.  (grep decides per read buffer,
 * so it may print fewer of the lines before a late NUL; hay prints every
 * line before it, whatever the buffer sizes.)
 */
#include "search.h"

#include "cli.h"
#include "lines.h"
#include "printer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_MIN ((uint64_t)256 << 20)
/* Pieces smaller than this are searched on the calling thread alone:
 * starting the library's threads costs more than they save, and a walk
 * already keeps every core busy with files. */
#define SERIAL_MAX ((uint64_t)4 << 20)
/* -o prints a line's matches in parts of this many (lines.h). */
#define SPANS_MAX 4096

/* One file's search. */
typedef struct file_search {
    const find_config *cf;
    find_worker *w;
    const find_input *in;
    const find_matcher *matcher;
    uint64_t *each;         /* --count-matches=each: per pattern of the config */
    find_span *chosen;      /* a line's matches after find_matcher_select */
    size_t chosen_cap;
    find_printer printer;
    find_lines lines;
    uint64_t base;          /* the offset in the file of the piece */
    uint64_t lineno;        /* the number of the piece's first line */
    uint64_t selected, occurrences;
    bool detect_binary;     /* lines are printed and -a was not given */
    uint64_t nul_from;      /* the piece holds no NUL below this offset */
    bool nul_seen;          /* a NUL came before the line being printed */
    uint64_t nul_at;        /* then the offset in the file of the first */
    bool binary;            /* a line was selected after a NUL */
    bool each_from_one;     /* find_lines_each numbers from 1 in every piece */
    unsigned lines_out;     /* lines printed since the worker's hook ran */
    bool matched, nomem, stop;
    bool first_only;        /* one selected line says all that will be printed */
    double progress_t0, progress_last;
} file_search;

/* Lines will be printed (not only counted or summed up). */
static bool prints_lines(const find_config *cf)
{
    return !cf->count_lines && !cf->list && !cf->quiet;
}

static void log_line(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static void on_progress(uint64_t done, uint64_t total, void *ctx)
{
    file_search *s = ctx;
    double now = cli_now();
    if (now - s->progress_last < 0.1 && done < total)
        return;
    s->progress_last = now;
    int width = 30, fill = (int)((double)done / (double)total * width);
    double secs = now - s->progress_t0;
    fprintf(stderr, "\rhay: %.40s [%.*s%*s] %3d%% %.2f GB/s", s->printer.name, fill,
            "==============================", width - fill, "",
            (int)(100.0 * (double)done / (double)total),
            secs > 0 ? (double)done / secs / 1e9 : 0.0);
    if (done >= total)
        fprintf(stderr, "\r\33[K");
}

/* A selected line on its way to the printer: held back after a NUL, or
 * once the file was truncated under the mapping. */
static void emit_line(void *ctx, const find_line *line)
{
    file_search *s = ctx;
    if (s->stop)
        return;
    if (find_input_truncated(s->in)) {
        s->stop = true;
        return;
    }
    if (s->detect_binary) {
        if (!s->nul_seen && line->end > s->nul_from) {
            const uint8_t *z = memchr(s->printer.buf + s->nul_from, 0,
                                      (size_t)(line->end - s->nul_from));
            if (z) {
                s->nul_seen = true;
                s->nul_at = s->base + (uint64_t)(z - s->printer.buf);
            }
            s->nul_from = line->end;
        }
        if (s->nul_seen) {
            s->binary = true;
            s->stop = true;
            return;
        }
    }
    find_line l = *line;
    if (s->each_from_one)
        l.number += s->lineno - 1;
    if (s->matcher->reselect && l.nspans) {
        /* The line's matches as the asked leftmost mode would have given
         * them, where the set reported all of them (matcher.h). */
        if (l.nspans > s->chosen_cap) {
            find_span *p = realloc(s->chosen, l.nspans * sizeof *p);
            if (!p) {
                s->nomem = true;
                s->stop = true;
                return;
            }
            s->chosen = p;
            s->chosen_cap = l.nspans;
        }
        memcpy(s->chosen, line->spans, l.nspans * sizeof *s->chosen);
        l.spans = s->chosen;
        l.nspans = find_matcher_select(s->cf->mode, s->chosen, l.nspans);
    }
    find_print_line(&s->printer, &l);
    if (s->w->r->flush_lines)
        fflush(s->printer.out);
    if (s->w->between && ++s->lines_out == FIND_HOOK_LINES) {
        s->lines_out = 0;
        s->w->between(s->w);
        s->printer.out = s->w->out;
    }
}

/* --count-matches through a callback (=each, or prefixes to verify): every
 * occurrence verified, counted, and counted for its pattern. */
static int count_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    file_search *s = ctx;
    if (!find_matcher_verify(s->matcher, id, s->lines.buf, s->lines.len, &end))
        return 0;
    s->occurrences++;
    if (s->each)
        s->each[find_matcher_pattern(s->matcher, id)]++;
    return 0;
}

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    file_search *s = ctx;
    if (s->stop)
        return 1;
    if (!find_matcher_verify(s->matcher, id, s->lines.buf, s->lines.len, &end))
        return 0;
    if (!find_lines_selects(&s->lines, start, end))
        return 0;
    s->matched = true;
    if (s->first_only) {
        s->binary = s->nul_seen;
        s->stop = true;
        return 1;
    }
    if (find_lines_add(&s->lines, start, end, find_matcher_pattern(s->matcher, id)) < 0) {
        s->nomem = true;
        return 1;
    }
    return 0;
}

static void scan_opts(file_search *s, uint64_t len, hay_scan_opts *so, hay_scan_stats *lib)
{
    const find_config *cf = s->cf;
    hay_scan_opts_init(so);
    /* The library's diagnostic timelines (backend auto's split, the CUDA
     * driver's pinning), asked for by environment variable. */
    if (cf->diag_log)
        so->log = log_line;
    so->threads = len >= SERIAL_MAX ? s->w->r->threads : 1;
    so->schedule = cf->schedule;
    so->chunk_size = cf->chunk;
    if (cf->progress && len >= PROGRESS_MIN) {
        so->progress = on_progress;
        so->progress_ctx = s;
        s->progress_t0 = cli_now();
    }
    memset(lib, 0, sizeof *lib);
    so->stats = cf->stats ? lib : NULL;
}

static void search_piece(file_search *s, const uint8_t *buf, uint64_t len)
{
    const find_config *cf = s->cf;
    find_worker *w = s->w;
    const hay_patterns *set = w->r->matcher->set;
    s->printer.buf = buf;
    s->printer.len = len;
    s->printer.base = s->base;
    s->nul_from = 0;
    find_lines_init(&s->lines, buf, len);
    find_lines_first_number(&s->lines, s->lineno);
    s->lines.numbers = cf->line_numbers || cf->json;
    s->lines.sort_spans = cf->mode == HAY_MATCH_ALL || s->matcher->covered;
    if (!cf->count_lines) {
        s->lines.emit = emit_line;
        s->lines.emit_ctx = s;
    }
    s->lines.no_spans = !cf->only && !cf->color && !cf->json;
    s->lines.spans_max = cf->only ? SPANS_MAX : 0;
    bool every_line = cf->pats.empty > 0;

    hay_scan_opts so;
    hay_scan_stats lib;
    scan_opts(s, len, &so, &lib);
    double t0 = cli_now();
    hay_status st = HAY_OK;
    if (cf->count_matches && (s->each || s->matcher->covered)) {
        if (set && len)
            st = hay_scan(set, w->scratch, buf, len, &so, count_match, s);
        s->matched |= s->occurrences > 0;
    } else if (cf->count_matches) {
        uint64_t n = 0;
        if (set && len)
            st = hay_scan_count(set, w->scratch, buf, len, &so, &n);
        s->occurrences += n;
        s->matched |= n > 0;
    } else if (every_line && (!cf->only || cf->json)) {   /* --json ignores -o */
        uint64_t n = find_lines_count(buf, len);
        s->lines.selected = n;
        s->matched |= n > 0;
        if (n && s->first_only) {
            s->binary = s->nul_seen;
            s->stop = true;
        } else if (n && prints_lines(cf)) {
            s->each_from_one = true;
            find_lines_each(buf, len, emit_line, s);
        }
    } else {
        if (set && len) {
            st = hay_scan(set, w->scratch, buf, len, &so, on_match, s);
            if (st == HAY_STOPPED)
                st = HAY_OK;
            find_lines_finish(&s->lines);
        }
        if (every_line && len)   /* -o with an empty pattern */
            s->matched = true;
    }
    w->t.scan_s += cli_now() - t0;
    w->t.bytes += len;
    find_totals_add_scan(&w->t, &lib);
    s->selected += s->lines.selected;
    if (s->nomem)
        st = HAY_ERR_NOMEM;
    if (st < 0) {
        fprintf(stderr, "hay: %s: %s\n", s->printer.name, hay_strerror(st));
        w->t.error = true;
        s->stop = true;
    }
    if ((cf->line_numbers || cf->json) && !s->in->mapped)
        s->lineno += find_lines_count(buf, len);
    find_lines_free(&s->lines);
}

void find_search_file(find_worker *w, int fd, const char *name, bool walked)
{
    find_searcher *r = w->r;
    const find_config *cf = r->cf;
    file_search s;
    memset(&s, 0, sizeof s);
    s.cf = cf;
    s.w = w;
    s.matcher = r->matcher;
    s.printer = (find_printer){ .cf = cf, .name = name,
                                .print_name = r->print_names || (walked && r->names_in_walk),
                                .out = w->out };
    s.lineno = 1;
    s.detect_binary = !cf->text && prints_lines(cf);
    s.first_only = cf->list || cf->quiet;

    if (cf->count_each && !(s.each = calloc(cf->pats.n + 1, sizeof *s.each))) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(HAY_ERR_NOMEM));
        w->t.error = true;
        return;
    }
    double t0 = cli_now();
    find_input in;
    int got = find_input_open(fd, name, walked, !r->whole_lines, &w->rb, &in);
    s.in = &in;
    w->t.map_s += cli_now() - t0;
    if (got < 0) {   /* nothing read: no summary either, as grep */
        w->t.error = true;
        find_input_close(&in);
        free(s.each);
        return;
    }
    bool first = true;
    const uint8_t *p;
    size_t n;
    while (!s.stop && (got = find_input_next(&in, &p, &n)) > 0) {
        if (first && s.detect_binary && find_input_is_binary(p, n)) {
            /* Binary from the start: one selected line settles it. */
            s.nul_seen = true;
            s.nul_at = s.base + (uint64_t)((const uint8_t *)memchr(p, 0, n) - p);
            s.first_only = true;
        }
        first = false;
        search_piece(&s, p, n);
        s.base += n;
        if (w->between && !s.stop) {
            w->between(w);
            s.printer.out = w->out;
        }
    }
    if (got < 0)
        w->t.error = true;
    if (find_input_truncated(&in)) {
        fflush(s.printer.out);
        fprintf(stderr, "hay: %s: file truncated while it was searched; "
                        "its search ends there\n", name);
    }
    find_input_close(&in);
    if (s.matched)
        w->t.any_match = true;
    find_file_result res = { .matched = s.matched, .binary = s.binary, .nul_at = s.nul_at,
                             .lines = s.selected, .occurrences = s.occurrences,
                             .each = s.each, .bytes = s.base };
    find_print_summary(&s.printer, &res);
    /* The --json summary's totals. */
    w->t.searches++;
    w->t.searches_with_match += res.matched;
    w->t.matched_lines += res.lines;
    w->t.matches += cf->count_matches ? res.occurrences : s.printer.json_matches;
    free(s.each);
    free(s.chosen);
    if (r->flush_lines)
        fflush(s.printer.out);
}

void find_searcher_init(find_searcher *r, const find_config *cf, find_matcher *m)
{
    memset(r, 0, sizeof *r);
    r->cf = cf;
    r->matcher = m;
    /* As grep: names with several operands; with -r and at most one, names
     * only for the files found inside directories. */
    r->print_names = cf->with_filename == 1 || (cf->with_filename == -1 && cf->nfiles > 1);
    r->names_in_walk = cf->with_filename == -1 && cf->recursive;
    r->flush_lines = cf->line_buffered || isatty(STDOUT_FILENO);
    r->whole_lines = true;
    for (size_t i = 0; i < cf->pats.n; i++)
        if (memchr(cf->pats.items[i].data, '\n', cf->pats.items[i].len))
            r->whole_lines = false;
    r->threads = cf->threads ? cf->threads : cli_cpu_count();
}

void find_totals_merge(find_totals *into, const find_totals *from)
{
    into->map_s += from->map_s;
    into->scan_s += from->scan_s;
    into->bytes += from->bytes;
    into->any_match |= from->any_match;
    into->error |= from->error;
    into->dev_scans += from->dev_scans;
    into->searches += from->searches;
    into->searches_with_match += from->searches_with_match;
    into->matched_lines += from->matched_lines;
    into->matches += from->matches;
    if (from->lib_ran)
        find_totals_add_scan(into, &from->lib);
}
