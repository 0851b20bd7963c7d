/* context.c - -v, -m and context lines (see context.h). */
#include "context.h"

#include <stdlib.h>
#include <string.h>

/* A matching line kept for the context before a selected one (-v with
 * colours): its bounds and matches. */
typedef struct saved_line {
    find_line line;
    find_span *spans;
    size_t cap;
} saved_line;

void find_select_init(find_select *s, find_lines *lines)
{
    memset(s, 0, sizeof *s);
    s->lines = lines;
}

void find_select_free(find_select *s)
{
    for (size_t i = 0; s->saved && i < s->before; i++)
        free(s->saved[i].spans);
    free(s->saved);
    s->saved = NULL;
}

void find_select_piece(find_select *s)
{
    /* pos is the previous piece's length (find_select_finish) */
    if (s->have_out)
        s->last_out = s->last_out == s->pos ? 0 : UINT64_MAX;
    s->pos = 0;
}

bool find_select_done(const find_select *s)
{
    return s->done && !(s->keep_matches && s->after_left);
}

/* Keeps a matching line in the ring of the last `before` ones. */
static void save_line(find_select *s, const find_line *m)
{
    if (!s->keep_matches || !s->before || s->before > 4096)
        return;
    if (!s->saved && !(s->saved = calloc((size_t)s->before, sizeof *s->saved)))
        return;
    saved_line *v = &s->saved[s->nsaved++ % s->before];
    if (v->cap < m->nspans) {
        find_span *p = realloc(v->spans, m->nspans * sizeof *p);
        if (!p) {
            v->line.start = UINT64_MAX;
            return;
        }
        v->spans = p;
        v->cap = m->nspans;
    }
    if (m->nspans)
        memcpy(v->spans, m->spans, m->nspans * sizeof *v->spans);
    v->line = *m;
    v->line.spans = v->spans;
}

static const find_line *saved_at(const find_select *s, uint64_t start)
{
    for (size_t i = 0; s->saved && i < s->before && i < s->nsaved; i++)
        if (s->saved[i].line.start == start)
            return &s->saved[i].line;
    return NULL;
}

/* The end of the line starting at `from`, without its terminator. */
static uint64_t line_end(const find_select *s, uint64_t from)
{
    const find_lines *l = s->lines;
    const uint8_t *e = memchr(l->buf + from, l->eol, l->len - from);
    return e ? (uint64_t)(e - l->buf) : l->len;
}

static uint64_t next_start(const find_select *s, uint64_t end)
{
    return end < s->lines->len ? end + 1 : end;
}

/* `more`: the first part of a line handed on in parts (lines.h). */
static void put_line(find_select *s, uint64_t start, uint64_t end, char sep,
                     const find_span *spans, size_t nspans, uint64_t number, bool more)
{
    if (s->out && !(s->only && sep == '-')) {
        find_line line = { .start = start, .end = end, .sep = sep, .spans = spans,
                           .nspans = nspans, .number = number, .more = more };
        s->out(s->out_ctx, &line);
    }
    s->last_out = next_start(s, end);
    s->have_out = true;
    *s->used = true;
}

static uint64_t number_at(find_select *s, uint64_t offset)
{
    return s->lines->numbers ? find_lines_number_at(s->lines, offset) : 0;
}

/* Lines [from, to) that are not selected: the trailing context still owed
 * is printed from them.  `m` is the matching line when they are one (-v),
 * for its matches' colours. */
static void not_selected(find_select *s, uint64_t from, uint64_t to, const find_line *m)
{
    if (!s->out)
        return;
    while (s->after_left && from < to) {
        uint64_t end = line_end(s, from);
        if (m)
            put_line(s, from, end, '-', m->spans, m->nspans, m->number, false);
        else
            put_line(s, from, end, '-', NULL, 0, number_at(s, from), false);
        s->after_left--;
        from = next_start(s, end);
    }
}

/* A selected line: the context before it, a group separator where it does
 * not touch what was printed last, then the line. */
static void selected(find_select *s, uint64_t start, uint64_t end, const find_line *m)
{
    s->selected++;
    if (s->has_max && s->selected >= s->max)
        s->done = true;
    if (!s->out)
        return;
    const find_lines *l = s->lines;
    uint64_t floor = s->have_out ? s->last_out : 0, from = start;
    for (uint64_t k = 0; k < s->before && from > floor; k++) {
        const uint8_t *nl = from - 1 > floor ? memrchr(l->buf + floor, l->eol, from - 1 - floor)
                                             : NULL;
        from = nl ? (uint64_t)(nl - l->buf) + 1 : floor;
    }
    if (s->context && s->group_sep && *s->used && (!s->have_out || from != s->last_out))
        s->out_sep(s->out_ctx);
    while (from < start) {
        uint64_t e = line_end(s, from);
        const find_line *c = saved_at(s, from);
        put_line(s, from, e, '-', c ? c->spans : NULL, c ? c->nspans : 0,
                 number_at(s, from), false);
        from = next_start(s, e);
    }
    if (m)
        put_line(s, start, end, ':', m->spans, m->nspans, m->number, m->more);
    else
        put_line(s, start, end, ':', NULL, 0, number_at(s, start), false);
    s->after_left = s->after;
}

/* Lines [from, to) that are all selected (-v). */
static void all_selected(find_select *s, uint64_t from, uint64_t to)
{
    if (from >= to)
        return;
    if (s->raw && s->out) {
        s->out_raw(s->out_ctx, from, to);
        s->selected++;   /* only whether any was is asked */
        *s->used = true;
        return;
    }
    if (!s->out && !s->has_max) {
        s->selected += find_lines_count(s->lines->buf + from, to - from, s->lines->eol);
        return;
    }
    while (from < to && !s->done) {
        uint64_t end = line_end(s, from);
        selected(s, from, end, NULL);
        from = next_start(s, end);
    }
    not_selected(s, from, to, NULL);
}

void find_select_matching(void *select, const find_line *line)
{
    find_select *s = select;
    if (line->cont) {
        /* A later part of a line handed on in parts (-o): printed if its
         * first part was printed as selected; nothing is selected again. */
        if (s->part_out)
            s->out(s->out_ctx, line);
        return;
    }
    s->part_out = false;
    uint64_t after = next_start(s, line->end);
    if (s->invert) {
        /* The matching line is context; its matches are coloured. */
        if (s->done)
            not_selected(s, s->pos, line->start, NULL);
        else
            all_selected(s, s->pos, line->start);
        not_selected(s, line->start, after, line);
        save_line(s, line);
    } else if (s->done) {
        not_selected(s, s->pos, after, NULL);
    } else {
        not_selected(s, s->pos, line->start, NULL);
        selected(s, line->start, line->end, line);
        s->part_out = line->more && s->out;
    }
    s->pos = after;
}

void find_select_finish(find_select *s)
{
    uint64_t len = s->lines->len;
    if (s->invert && !s->done)
        all_selected(s, s->pos, len);
    else
        not_selected(s, s->pos, len, NULL);
    s->pos = len;
}
