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
#include "context.h"
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
    find_select sel;
    bool binary, matched, nomem;
    uint64_t stop_lines;   /* without -v: stop the scan once this many
                              matching lines were started (0: never) */
    uint64_t merge_pos;    /* an empty pattern: lines before it were seen */
    bool direct;           /* lines go from lines.c to the printer */
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
    return !cf->count_lines && !cf->list && !cf->list_without && !cf->quiet;
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
    bool strong = !(s->lines.word || s->lines.whole) ||
                  find_lines_passes(&s->lines, start, end);
    /* -w -o and colours: a match failing only the test of the byte before
     * it may still be printed (see find_span). */
    if (!strong && !(s->lines.word && s->lines.keep_spans &&
                     find_lines_passes_after(&s->lines, end)))
        return 0;
    if (find_lines_add(&s->lines, start, end, strong) < 0) {
        s->nomem = true;
        return 1;
    }
    if (s->stop_lines && s->lines.selected >= s->stop_lines)
        return 1;
    return !s->direct && find_select_done(&s->sel);
}

/* -w or -x with an empty pattern: whether the line [a, b) holds an empty
 * match that passes (-x: an empty line; -w: a place with no word byte on
 * either side). */
static bool empty_passes(const find_lines *l, uint64_t a, uint64_t b)
{
    if (a == b || !l->word)
        return a == b;
    for (uint64_t p = a; p <= b; p++)
        if (find_lines_passes(l, p, p))   /* the terminators are not word bytes */
            return true;
    return false;
}

/* An empty pattern: every line matches (with -w or -x, those with an
 * empty match that passes).  The lines before `upto` not yet seen go to
 * the selection; the scan's matching lines, when there is a scan, come in
 * between through merge_emit. */
static void every_line_upto(file_search *s, uint64_t upto)
{
    find_lines *l = &s->lines;
    uint64_t pos = s->merge_pos;
    while (pos < upto && !find_select_done(&s->sel)) {
        const uint8_t *nl = memchr(l->buf + pos, l->eol, l->len - pos);
        uint64_t end = nl ? (uint64_t)(nl - l->buf) : l->len;
        if (!(l->word || l->whole) || empty_passes(l, pos, end)) {
            find_line line = { .start = pos, .end = end, .sep = ':',
                               .number = l->numbers ? find_lines_number_at(l, pos) : 0 };
            find_select_matching(&s->sel, &line);
        }
        pos = end + 1;
    }
    s->merge_pos = pos > upto ? pos : upto;
}

/* -w or -x with an empty pattern among others: the scan's lines and the
 * lines the empty pattern selects, in order.  A find_line_fn. */
static void merge_emit(void *ctx, const find_line *line)
{
    file_search *s = ctx;
    every_line_upto(s, line->start);
    if (!find_select_done(&s->sel))
        find_select_matching(&s->sel, line);
    s->merge_pos = line->end + 1;
}

/* Sets up the file's lines and the selection of them from the options. */
static void setup_selection(find_searcher *r, file_search *s, bool binary_note)
{
    const find_config *cf = r->cf;
    find_lines *l = &s->lines;
    l->numbers = cf->line_numbers;
    l->sort_spans = cf->mode == HAY_MATCH_ALL;
    l->word = cf->word;
    l->whole = cf->whole_line;
    l->pick = cf->word || cf->whole_line;
    l->eol = cf->eol;
    bool print = prints_lines(cf) && !binary_note;
    l->keep_spans = print && (cf->only || cf->color);
    l->emit = find_select_matching;
    l->emit_ctx = &s->sel;

    find_select *sel = &s->sel;
    find_select_init(sel, l);
    sel->invert = cf->invert;
    sel->has_max = cf->has_max;
    sel->max = cf->max_count;
    /* One selected line says all that -l, -L, -q and the binary note say. */
    if ((cf->list || cf->list_without || cf->quiet || (binary_note && prints_lines(cf))) &&
        !(cf->has_max && cf->max_count == 0)) {
        sel->has_max = true;
        sel->max = 1;
    }
    sel->done = sel->has_max && sel->max == 0;   /* -m 0 */
    /* Nothing to select or add around the matching lines: they go straight
     * to the printer (or are only counted), as before there was context. */
    s->direct = !cf->invert && !sel->has_max && !cf->context;
    if (s->direct) {
        l->emit = print ? find_print_line : NULL;
        l->emit_ctx = &s->printer;
    }
    sel->context = cf->context;
    sel->before = cf->before;
    sel->after = cf->after;
    sel->group_sep = cf->group_sep;
    sel->only = cf->only;
    sel->keep_matches = cf->invert && cf->color && print;
    sel->used = &r->used;
    if (print) {
        sel->out = find_print_line;
        sel->out_raw = find_print_lines_raw;
        sel->out_sep = find_print_group_sep;
        sel->out_ctx = &s->printer;
        sel->raw = cf->invert && !cf->context && !sel->has_max && !cf->line_numbers &&
                   !cf->byte_offset && !s->printer.print_name && !cf->only;
    }
    /* Without -v the scan may stop at the line after the last one selected
     * (its matches are still needed for -o and colours), or at that one. */
    if (!cf->invert && sel->has_max)
        s->stop_lines = sel->max + (l->keep_spans ? 1 : 0);
}

static void search_buffer(find_searcher *r, const char *name, const uint8_t *buf,
                          uint64_t len, bool walked, bool regular)
{
    const find_config *cf = r->cf;
    const hay_patterns *set = r->matcher->set;
    file_search s;
    memset(&s, 0, sizeof s);
    s.cf = cf;
    s.printer = (find_printer){ cf, name, r->print_names || (walked && r->names_in_walk),
                                buf, find_print_width(regular, len, cf->line_numbers) };
    /* With -z a NUL ends a line: no file is binary for it (grep, C locale). */
    s.binary = cf->eol == '\n' && find_input_is_binary(buf, len);
    find_file_result res = { .binary = s.binary };
    if (s.binary && cf->skip_binary) {
        /* -I: as if it held no match at all. */
        res.skipped = true;
        find_print_summary(&s.printer, &res);
        return;
    }
    /* Binary files get one line of summary instead of their lines. */
    bool binary_note = s.binary && !cf->text;
    find_lines_init(&s.lines, buf, len);
    setup_selection(r, &s, binary_note);
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
    bool plain = !cf->invert && !cf->has_max && !cf->context && !cf->word &&
                 !cf->whole_line;
    if (cf->count_matches) {
        if (set && len)
            st = hay_scan_count(set, r->matcher->scratch, buf, len, &so, &res.occurrences);
        s.matched = res.occurrences > 0;
    } else if (every_line && !cf->json && !cf->word && !cf->whole_line &&
               !(plain && cf->only)) {
        if (plain) {
            s.sel.selected = find_lines_count(buf, len, cf->eol);
            if (s.sel.selected && prints_lines(cf) && !binary_note)
                find_lines_each(buf, len, cf->eol, find_print_line, &s.printer);
        } else {
            every_line_upto(&s, len);
            find_select_finish(&s.sel);
        }
        s.matched = s.sel.selected > 0;
    } else if (cf->json) {
        if (set && len)
            st = hay_scan(set, r->matcher->scratch, buf, len, &so, on_match, &s);
        if (st == HAY_STOPPED)
            st = HAY_OK;
        if (every_line && len)   /* an empty pattern */
            s.matched = true;
    } else {
        bool merge = every_line && (cf->word || cf->whole_line);
        if (merge) {
            s.direct = false;
            s.lines.emit = merge_emit;
            s.lines.emit_ctx = &s;
        }
        if (set && len) {
            st = hay_scan(set, r->matcher->scratch, buf, len, &so, on_match, &s);
            if (st == HAY_STOPPED)
                st = HAY_OK;
            find_lines_finish(&s.lines);
        }
        if (merge)
            every_line_upto(&s, len);
        find_select_finish(&s.sel);
        if (s.direct)
            s.sel.selected = s.lines.selected;
        s.matched = s.sel.selected > 0;
        if (every_line && len && !merge)   /* -o with an empty pattern */
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
    res.lines = s.sel.selected;
    if (cf->has_max && res.lines > cf->max_count)
        res.lines = cf->max_count;
    find_print_summary(&s.printer, &res);
    find_lines_free(&s.lines);
    find_select_free(&s.sel);
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
    if (c.st < 0) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(c.st));
        r->t.error = true;
    }
    if (c.count)
        r->t.any_match = true;
    find_printer p = { r->cf, name, r->print_names || (walked && r->names_in_walk), NULL, 0 };
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
    search_buffer(r, name, in.buf, in.len, walked, in.heap == NULL);
    find_input_close(&in);
}
