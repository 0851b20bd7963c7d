/*
 * search.c - one file's search (see search.h).  The outputs take these
 * paths through it:
 *   --count-matches   hay_scan_count over the file, or a stream over a pipe
 *   an empty pattern  every line is selected; no scan unless -o or --json
 *   --json            each occurrence is printed as it comes
 *   lines, -o, -c     matches become lines; -l and -q stop at the first
 */
#include "search.h"

#include "cli.h"
#include "input.h"
#include "lines.h"
#include "printer.h"

#include <stdio.h>
#include <string.h>

#define PROGRESS_MIN ((uint64_t)256 << 20)

/* One file's search. */
typedef struct file_search {
    const find_config *cf;
    find_printer printer;
    find_lines lines;
    bool binary, matched, nomem;
    bool first_only;   /* one selected line says all that will be printed */
    double progress_t0, progress_last;
} file_search;

/* Lines will be printed (not only counted or summed up). */
static void log_line(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static bool prints_lines(const find_config *cf)
{
    return !cf->count_lines && !cf->list && !cf->quiet;
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

static int on_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    file_search *s = ctx;
    if (s->cf->json) {
        /* Starts are not monotone when patterns differ in length; the line
         * number is counted in either direction. */
        s->matched = true;
        find_print_json(&s->printer, id, start, find_lines_number_at(&s->lines, start));
        return 0;
    }
    if (!find_lines_selects(&s->lines, start, end))
        return 0;
    s->matched = true;
    if (s->first_only)
        return 1;
    if (find_lines_add(&s->lines, start, end) < 0) {
        s->nomem = true;
        return 1;
    }
    return 0;
}

static void search_buffer(find_searcher *r, const char *name, const uint8_t *buf,
                          uint64_t len, bool walked)
{
    const find_config *cf = r->cf;
    const hay_patterns *set = r->matcher->set;
    file_search s;
    memset(&s, 0, sizeof s);
    s.cf = cf;
    s.printer = (find_printer){ cf, name, r->print_names || (walked && r->names_in_walk),
                                buf };
    s.binary = find_input_is_binary(buf, len);
    /* Binary files get one line of summary instead of their lines. */
    bool binary_note = s.binary && !cf->text;
    s.first_only = cf->list || cf->quiet || (binary_note && prints_lines(cf));
    find_lines_init(&s.lines, buf, len);
    s.lines.numbers = cf->line_numbers;
    s.lines.sort_spans = cf->mode == HAY_MATCH_ALL;
    if (!cf->count_lines) {
        s.lines.emit = find_print_line;
        s.lines.emit_ctx = &s.printer;
    }
    bool every_line = cf->pats.empty > 0;

    hay_scan_opts so;
    hay_scan_opts_init(&so);
    /* The library's diagnostic timelines (backend auto's split, the CUDA
     * driver's pinning), asked for by environment variable. */
    if (cf->diag_log)
        so.log = log_line;
    so.threads = cf->threads;
    so.schedule = cf->schedule;
    so.chunk_size = cf->chunk;
    if (cf->progress && len >= PROGRESS_MIN) {
        so.progress = on_progress;
        so.progress_ctx = &s;
        s.progress_t0 = cli_now();
    }
    hay_scan_stats lib;
    memset(&lib, 0, sizeof lib);
    so.stats = cf->stats ? &lib : NULL;

    double t0 = cli_now();
    hay_status st = HAY_OK;
    find_file_result res = { .binary = s.binary };
    if (cf->count_matches) {
        if (set && len)
            st = hay_scan_count(set, r->matcher->scratch, buf, len, &so, &res.occurrences);
        s.matched = res.occurrences > 0;
    } else if (every_line && !cf->only && !cf->json) {
        s.lines.selected = find_lines_count(buf, len);
        s.matched = s.lines.selected > 0;
        if (s.matched && prints_lines(cf) && !binary_note)
            find_lines_each(buf, len, find_print_line, &s.printer);
    } else {
        if (set && len) {
            st = hay_scan(set, r->matcher->scratch, buf, len, &so, on_match, &s);
            if (st == HAY_STOPPED)
                st = HAY_OK;
            find_lines_finish(&s.lines);
        }
        if (every_line && len)   /* -o or --json with an empty pattern */
            s.matched = true;
    }
    r->t.scan_s += cli_now() - t0;
    r->t.bytes += len;
    find_totals_add_scan(&r->t, &lib);

    if (s.nomem)
        st = HAY_ERR_NOMEM;
    if (st < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(st));
        r->t.error = true;
    }
    if (s.matched)
        r->t.any_match = true;
    res.matched = s.matched;
    res.lines = s.lines.selected;
    find_print_summary(&s.printer, &res);
    find_lines_free(&s.lines);
}

/* --count-matches on a pipe: streamed through in pieces instead of read
 * whole; a match spanning two pieces is counted once. */
typedef struct stream_count {
    hay_stream *stream;   /* NULL: only empty patterns, nothing to count */
    hay_status st;
    uint64_t count;
} stream_count;

static int count_one(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)id; (void)start; (void)end;
    ((stream_count *)ctx)->count++;
    return 0;
}

static int count_piece(const uint8_t *p, size_t n, void *ctx)
{
    stream_count *c = ctx;
    if (c->stream)
        c->st = hay_stream_write(c->stream, p, n);
    return c->st != HAY_OK;
}

static void count_stream(find_searcher *r, int fd, const char *name, bool walked)
{
    stream_count c = { NULL, HAY_OK, 0 };
    uint64_t bytes = 0;
    if (r->matcher->set)
        c.st = hay_stream_open(r->matcher->set, count_one, &c, &c.stream);
    double t0 = cli_now();
    if (c.st == HAY_OK && find_input_read_pieces(fd, name, count_piece, &c, &bytes) < 0)
        r->t.error = true;
    r->t.scan_s += cli_now() - t0;
    r->t.bytes += bytes;
    hay_stream_close(c.stream);
    hay_stream_free(c.stream);
    if (c.st < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(c.st));
        r->t.error = true;
    }
    if (c.count)
        r->t.any_match = true;
    find_printer p = { r->cf, name, r->print_names || (walked && r->names_in_walk), NULL };
    find_file_result res = { .matched = c.count > 0, .occurrences = c.count };
    find_print_summary(&p, &res);
}

void find_search_file(void *searcher, int fd, const char *name, bool walked)
{
    find_searcher *r = searcher;
    if (r->cf->count_matches && find_input_is_stream(fd)) {
        count_stream(r, fd, name, walked);
        return;
    }
    double t0 = cli_now();
    find_input in;
    if (find_input_open(fd, name, &in) < 0) {
        r->t.error = true;
        find_input_close(&in);
        return;
    }
    r->t.map_s += cli_now() - t0;
    search_buffer(r, name, in.buf, in.len, walked);
    find_input_close(&in);
}
