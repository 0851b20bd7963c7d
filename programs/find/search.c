/*
 * search.c - one file's search (see search.h).  Each piece of the file
 * takes one of these paths:
 *   --count-matches   hay_scan_count over the piece; =each (or patterns
 *                     whose case variants are verified, matcher.h) counts
 *                     every match through a callback instead
 *   an empty pattern  every line is selected; no scan unless -o
 *   lines, -o, -c     matches become lines (--json prints them as records);
 *                     -l, -L and -q stop at the first selected one
 * Offsets and line numbers run on from piece to piece.  With -v, -m or
 * context (-A/-B/-C) the lines go through the selection (context.h), whose
 * state also runs on from piece to piece: -m ends the file's search, and
 * the trailing context of a piece's last line is printed from the next
 * piece.  The context before a line (-B, -C) needs the lines before it,
 * which may lie in the previous piece: an input that is read (a pipe, a
 * small file) is then read whole into one piece (a mapped file is one
 * anyway), as it is with -z, whose records pieces of newline-ended lines
 * would cut.
 *
 * Binary files, as grep 3.8 reads them: a NUL byte in the first 32 KiB
 * makes the whole file binary (no line is printed); a NUL met later stops
 * the printing of lines at the first selected line after it (the lines
 * before it were printed).  Either way a selected line after the NUL gives
 * the binary-file note instead of lines.  (grep decides per read buffer,
 * so it may print fewer of the lines before a late NUL; hay prints every
 * line before it, whatever the buffer sizes.)  Context lines after that
 * NUL are not printed either.  With -I (--binary-files=without-match) a
 * binary file holds no match.  With -z no file is binary (grep).
 */
#include "search.h"

#include "binary.h"
#include "cli.h"
#include "context.h"
#include "linecount.h"
#include "lines.h"
#include "printer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROGRESS_MIN ((uint64_t)256 << 20)
/* Pieces smaller than this are searched on the calling thread alone:
 * starting the library's threads costs more than they save, and a walk
 * already keeps every core busy with files. */
#define SERIAL_MAX ((uint64_t)4 << 20)
/* -o prints a line's matches in parts of this many (lines.h). */
#define SPANS_MAX 4096
/* The longest scan of a piece whose lines are skipped (search_piece). */
#define SKIP_WINDOW ((uint64_t)64 << 20)

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
    find_select sel;        /* not direct: the selection, across pieces */
    bool direct;            /* no -v, -m or context: lines go from lines.c
                               to the printer */
    bool sep_pending;       /* a group separator goes before the next line
                               printed (none if a late NUL stops them) */
    uint64_t stop_lines;    /* -m without -v: the scan of the piece may stop
                               once this many lines were started (0: never) */
    uint64_t merge_pos;     /* an empty pattern: lines before it were seen */
    uint64_t base;          /* the offset in the file of the piece */
    uint64_t lineno;        /* the number of the piece's first line */
    uint64_t selected, occurrences;
    bool detect_binary;     /* lines are printed and -a was not given */
    find_nul_look look;     /* the look for a late NUL in the piece */
    bool nul_seen;          /* a NUL came before the line being printed */
    uint64_t nul_at;        /* then the offset in the file of the first */
    bool binary;            /* a line was selected after a NUL */
    bool skipped;           /* -I: a binary file, as if without a match */
    bool each_from_one;     /* find_lines_each numbers from 1 in every piece */
    unsigned lines_out;     /* lines printed since the worker's hook ran */
    bool matched, nomem, stop;
    bool first_only;        /* one selected line says all that will be printed */
    /* Lines wanted without their matches (-c, -n without colour...): once
     * a match selects its line the scan stops, and resumes at the next
     * line (scan_skipping). */
    bool skip;
    /* Lines wanted without their matches on the GPU: from the bitmap of
     * the bytes where matches end (find_select_by_marks). */
    bool by_marks;
    uint64_t scan_from;     /* the offset in the piece the scan started at */
    uint64_t resume;        /* where it resumes after a stop (UINT64_MAX: none) */
    double progress_t0, progress_last;
} file_search;

/* Lines will be printed (not only counted or summed up). */
static bool prints_lines(const find_config *cf)
{
    return !cf->count_lines && !cf->list && !cf->list_without && !cf->quiet;
}

/* The time, for --stats only (a clock read per file and piece shows in a
 * walk of many small files). */
static double stamp(const find_config *cf)
{
    return cf->stats ? cli_now() : 0;
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

/* Looks for a late NUL in the piece up to `end` (binary.h): its offset in
 * the piece when there is one below `end` and none was seen before
 * (nul_seen, nul_at set), else UINT64_MAX. */
static uint64_t find_nul(file_search *s, uint64_t end)
{
    if (!s->detect_binary || s->nul_seen)
        return UINT64_MAX;
    uint64_t z = find_nul_look_below(&s->look, end);
    if (z == UINT64_MAX)
        return UINT64_MAX;
    s->nul_seen = true;
    s->nul_at = s->base + z;
    return z;
}

/* After a late NUL (see the top): a selected line (sep ':') gives the
 * binary-file note and ends the search (-I: the file holds no match); a
 * context line is not printed.  Looks for the NUL up to `end`. */
static bool held_back(file_search *s, uint64_t end, char sep)
{
    if (!s->detect_binary)
        return false;
    find_nul(s, end);
    if (s->nul_seen && sep == ':') {
        s->binary = !s->cf->skip_binary;
        s->skipped = s->cf->skip_binary;
        s->stop = true;
    }
    return s->nul_seen;
}

/* Before a line printed: the group separator owed. */
static void line_in(file_search *s)
{
    if (s->sep_pending) {
        s->sep_pending = false;
        find_print_group_sep(&s->printer);
    }
}

/* After a line printed: --line-buffered's flush, the worker's hook. */
static void line_out(file_search *s)
{
    if (s->w->r->flush_lines)
        fflush(s->printer.out);
    if (s->w->between && ++s->lines_out == FIND_HOOK_LINES) {
        s->lines_out = 0;
        s->w->between(s->w);
        s->printer.out = s->w->out;
    }
}

/* The line's matches as the asked leftmost mode would have given them,
 * where the set reported all of them (matcher.h).  False when out of
 * memory (the search stops). */
static bool choose_spans(file_search *s, find_line *l)
{
    if (!s->matcher->reselect || !l->nspans)
        return true;
    if (l->nspans > s->chosen_cap) {
        find_span *p = realloc(s->chosen, l->nspans * sizeof *p);
        if (!p) {
            s->nomem = true;
            s->stop = true;
            return false;
        }
        s->chosen = p;
        s->chosen_cap = l->nspans;
    }
    memcpy(s->chosen, l->spans, l->nspans * sizeof *s->chosen);
    l->spans = s->chosen;
    l->nspans = find_matcher_select(s->cf->mode, s->chosen, l->nspans);
    return true;
}

/* --count-matches with -w or -x: the line's matches that -o would print
 * (those passing the test, without overlaps: ripgrep's count). */
static void count_line(void *ctx, const find_line *line)
{
    file_search *s = ctx;
    find_line l = *line;
    if (!choose_spans(s, &l))
        return;
    s->occurrences += l.nspans;
    for (size_t i = 0; s->each && i < l.nspans; i++)
        s->each[l.spans[i].id]++;
}

/* A line on its way to the printer: held back after a NUL, or once the
 * file was truncated under the mapping. */
static void emit_line(void *ctx, const find_line *line)
{
    file_search *s = ctx;
    if (s->stop)
        return;
    if (find_input_truncated(s->in)) {
        s->stop = true;
        return;
    }
    if (held_back(s, line->end, line->sep))
        return;
    find_line l = *line;
    if (s->each_from_one)
        l.number += s->lineno - 1;
    if (!choose_spans(s, &l))
        return;
    line_in(s);
    find_print_line(&s->printer, &l);
    line_out(s);
}

/* The separator between groups of context lines: printed with the next
 * line (none if a late NUL holds that line back). */
static void emit_sep(void *ctx)
{
    file_search *s = ctx;
    s->sep_pending = !s->stop && !s->nul_seen;
}

/* -v's selected lines written whole, buf[from, to): up to the line holding
 * a late NUL, if one lies there. */
static void emit_raw(void *ctx, uint64_t from, uint64_t to)
{
    file_search *s = ctx;
    if (s->stop || from >= to)
        return;
    if (find_input_truncated(s->in)) {
        s->stop = true;
        return;
    }
    /* The NUL may lie before `from`, on a matching line (not printed). */
    const uint8_t *buf = s->printer.buf;
    uint64_t upto = s->nul_seen ? from : to;
    uint64_t at = find_nul(s, to);
    if (at < from) {
        upto = from;
    } else if (at != UINT64_MAX) {   /* up to the line holding it */
        const uint8_t *nl = memrchr(buf + from, s->cf->eol, (size_t)(at - from));
        upto = nl ? (uint64_t)(nl - buf) + 1 : from;
    }
    if (upto > from) {
        line_in(s);
        find_print_lines_raw(&s->printer, from, upto);
        line_out(s);
    }
    if (upto < to)
        held_back(s, to, ':');
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
    start += s->scan_from;
    end += s->scan_from;
    find_lines *l = &s->lines;
    if (!find_matcher_verify(s->matcher, id, s->lines.buf, s->lines.len, &end))
        return 0;
    if (!find_lines_selects(l, start, end))
        return 0;
    bool strong = !(l->word || l->whole) || find_lines_passes(l, start, end);
    /* -w -o and colours: a match failing only the test of the byte before
     * it may still be printed (see find_span). */
    if (!strong && !(l->word && !l->no_spans && find_lines_passes_after(l, end)))
        return 0;
    if (strong && s->direct)
        s->matched = true;
    if (strong && s->direct && s->first_only) {
        s->binary = s->nul_seen;
        s->stop = true;
        return 1;
    }
    if (find_lines_add(l, start, end, find_matcher_pattern(s->matcher, id), strong) < 0) {
        s->nomem = true;
        return 1;
    }
    if (s->stop_lines && l->selected >= s->stop_lines)
        return 1;
    /* (-m: not in the middle of a line handed on in parts, whose other
     * matches are still printed.) */
    if (!s->direct && !s->cf->count_matches && !l->parted && find_select_done(&s->sel))
        return 1;
    if (s->skip && strong) {
        /* The line is selected and its other matches are not wanted: the
         * scan stops and resumes at the next line (a new scan costs less
         * than a line's matches), so a line dense with them costs one. */
        s->resume = l->next_line_from;
        return 1;
    }
    return 0;
}

/* find_select_in_parts' lines, one match each, through on_match; only a
 * stop that is not a skip to the next line ends them (-m, an error). */
static int replay_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    file_search *s = ctx;
    s->scan_from = 0;
    s->resume = UINT64_MAX;
    return on_match(id, start, end, s) && s->resume == UINT64_MAX;
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

/* The selection's options, set once per file (its state then runs on
 * from piece to piece). */
static void setup_selection(file_search *s)
{
    const find_config *cf = s->cf;
    find_select *sel = &s->sel;
    find_select_init(sel, &s->lines);
    sel->invert = cf->invert;
    sel->has_max = cf->has_max;
    sel->max = cf->max_count;
    /* One selected line says all that -l, -L, -q and the binary note say. */
    if (s->first_only && !(cf->has_max && cf->max_count == 0)) {
        sel->has_max = true;
        sel->max = 1;
    }
    sel->done = sel->has_max && sel->max == 0;   /* -m 0 */
    sel->context = cf->context;
    sel->before = cf->before;
    sel->after = cf->after;
    sel->group_sep = cf->group_sep;
    sel->only = cf->only;
    sel->used = &s->w->r->used;
    bool print = prints_lines(cf) && !s->first_only;
    sel->keep_matches = cf->invert && cf->color && print && !cf->json;
    if (print) {
        sel->out = emit_line;
        sel->out_raw = emit_raw;
        sel->out_sep = emit_sep;
        sel->out_ctx = s;
        sel->raw = cf->invert && !cf->context && !sel->has_max && !cf->line_numbers &&
                   !cf->byte_offset && !s->printer.print_name && !cf->only && !cf->json;
    }
}

/* The library threads a big piece of this worker's gets. */
static unsigned lib_threads(const find_worker *w)
{
    return w->threads ? w->threads : w->r->threads;
}

static void scan_opts(file_search *s, uint64_t len, hay_scan_opts *so, hay_scan_stats *lib)
{
    const find_config *cf = s->cf;
    hay_scan_opts_init(so);
    /* The library's diagnostic timelines (backend auto's split, the CUDA
     * driver's pinning), asked for by environment variable. */
    if (cf->diag_log)
        so->log = log_line;
    so->threads = len >= SERIAL_MAX ? lib_threads(s->w) : 1;
    so->schedule = cf->schedule;
    so->chunk_size = cf->chunk;
    if (cf->progress && len >= PROGRESS_MIN) {
        so->progress = on_progress;
        so->progress_ctx = s;
        s->progress_t0 = cli_now();
    }
    memset(lib, 0, sizeof *lib);
    so->stats = cf->stats ? lib : NULL;
    /* The look for a late NUL: by the scan's threads, each part as it is
     * scanned (binary.h). */
    if (s->detect_binary && !s->nul_seen && so->threads > 1) {
        so->on_part = find_nul_look_part;
        so->part_ctx = &s->look;
    }
}

/* The scan of the piece, through on_match.  With s->skip (one thread),
 * again from the next line after a stop on a line dense with matches, in
 * windows of at most SKIP_WINDOW that end at a line end: backend auto
 * sends none of them to a GPU. */
static hay_status scan_skipping(file_search *s, const hay_patterns *set, const uint8_t *buf,
                                uint64_t len, hay_scan_opts *so)
{
    s->scan_from = 0;
    while (s->scan_from < len) {
        uint64_t from = s->scan_from, to = len;
        if (s->skip && len - from > SKIP_WINDOW) {
            const uint8_t *nl = memchr(buf + from + SKIP_WINDOW, s->cf->eol,
                                       (size_t)(len - from - SKIP_WINDOW));
            to = nl ? (uint64_t)(nl - buf) + 1 : len;
        }
        s->resume = UINT64_MAX;
        /* Skipping, matches one by one: a batch would be filled (thousands
         * of matches, a hundred dense lines) before the stop is seen. */
        hay_status st = s->skip ? hay_scan(set, s->w->scratch, buf + from, to - from, so,
                                           on_match, s)
                                : find_matcher_scan(set, s->w->scratch, buf + from, to - from,
                                                    so, on_match, s);
        if (st < 0 || s->stop || s->nomem || (st == HAY_STOPPED && s->resume == UINT64_MAX))
            return st == HAY_STOPPED ? HAY_OK : st;   /* (-m stops it too) */
        s->scan_from = st == HAY_STOPPED ? s->resume : to;
    }
    return HAY_OK;
}

/* The piece's lines: scanned into matching lines, which go to the printer
 * (direct) or through the selection; with an empty pattern every line
 * matches. */
static hay_status scan_lines(file_search *s, const uint8_t *buf, uint64_t len,
                             hay_scan_opts *so)
{
    const find_config *cf = s->cf;
    find_worker *w = s->w;
    const hay_patterns *set = w->r->matcher->set;
    find_lines *l = &s->lines;
    bool every_line = cf->pats.empty > 0;
    bool plain = s->direct && !cf->word && !cf->whole_line;
    hay_status st = HAY_OK;
    if (!s->direct && find_select_done(&s->sel)) {
        /* -m was reached in an earlier piece: only the trailing context */
        find_select_finish(&s->sel);
        return HAY_OK;
    }
    if (every_line && !cf->word && !cf->whole_line && (!cf->only || cf->json || !plain)) {
        if (!plain) {
            every_line_upto(s, len);
            find_select_finish(&s->sel);
            return HAY_OK;
        }
        uint64_t n = find_lines_count(buf, len, cf->eol);
        l->selected = n;
        s->matched |= n > 0;
        if (n && s->first_only) {
            s->binary = s->nul_seen;
            s->stop = true;
        } else if (n && prints_lines(cf)) {
            s->each_from_one = true;
            find_lines_each(buf, len, cf->eol, emit_line, s);
        }
        return HAY_OK;
    }
    bool merge = every_line && (cf->word || cf->whole_line);
    if (merge) {
        /* the empty pattern's lines and the scan's, through the selection */
        l->emit = merge_emit;
        l->emit_ctx = s;
    }
    /* -m without -v: the scan may stop at the line after the last one to
     * select (its matches are still needed for -o and colours), or at that
     * one. */
    s->stop_lines = !s->direct && !cf->invert && s->sel.has_max
                        ? s->sel.max - s->sel.selected + !l->no_spans : 0;
    if (set && len && s->by_marks && cf->count_lines && !s->first_only) {
        st = find_select_by_marks(s->matcher, w->scratch, l, so, false, &l->selected, NULL,
                                  NULL);
        s->matched |= l->selected > 0;
    } else if (set && len && s->by_marks) {
        st = find_select_by_marks(s->matcher, w->scratch, l, so, s->first_only, NULL,
                                  replay_match, s);
        st = st == HAY_STOPPED ? HAY_OK : st;
        find_lines_finish(l);
    } else if (set && len && s->skip && s->direct && cf->count_lines) {
        st = find_count_lines(s->matcher, w->scratch, l, so, &l->selected);
        s->matched |= l->selected > 0;
    } else if (set && len && s->skip && so->threads > 1) {
        st = find_select_in_parts(s->matcher, l, so, replay_match, s);
        st = st == HAY_STOPPED ? HAY_OK : st;
        find_lines_finish(l);
    } else if (set && len) {
        st = scan_skipping(s, set, buf, len, so);
        find_lines_finish(l);
    }
    if (merge)
        every_line_upto(s, len);
    if (!s->direct)
        find_select_finish(&s->sel);
    else if (every_line && len)   /* -o with an empty pattern */
        s->matched = true;
    return st;
}

static void search_piece(file_search *s, const uint8_t *buf, uint64_t len)
{
    const find_config *cf = s->cf;
    find_worker *w = s->w;
    const hay_patterns *set = w->r->matcher->set;
    s->printer.buf = buf;
    s->printer.len = len;
    s->printer.base = s->base;
    find_nul_look_init(&s->look, buf);
    s->merge_pos = 0;
    find_lines_init(&s->lines, buf, len);
    find_lines_first_number(&s->lines, s->lineno);
    find_lines *l = &s->lines;
    l->numbers = cf->line_numbers || cf->json;
    l->sort_spans = cf->mode == HAY_MATCH_ALL || s->matcher->covered;
    l->word = cf->word;
    l->whole = cf->whole_line;
    l->pick = cf->word || cf->whole_line;
    l->eol = cf->eol;
    bool print = prints_lines(cf) && !s->first_only;
    if (s->direct) {
        if (!cf->count_lines) {
            l->emit = emit_line;
            l->emit_ctx = s;
        }
    } else {
        l->emit = find_select_matching;
        l->emit_ctx = &s->sel;
        find_select_piece(&s->sel);
    }
    /* -v: matches are printed only on context lines in colour (grep),
     * whole.  -o prints each match apart; colour writes a line part by
     * part (not verified case variants: their ends come out of order). */
    l->no_spans = !print || !find_shows_matches(cf);
    l->spans_max = (cf->only || (cf->color && !cf->json && !cf->invert)) &&
                   !s->matcher->covered ? SPANS_MAX : 0;
    l->reach = cf->json ? 0 : s->matcher->max_len;   /* (a record a line) */
    /* Lines wanted without their matches (lines printed whole, -n, -v,
     * context...): a scan stops on a line's first match and resumes at the
     * next line.  On several threads the piece is cut into parts of whole
     * lines, scanned so on their own (linecount.h: -c counts them; the
     * others' lines are replayed in order through on_match). */
    s->skip = l->no_spans && !s->first_only && w->r->skip_lines && !cf->progress;
    /* The same lines on the GPU, when every match selects its line (no -w,
     * -x or variants to verify) and the lines go straight out (no -v, -m
     * or context: s->direct). */
    s->by_marks = l->no_spans && s->direct && w->r->marks_lines && !cf->word &&
                  !cf->whole_line && !s->matcher->covered;

    hay_scan_opts so;
    hay_scan_stats lib;
    scan_opts(s, len, &so, &lib);
    double t0 = stamp(cf);
    hay_status st = HAY_OK;
    uint64_t sel_before = s->sel.selected;
    if (cf->count_matches && (cf->word || cf->whole_line)) {
        l->emit = count_line;
        l->emit_ctx = s;
        l->no_spans = false;
        l->spans_max = s->matcher->covered ? 0 : SPANS_MAX;   /* counted part by part */
        s->skip = false;
        if (set && len) {
            st = find_matcher_scan(set, w->scratch, buf, len, &so, on_match, s);
            st = st == HAY_STOPPED ? HAY_OK : st;
            find_lines_finish(l);
        }
        s->matched |= s->occurrences > 0;
    } else if (cf->count_matches && (s->each || s->matcher->covered)) {
        if (set && len)
            st = find_matcher_scan(set, w->scratch, buf, len, &so, count_match, s);
        s->matched |= s->occurrences > 0;
    } else if (cf->count_matches) {
        uint64_t n = 0;
        if (set && len)
            st = hay_scan_count(set, w->scratch, buf, len, &so, &n);
        s->occurrences += n;
        s->matched |= n > 0;
    } else {
        st = scan_lines(s, buf, len, &so);
    }
    /* -I when lines are only counted or listed: a NUL in what was searched
     * (grep stops at the first selected line for -l, -L and -q) makes the
     * file one without a match. */
    if (cf->skip_binary && !cf->text && cf->eol == '\n' && !cf->count_matches &&
        !prints_lines(cf) && !s->stop && memchr(buf, 0, len)) {
        s->skipped = true;
        s->stop = true;
    }
    w->t.scan_s += stamp(cf) - t0;
    w->t.bytes += len;
    find_totals_add_scan(&w->t, &lib);
    if (s->direct || cf->count_matches) {   /* (--count-matches selects no lines) */
        s->selected += l->selected;
    } else {
        s->selected += s->sel.selected - sel_before;
        s->matched |= s->sel.selected > 0;
        if (s->first_only && s->sel.selected) {
            s->binary = s->nul_seen;
            s->stop = true;
        }
        /* -m reached and its trailing context printed: the file's search
         * ends here */
        if (s->sel.done && !s->sel.after_left)
            s->stop = true;
    }
    if (s->nomem)
        st = HAY_ERR_NOMEM;
    if (st < 0) {
        fprintf(stderr, "hay: %s: %s\n", s->printer.name, hay_strerror(st));
        w->t.error = true;
        s->stop = true;
    }
    if ((cf->line_numbers || cf->json) && !s->in->mapped)
        s->lineno += find_lines_count(buf, len, cf->eol);
    find_lines_free(&s->lines);
    find_nul_look_free(&s->look);
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
    struct stat st;
    bool stated = fstat(fd, &st) == 0, regular = stated && S_ISREG(st.st_mode);
    if (regular && w->sized)
        w->sized(w, (uint64_t)st.st_size);
    s.printer = (find_printer){ .cf = cf, .name = name,
                                .print_name = r->print_names || (walked && r->names_in_walk),
                                .out = w->out,
                                .width = find_print_width(regular,
                                                          regular ? (uint64_t)st.st_size : 0,
                                                          cf->line_numbers) };
    s.lineno = 1;
    /* With -z a NUL ends a record: no file is binary (grep, C locale). */
    bool nul_ends = cf->eol != '\n';
    s.detect_binary = !cf->text && prints_lines(cf) && !nul_ends;
    s.first_only = cf->list || cf->list_without || cf->quiet;
    /* Nothing to select or add around the matching lines: they go straight
     * to the printer (or are only counted).  -w/-x with an empty pattern
     * merge its lines with the scan's through the selection. */
    s.direct = !cf->invert && !cf->has_max && !cf->context &&
               !(cf->pats.empty && (cf->word || cf->whole_line));

    if (cf->count_each && !(s.each = calloc(cf->pats.n + 1, sizeof *s.each))) {
        fprintf(stderr, "hay: %s: %s\n", name, hay_strerror(HAY_ERR_NOMEM));
        w->t.error = true;
        return;
    }
    double t0 = stamp(cf);
    find_input in;
    uint64_t size = regular ? (uint64_t)st.st_size : 0;
    int got = find_input_open(fd, name, walked, r->read_whole,
                              r->read_whole || cf->progress ||
                                  find_input_maps(cf->backend, cf->params, lib_threads(w), size),
                              stated ? &st : NULL, &w->rb, &in);
    s.in = &in;
    w->t.map_s += stamp(cf) - t0;
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
        uint64_t nul = first && (s.detect_binary || (cf->skip_binary && !cf->text && !nul_ends))
                           ? find_input_first_nul(&in, p, n) : UINT64_MAX;
        if (nul != UINT64_MAX) {
            if (cf->skip_binary) {   /* -I: as if it held no match at all */
                s.skipped = true;
                break;
            }
            /* Binary from the start: one selected line settles it. */
            s.nul_seen = true;
            s.nul_at = s.base + nul;
            s.first_only = true;
        }
        if (first)
            setup_selection(&s);
        first = false;
        search_piece(&s, p, n);
        s.base += n;
        if (w->between && !s.stop && !find_input_ended(&in)) {
            w->between(w);
            s.printer.out = w->out;
            if (regular && w->sized)
                w->sized(w, size - s.base);
            find_input_map_rest(&in, find_input_maps(cf->backend, cf->params, lib_threads(w),
                                                     size));
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
    if (s.skipped) {
        s.matched = false;
        s.selected = 0;
    }
    if (s.matched)
        w->t.any_match = true;
    if (cf->has_max && s.selected > cf->max_count)
        s.selected = cf->max_count;
    find_file_result res = { .matched = s.matched, .binary = s.binary, .nul_at = s.nul_at,
                             .skipped = s.skipped, .lines = s.selected,
                             .occurrences = s.occurrences, .each = s.each, .bytes = s.base };
    find_print_summary(&s.printer, &res);
    /* The --json summary's totals. */
    w->t.searches++;
    w->t.searches_with_match += res.matched;
    w->t.matched_lines += res.lines;
    w->t.matches += cf->count_matches ? res.occurrences : s.printer.json_matches;
    free(s.each);
    free(s.chosen);
    find_select_free(&s.sel);
    if (r->flush_lines)
        fflush(s.printer.out);
}
