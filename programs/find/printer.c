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

static void put_sep(const find_printer *p, char sep)
{
    if (p->cf->color)
        fputs(C_SEP, p->out), putc(sep, p->out), fputs(C_END, p->out);
    else
        putc(sep, p->out);
}

/* A line number or byte offset and its separator. */
static void put_number(const find_printer *p, uint64_t v)
{
    fprintf(p->out, p->cf->color ? C_NUM "%" PRIu64 C_END : "%" PRIu64, v);
    put_sep(p, ':');
}

static void put_prefix(const find_printer *p, uint64_t lineno, uint64_t offset)
{
    const find_config *cf = p->cf;
    if (p->print_name) {
        if (cf->color)
            fprintf(p->out, C_FILE "%s" C_END, p->name);
        else
            fputs(p->name, p->out);
        put_sep(p, ':');
    }
    if (cf->line_numbers)
        put_number(p, lineno);
    if (cf->byte_offset)
        put_number(p, p->base + offset);
}

static void put_bytes(const find_printer *p, uint64_t from, uint64_t to)
{
    fwrite(p->buf + from, 1, to - from, p->out);
}

static void print_only(const find_printer *p, const find_line *l)
{
    for (size_t i = 0; i < l->nspans; i++) {
        put_prefix(p, l->number, l->spans[i].s);
        if (p->cf->color)
            fputs(C_MATCH, p->out);
        put_bytes(p, l->spans[i].s, l->spans[i].e);
        if (p->cf->color)
            fputs(C_END, p->out);
        putc('\n', p->out);
    }
}

static void print_whole(const find_printer *p, const find_line *l)
{
    put_prefix(p, l->number, l->start);
    uint64_t pos = l->start;
    if (p->cf->color) {
        for (size_t i = 0; i < l->nspans; i++) {
            /* Overlapping spans (--match-mode all): colour the union. */
            uint64_t a = l->spans[i].s > pos ? l->spans[i].s : pos;
            if (l->spans[i].e <= a)
                continue;
            put_bytes(p, pos, a);
            fputs(C_MATCH, p->out);
            put_bytes(p, a, l->spans[i].e);
            fputs(C_END, p->out);
            pos = l->spans[i].e;
        }
    }
    put_bytes(p, pos, l->end);
    putc('\n', p->out);
}

void find_print_line(void *printer, const find_line *line)
{
    find_printer *p = printer;
    if (p->cf->json)
        find_json_line(p, line);
    else if (p->cf->only)
        print_only(p, line);
    else
        print_whole(p, line);
}

static void print_count(const find_printer *p, uint64_t n)
{
    if (p->print_name)
        fprintf(p->out, "%s:", p->name);
    fprintf(p->out, "%" PRIu64 "\n", n);
}

/* --count-matches=each: a line per pattern, COUNT, a tab, the pattern with
 * its unprintable bytes (and the backslash) as --escapes reads them. */
static void print_each(const find_printer *p, const uint64_t *each)
{
    const find_config *cf = p->cf;
    for (size_t i = 0; i < cf->pats.n; i++) {
        if (p->print_name)
            fprintf(p->out, "%s:", p->name);
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

void find_print_summary(find_printer *p, const find_file_result *r)
{
    const find_config *cf = p->cf;
    if (cf->quiet)
        return;
    if (cf->json) {
        find_json_end(p, r);
    } else if (cf->list) {
        if (r->matched)
            fprintf(p->out, "%s\n", p->name);
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
