/* lines.c - line boundaries around matches, line numbers (see lines.h). */
#include "lines.h"

#include <stdlib.h>
#include <string.h>

/* The terminators in p[0, n): byte counters over blocks of up to 255
 * rounds, which the compiler turns into vector compares (3x the plain loop
 * over a whole file); below EOL_SHORT bytes (the lines between two matching
 * ones) the plain loop costs less than setting the counters up. */
#define EOL_LANES 64
#define EOL_SHORT 128
static uint64_t count_eol(const uint8_t *p, uint64_t n, uint8_t eol)
{
    uint64_t c = 0;
    while (n >= EOL_SHORT) {
        uint64_t rounds = n / EOL_LANES < 255 ? n / EOL_LANES : 255;
        uint8_t acc[EOL_LANES] = { 0 };
        for (uint64_t r = 0; r < rounds; r++, p += EOL_LANES)
            for (int k = 0; k < EOL_LANES; k++)
                acc[k] = (uint8_t)(acc[k] + (p[k] == eol));
        for (int k = 0; k < EOL_LANES; k++)
            c += acc[k];
        n -= rounds * EOL_LANES;
    }
    for (uint64_t i = 0; i < n; i++)
        c += p[i] == eol;
    return c;
}

void find_lines_init(find_lines *l, const uint8_t *buf, uint64_t len)
{
    memset(l, 0, sizeof *l);
    l->buf = buf;
    l->len = len;
    l->lineno = 1;
    l->eol = '\n';
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
    return !memchr(l->buf + start, l->eol, end - start);
}

/* A letter, digit or '_' (grep's word constituents in the C locale). */
static bool word_byte(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '_';
}

bool find_lines_passes_after(const find_lines *l, uint64_t end)
{
    return end == l->len || !word_byte(l->buf[end]);
}

bool find_lines_passes(const find_lines *l, uint64_t start, uint64_t end)
{
    if (l->whole)
        return (start == 0 || l->buf[start - 1] == l->eol) &&
               (end == l->len || l->buf[end] == l->eol);
    if (l->word)
        return (start == 0 || !word_byte(l->buf[start - 1])) &&
               (end == l->len || !word_byte(l->buf[end]));
    return true;
}

/* grep's matches among the sorted spans[0, n), moved to the front (how
 * many are returned): from the left, the longest at the leftmost start,
 * then the next that starts at or after its end (where grep -o does not
 * look at the byte before a match that starts right at the end of the
 * previous one: a weak span counts there).  The state runs on from one
 * part of the line to the next (picked, picked_end). */
static size_t pick_spans(find_lines *l, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const find_span sp = l->spans[i];
        if ((l->picked && sp.s < l->picked_end) || sp.e == sp.s ||
            (sp.weak && !(l->picked && sp.s == l->picked_end)))
            continue;
        l->spans[k++] = sp;
        l->picked = true;
        l->picked_end = sp.e;
    }
    return k;
}

uint64_t find_lines_number_at(find_lines *l, uint64_t offset)
{
    if (offset >= l->lineno_pos)
        l->lineno += count_eol(l->buf + l->lineno_pos, offset - l->lineno_pos, l->eol);
    else
        l->lineno -= count_eol(l->buf + offset, l->lineno_pos - offset, l->eol);
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

/* Hands the line in progress on with the spans kept so far; `more` when
 * this is not its last part. */
static void emit_spans(find_lines *l, bool more)
{
    find_line line = {
        .start = l->line_start,
        .end = l->line_end,
        .sep = ':',
        .number = l->numbers ? find_lines_number_at(l, l->line_start) : 0,
        .spans = l->spans,
        .nspans = l->nspans,
        .more = more,
        .cont = l->parted,
    };
    l->emit(l->emit_ctx, &line);
    l->nspans = 0;
    l->parted = more;
}

void find_lines_finish(find_lines *l)
{
    if (!l->have_line)
        return;
    if (l->emit && l->line_strong) {
        /* The leftmost modes give the spans in order without overlaps;
         * every occurrence (--match-mode all) comes in order of end. */
        if (l->sort_spans && l->nspans)
            qsort(l->spans, l->nspans, sizeof *l->spans, cmp_span);
        if (l->pick)
            l->nspans = pick_spans(l, l->nspans);
        emit_spans(l, false);
    }
    l->nspans = 0;
    l->have_line = l->line_strong = l->parted = l->picked = false;
    l->flush_at = 0;
}

/* Every occurrence (sort_spans) on a line in parts: the spans starting
 * before `below` can no longer be joined by one starting earlier, so they
 * are sorted, picked and handed on as a part; the others wait.  The next
 * look comes at twice as many waiting (linear time on any line). */
static void hand_on_decided(find_lines *l, uint64_t below)
{
    size_t n = l->nspans, d = 0;
    qsort(l->spans, n, sizeof *l->spans, cmp_span);
    while (d < n && l->spans[d].s < below)
        d++;
    size_t k = l->pick ? pick_spans(l, d) : d;
    if (k) {   /* (none kept: the line is not selected yet, or all were
                  hidden by kept ones) */
        l->nspans = k;
        emit_spans(l, true);
    }
    memmove(l->spans, l->spans + d, (n - d) * sizeof *l->spans);
    l->nspans = n - d;
    l->flush_at = 2 * l->nspans > l->spans_max ? 2 * l->nspans : l->spans_max;
}

int find_lines_add(find_lines *l, uint64_t start, uint64_t end, uint32_t id, bool strong)
{
    bool same_line = l->have_line && start >= l->line_start && start < l->line_end;
    if (!same_line) {
        find_lines_finish(l);
        /* The new line starts after the last newline before the match, which
         * is no earlier than the end of the previous line. */
        uint64_t floor = l->next_line_from;
        const uint8_t *nl = start > floor
                                ? memrchr(l->buf + floor, l->eol, start - floor) : NULL;
        l->line_start = nl ? (uint64_t)(nl - l->buf) + 1 : floor;
        const uint8_t *e = memchr(l->buf + end, l->eol, l->len - end);
        l->line_end = e ? (uint64_t)(e - l->buf) : l->len;
        l->next_line_from = l->line_end < l->len ? l->line_end + 1 : l->len;
        l->have_line = true;
    }
    if (strong && !l->line_strong) {
        l->line_strong = true;
        l->selected++;
    }
    if (!l->emit || l->no_spans)
        return 0;
    if (l->spans_max && !l->sort_spans && l->nspans == l->spans_max) {
        /* -o, colour: this part of the line's matches now (in order of
         * start without overlaps: all decided) */
        if (l->pick)
            l->nspans = pick_spans(l, l->nspans);
        if (l->nspans)
            emit_spans(l, true);
        l->nspans = 0;
    }
    if (l->spans_max && l->sort_spans && l->reach &&
        l->nspans >= (l->flush_at ? l->flush_at : l->spans_max))
        hand_on_decided(l, end > l->reach ? end - l->reach : 0);
    if (l->nspans == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        find_span *p = realloc(l->spans, cap * sizeof *p);
        if (!p)
            return -1;
        l->spans = p;
        l->cap = cap;
    }
    l->spans[l->nspans++] = (find_span){ start, end, id, !strong };
    return 0;
}

uint64_t find_lines_count(const uint8_t *buf, uint64_t len, uint8_t eol)
{
    uint64_t lines = count_eol(buf, len, eol);
    if (len && buf[len - 1] != eol)
        lines++;
    return lines;
}

void find_lines_each(const uint8_t *buf, uint64_t len, uint8_t eol, find_line_fn emit,
                     void *ctx)
{
    uint64_t pos = 0, number = 1;
    while (pos < len) {
        const uint8_t *nl = memchr(buf + pos, eol, len - pos);
        uint64_t end = nl ? (uint64_t)(nl - buf) : len;
        find_line line = { .start = pos, .end = end, .sep = ':', .number = number++ };
        emit(ctx, &line);
        pos = end + 1;
    }
}
