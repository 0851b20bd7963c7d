/* lines.c - line boundaries around matches, line numbers (see lines.h). */
#include "lines.h"

#include <stdlib.h>
#include <string.h>

static uint64_t count_newlines(const uint8_t *p, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++)
        c += p[i] == '\n';
    return c;
}

void find_lines_init(find_lines *l, const uint8_t *buf, uint64_t len)
{
    memset(l, 0, sizeof *l);
    l->buf = buf;
    l->len = len;
    l->lineno = 1;
}

void find_lines_first_number(find_lines *l, uint64_t number)
{
    l->lineno = number;
}

void find_lines_free(find_lines *l)
{
    free(l->spans);
    l->spans = NULL;
    l->nspans = l->cap = 0;
}

bool find_lines_selects(const find_lines *l, uint64_t start, uint64_t end)
{
    return !memchr(l->buf + start, '\n', end - start);
}

uint64_t find_lines_number_at(find_lines *l, uint64_t offset)
{
    if (offset >= l->lineno_pos)
        l->lineno += count_newlines(l->buf + l->lineno_pos, offset - l->lineno_pos);
    else
        l->lineno -= count_newlines(l->buf + offset, l->lineno_pos - offset);
    l->lineno_pos = offset;
    return l->lineno;
}

static int cmp_span(const void *a, const void *b)
{
    const find_span *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;   /* longest first */
    return 0;
}

/* Hands the line in progress on with the spans kept so far. */
static void emit_spans(find_lines *l)
{
    find_line line = {
        .start = l->line_start,
        .end = l->line_end,
        .number = l->numbers ? find_lines_number_at(l, l->line_start) : 0,
        .spans = l->spans,
        .nspans = l->nspans,
    };
    l->emit(l->emit_ctx, &line);
    l->nspans = 0;
}

void find_lines_finish(find_lines *l)
{
    if (!l->have_line)
        return;
    if (l->emit) {
        /* The leftmost modes give the spans in order without overlaps;
         * every occurrence (--match-mode all) comes in order of end. */
        if (l->sort_spans && l->nspans)
            qsort(l->spans, l->nspans, sizeof *l->spans, cmp_span);
        emit_spans(l);
    }
    l->nspans = 0;
    l->have_line = false;
}

int find_lines_add(find_lines *l, uint64_t start, uint64_t end, uint32_t id)
{
    bool same_line = l->have_line && start >= l->line_start && start < l->line_end;
    if (!same_line) {
        if (l->emit)
            find_lines_finish(l);
        /* The new line starts after the last newline before the match, which
         * is no earlier than the end of the previous line. */
        uint64_t floor = l->next_line_from;
        const uint8_t *nl = start > floor
                                ? memrchr(l->buf + floor, '\n', start - floor) : NULL;
        l->line_start = nl ? (uint64_t)(nl - l->buf) + 1 : floor;
        const uint8_t *e = memchr(l->buf + end, '\n', l->len - end);
        l->line_end = e ? (uint64_t)(e - l->buf) : l->len;
        l->next_line_from = l->line_end < l->len ? l->line_end + 1 : l->len;
        l->have_line = true;
        l->selected++;
    }
    if (!l->emit || l->no_spans)
        return 0;
    if (l->spans_max && !l->sort_spans && l->nspans == l->spans_max)
        emit_spans(l);   /* -o: this part of the line's matches now */
    if (l->nspans == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        find_span *p = realloc(l->spans, cap * sizeof *p);
        if (!p)
            return -1;
        l->spans = p;
        l->cap = cap;
    }
    l->spans[l->nspans++] = (find_span){ start, end, id };
    return 0;
}

uint64_t find_lines_count(const uint8_t *buf, uint64_t len)
{
    uint64_t lines = count_newlines(buf, len);
    if (len && buf[len - 1] != '\n')
        lines++;
    return lines;
}

void find_lines_each(const uint8_t *buf, uint64_t len, find_line_fn emit, void *ctx)
{
    uint64_t pos = 0, number = 1;
    while (pos < len) {
        const uint8_t *nl = memchr(buf + pos, '\n', len - pos);
        uint64_t end = nl ? (uint64_t)(nl - buf) : len;
        find_line line = { .start = pos, .end = end, .number = number++ };
        emit(ctx, &line);
        pos = end + 1;
    }
}
