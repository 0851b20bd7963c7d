/* printer.c - lines, -o, colour and summaries; --json goes to json.c (see
 * printer.h). */
#include "printer.h"

#include "json.h"

#include <inttypes.h>
#include <stdio.h>

/* grep's default colours (GREP_COLORS ms=01;31:fn=35:ln=32:bn=32:se=36). */
#define C_MATCH "\33[01;31m\33[K"
#define C_FILE "\33[35m\33[K"
#define C_NUM "\33[32m\33[K"
#define C_SEP "\33[36m\33[K"
#define C_END "\33[m\33[K"

int find_print_width(bool regular, uint64_t size, bool numbers)
{
    if (!regular)
        return 19;   /* the digits of INTMAX_MAX */
    int w = 1;
    for (size += numbers; size >= 10; size /= 10)
        w++;
    return w;
}

static void put_sep(const find_printer *p, char sep)
{
    if (p->cf->color)
        fputs_unlocked(C_SEP, p->out), putc_unlocked(sep, p->out), fputs_unlocked(C_END, p->out);
    else
        putc_unlocked(sep, p->out);
}

/* A line number or byte offset and its separator (-T: right-aligned in
 * the file's width).  Written by hand: printf was a tenth of -n's time. */
static void put_number(const find_printer *p, uint64_t v, char sep)
{
    char b[40];
    size_t n = 0;
    int w = p->cf->initial_tab ? p->width : 0;
    do {
        b[sizeof b - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while ((int)n < w && n < sizeof b)
        b[sizeof b - 1 - n++] = ' ';
    if (p->cf->color)
        fputs_unlocked(C_NUM, p->out);
    fwrite_unlocked(b + sizeof b - n, 1, n, p->out);
    if (p->cf->color)
        fputs_unlocked(C_END, p->out);
    put_sep(p, sep);
}

/* The file name, line number and offset before a line of `len` bytes. */
static void put_prefix(const find_printer *p, uint64_t lineno, uint64_t offset, char sep,
                       uint64_t len)
{
    const find_config *cf = p->cf;
    if (p->print_name) {
        if (cf->color)
            fprintf(p->out, C_FILE "%s" C_END, p->name);
        else
            fputs_unlocked(p->name, p->out);
        if (cf->null_names)
            putc_unlocked('\0', p->out);
        else
            put_sep(p, sep);
    }
    if (cf->line_numbers)
        put_number(p, lineno, sep);
    if (cf->byte_offset)
        put_number(p, p->base + offset, sep);
    if (cf->initial_tab && (p->print_name || cf->line_numbers || cf->byte_offset) && len)
        putc_unlocked('\t', p->out);
}

static void put_bytes(const find_printer *p, uint64_t from, uint64_t to)
{
    fwrite_unlocked(p->buf + from, 1, to - from, p->out);
}

/* The line terminator; the flush of --line-buffered is search.c's. */
static void end_line(const find_printer *p)
{
    putc_unlocked(p->cf->eol, p->out);
}

static void print_only(const find_printer *p, const find_line *l)
{
    for (size_t i = 0; i < l->nspans; i++) {
        put_prefix(p, l->number, l->spans[i].s, l->sep, l->spans[i].e - l->spans[i].s);
        if (p->cf->color)
            fputs_unlocked(C_MATCH, p->out);
        put_bytes(p, l->spans[i].s, l->spans[i].e);
        if (p->cf->color)
            fputs_unlocked(C_END, p->out);
        end_line(p);
    }
}

/* A whole line, its matches coloured; a line in parts (colour on a line
 * dense with matches, lines.h) is written part by part from where the
 * last part stopped (p->line_pos). */
static void print_whole(find_printer *p, const find_line *l)
{
    uint64_t pos = l->start;
    if (l->cont)
        pos = p->line_pos;
    else
        put_prefix(p, l->number, l->start, l->sep, l->end - l->start);
    if (p->cf->color) {
        for (size_t i = 0; i < l->nspans; i++) {
            /* Overlapping spans (--match-mode all): colour the union. */
            uint64_t a = l->spans[i].s > pos ? l->spans[i].s : pos;
            if (l->spans[i].e <= a)
                continue;
            put_bytes(p, pos, a);
            fputs_unlocked(C_MATCH, p->out);
            put_bytes(p, a, l->spans[i].e);
            fputs_unlocked(C_END, p->out);
            pos = l->spans[i].e;
        }
    }
    if (l->more) {
        p->line_pos = pos;
        return;
    }
    put_bytes(p, pos, l->end);
    end_line(p);
}

/* A line's writes take the stream's lock once (the writes above do not
 * take it: with colour or -o, a line is written in dozens of pieces). */
void find_print_line(void *printer, const find_line *line)
{
    find_printer *p = printer;
    if (p->cf->json) {
        find_json_line(p, line);
        return;
    }
    flockfile(p->out);
    if (p->cf->only)
        print_only(p, line);
    else
        print_whole(p, line);
    funlockfile(p->out);
}

void find_print_lines_raw(void *printer, uint64_t from, uint64_t to)
{
    const find_printer *p = printer;
    if (from >= to)
        return;
    flockfile(p->out);
    put_bytes(p, from, to);
    if (p->buf[to - 1] != p->cf->eol)
        end_line(p);   /* the last line had no terminator */
    funlockfile(p->out);
}

void find_print_group_sep(void *printer)
{
    const find_printer *p = printer;
    if (p->cf->json)
        return;   /* ripgrep's records have no separators */
    if (p->cf->color)
        fprintf(p->out, C_SEP "%s" C_END "\n", p->cf->group_sep);
    else
        fprintf(p->out, "%s\n", p->cf->group_sep);
}

/* The file name and its separator before a count. */
static void put_count_name(const find_printer *p)
{
    fputs(p->name, p->out);
    putc(p->cf->null_names ? '\0' : ':', p->out);
}

static void print_count(const find_printer *p, uint64_t n)
{
    if (p->print_name)
        put_count_name(p);
    fprintf(p->out, "%" PRIu64 "\n", n);
}

/* --count-matches=each: a line per pattern, COUNT, a tab, the pattern with
 * its unprintable bytes (and the backslash) as --escapes reads them. */
static void print_each(const find_printer *p, const uint64_t *each)
{
    const find_config *cf = p->cf;
    for (size_t i = 0; i < cf->pats.n; i++) {
        if (p->print_name)
            put_count_name(p);
        fprintf(p->out, "%" PRIu64 "\t", each[i]);
        const uint8_t *d = cf->pats.items[i].data;
        for (size_t k = 0; k < cf->pats.items[i].len; k++) {
            if (d[k] < 0x20 || d[k] == 0x7f || d[k] == '\\')
                fprintf(p->out, "\\x%02x", d[k]);
            else
                putc(d[k], p->out);
        }
        putc('\n', p->out);
    }
}

/* -l's or -L's line: the name, then a newline (-Z: a NUL). */
static void print_name(const find_printer *p)
{
    fputs(p->name, p->out);
    putc(p->cf->null_names ? '\0' : '\n', p->out);
}

void find_print_summary(find_printer *p, const find_file_result *r)
{
    const find_config *cf = p->cf;
    if (cf->quiet)
        return;
    if (cf->json) {
        find_json_end(p, r);
    } else if (cf->list) {
        if (r->matched)
            print_name(p);
    } else if (cf->list_without) {
        if (!r->matched)
            print_name(p);
    } else if (cf->count_matches && r->each) {
        print_each(p, r->each);
    } else if (cf->count_matches) {
        print_count(p, r->occurrences);
    } else if (cf->count_lines) {
        print_count(p, r->lines);
    } else if (r->matched && r->binary && !cf->text) {
        /* grep 3.8's note: on standard error, after the lines printed, and
         * kept by -s (only -q drops it). */
        fflush(p->out);
        fprintf(stderr, "hay: %s: binary file matches\n", p->name);
    }
}
