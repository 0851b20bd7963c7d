/* printer.c - lines, -o, colour, summaries and --json (see printer.h). */
#include "printer.h"

#include "cli.h"

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
        fputs(C_SEP, stdout), putchar(sep), fputs(C_END, stdout);
    else
        putchar(sep);
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
        fputs(C_NUM, stdout);
    fwrite(b + sizeof b - n, 1, n, stdout);
    if (p->cf->color)
        fputs(C_END, stdout);
    put_sep(p, sep);
}

/* The file name, line number and offset before a line of `len` bytes. */
static void put_prefix(const find_printer *p, uint64_t lineno, uint64_t offset, char sep,
                       uint64_t len)
{
    const find_config *cf = p->cf;
    if (p->print_name) {
        if (cf->color)
            printf(C_FILE "%s" C_END, p->name);
        else
            fputs(p->name, stdout);
        if (cf->null_names)
            putchar('\0');
        else
            put_sep(p, sep);
    }
    if (cf->line_numbers)
        put_number(p, lineno, sep);
    if (cf->byte_offset)
        put_number(p, offset, sep);
    if (cf->initial_tab && (p->print_name || cf->line_numbers || cf->byte_offset) && len)
        putchar('\t');
}

static void put_bytes(const find_printer *p, uint64_t from, uint64_t to)
{
    fwrite(p->buf + from, 1, to - from, stdout);
}

static void end_line(const find_printer *p)
{
    putchar(p->cf->eol);
    if (p->cf->line_buffered)
        fflush(stdout);
}

static void print_only(const find_printer *p, const find_line *l)
{
    for (size_t i = 0; i < l->nspans; i++) {
        put_prefix(p, l->number, l->spans[i].s, l->sep, l->spans[i].e - l->spans[i].s);
        if (p->cf->color)
            fputs(C_MATCH, stdout);
        put_bytes(p, l->spans[i].s, l->spans[i].e);
        if (p->cf->color)
            fputs(C_END, stdout);
        end_line(p);
    }
}

static void print_whole(const find_printer *p, const find_line *l)
{
    put_prefix(p, l->number, l->start, l->sep, l->end - l->start);
    uint64_t pos = l->start;
    if (p->cf->color) {
        for (size_t i = 0; i < l->nspans; i++) {
            /* Overlapping spans (--match-mode all): colour the union. */
            uint64_t a = l->spans[i].s > pos ? l->spans[i].s : pos;
            if (l->spans[i].e <= a)
                continue;
            put_bytes(p, pos, a);
            fputs(C_MATCH, stdout);
            put_bytes(p, a, l->spans[i].e);
            fputs(C_END, stdout);
            pos = l->spans[i].e;
        }
    }
    put_bytes(p, pos, l->end);
    end_line(p);
}

void find_print_line(void *printer, const find_line *line)
{
    const find_printer *p = printer;
    if (p->cf->only)
        print_only(p, line);
    else
        print_whole(p, line);
}

void find_print_lines_raw(void *printer, uint64_t from, uint64_t to)
{
    const find_printer *p = printer;
    if (from >= to)
        return;
    put_bytes(p, from, to);
    if (p->buf[to - 1] != p->cf->eol)
        putchar(p->cf->eol);   /* the last line had no terminator */
    if (p->cf->line_buffered)
        fflush(stdout);
}

void find_print_group_sep(void *printer)
{
    const find_printer *p = printer;
    if (p->cf->color)
        printf(C_SEP "%s" C_END "\n", p->cf->group_sep);
    else
        printf("%s\n", p->cf->group_sep);
}

void find_print_json(const find_printer *p, uint32_t id, uint64_t offset,
                     uint64_t line)
{
    fputs("{\"file\":", stdout);
    cli_json_string(p->name);
    printf(",\"pattern\":%" PRIu32 ",\"offset\":%" PRIu64 ",\"line\":%" PRIu64 "}\n",
           id, offset, line);
}

static void print_count(const find_printer *p, uint64_t n)
{
    if (p->print_name) {
        fputs(p->name, stdout);
        putchar(p->cf->null_names ? '\0' : ':');
    }
    printf("%" PRIu64 "\n", n);
}

static void print_name(const find_printer *p)
{
    fputs(p->name, stdout);
    putchar(p->cf->null_names ? '\0' : '\n');
}

void find_print_summary(const find_printer *p, const find_file_result *r)
{
    const find_config *cf = p->cf;
    if (cf->quiet)
        return;
    if (cf->list) {
        if (r->matched)
            print_name(p);
    } else if (cf->list_without) {
        if (!r->matched)
            print_name(p);
    } else if (cf->count_matches) {
        print_count(p, r->occurrences);
    } else if (cf->count_lines) {
        print_count(p, r->lines);
    } else if (r->matched && r->binary && !cf->text && !cf->json) {
        printf("Binary file %s matches\n", p->name);
    }
    if (cf->line_buffered)
        fflush(stdout);
}
