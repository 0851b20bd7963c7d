/* json.c - --json records (see json.h and docs/JSON.md). */
#include "json.h"

#include "casefold.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static bool valid_utf8(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = find_utf8_decode(p + i, len - i, &c);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

static void put_base64(FILE *o, const uint8_t *p, size_t len)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        putc(digits[v >> 18 & 63], o);
        putc(digits[v >> 12 & 63], o);
        putc(i + 1 < len ? digits[v >> 6 & 63] : '=', o);
        putc(i + 2 < len ? digits[v & 63] : '=', o);
    }
}

/* {"text":"..."} for valid UTF-8, else {"bytes":"base64"}. */
static void put_data(FILE *o, const uint8_t *p, size_t len)
{
    if (!valid_utf8(p, len)) {
        fputs("{\"bytes\":\"", o);
        put_base64(o, p, len);
        fputs("\"}", o);
        return;
    }
    fputs("{\"text\":\"", o);
    for (size_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\')
            putc('\\', o), putc(c, o);
        else if (c == '\n')
            fputs("\\n", o);
        else if (c == '\t')
            fputs("\\t", o);
        else if (c == '\r')
            fputs("\\r", o);
        else if (c < 0x20)
            fprintf(o, "\\u%04x", c);
        else
            putc(c, o);
    }
    fputs("\"}", o);
}

static void put_path(const find_printer *p)
{
    fputs("\"path\":", p->out);
    put_data(p->out, (const uint8_t *)p->name, strlen(p->name));
}

static void begin(find_printer *p)
{
    if (p->json_begun)
        return;
    p->json_begun = true;
    fputs("{\"type\":\"begin\",\"data\":{", p->out);
    put_path(p);
    fputs("}}\n", p->out);
}

void find_json_line(find_printer *p, const find_line *l)
{
    begin(p);
    /* A context line (-A/-B/-C, sep '-') is ripgrep's context record. */
    bool context = l->sep == '-';
    fputs(context ? "{\"type\":\"context\",\"data\":{" : "{\"type\":\"match\",\"data\":{",
          p->out);
    put_path(p);
    fputs(",\"lines\":", p->out);
    uint64_t end = l->end < p->len ? l->end + 1 : l->end;   /* with its newline */
    put_data(p->out, p->buf + l->start, (size_t)(end - l->start));
    fprintf(p->out, ",\"line_number\":%" PRIu64 ",\"absolute_offset\":%" PRIu64 ",\"submatches\":[",
           l->number, p->base + l->start);
    for (size_t i = 0; i < l->nspans; i++) {
        const find_span *s = &l->spans[i];
        fputs(i ? ",{\"match\":" : "{\"match\":", p->out);
        put_data(p->out, p->buf + s->s, (size_t)(s->e - s->s));
        fprintf(p->out, ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"pattern\":%" PRIu32 "}",
               s->s - l->start, s->e - l->start, s->id);
    }
    fputs("]}}\n", p->out);
    if (!context)
        p->json_matches += l->nspans;
}

/* ,"name":v, or null where the count was not made. */
static void put_count(FILE *o, const char *name, bool made, uint64_t v)
{
    if (made)
        fprintf(o, ",\"%s\":%" PRIu64, name, v);
    else
        fprintf(o, ",\"%s\":null", name);
}

void find_json_end(find_printer *p, const find_file_result *r)
{
    const find_config *cf = p->cf;
    /* -L prints the files without a selected line */
    bool listed = cf->list_without ? !r->matched : r->matched;
    if (!p->json_begun && !listed && !cf->count_lines && !cf->count_matches)
        return;
    begin(p);
    fputs("{\"type\":\"end\",\"data\":{", p->out);
    put_path(p);
    /* The file's bytes may be gone (unmapped) by now: the offset was kept. */
    if (r->binary)
        fprintf(p->out, ",\"binary_offset\":%" PRIu64, r->nul_at);
    else
        fputs(",\"binary_offset\":null", p->out);
    fprintf(p->out, ",\"stats\":{\"searches\":1,\"searches_with_match\":%d,\"bytes_searched\":%"
           PRIu64, r->matched ? 1 : 0, r->bytes);
    /* -l and a binary file's note stop at the first match: no counts. */
    bool stopped = cf->list || cf->list_without || (r->binary && !cf->text && !cf->count_lines &&
                                !cf->count_matches);
    put_count(p->out, "matched_lines", !stopped && !cf->count_matches, r->lines);
    put_count(p->out, "matches", !stopped && !cf->count_lines,
              cf->count_matches ? r->occurrences : p->json_matches);
    putc('}', p->out);
    if (r->each) {
        fputs(",\"pattern_counts\":[", p->out);
        for (size_t i = 0; i < cf->pats.n; i++) {
            fputs(i ? ",{\"pattern\":" : "{\"pattern\":", p->out);
            put_data(p->out, cf->pats.items[i].data, cf->pats.items[i].len);
            fprintf(p->out, ",\"count\":%" PRIu64 "}", r->each[i]);
        }
        putc(']', p->out);
    }
    fputs("}}\n", p->out);
}

void find_json_summary(const find_config *cf, const find_totals *t, double elapsed_s)
{
    uint64_t ns = (uint64_t)(elapsed_s * 1e9);
    fprintf(stdout, "{\"type\":\"summary\",\"data\":{\"elapsed_total\":{\"secs\":%" PRIu64
           ",\"nanos\":%" PRIu64 ",\"human\":\"%.6fs\"},\"stats\":{\"searches\":%" PRIu64
           ",\"searches_with_match\":%" PRIu64 ",\"bytes_searched\":%" PRIu64,
           ns / 1000000000u, ns % 1000000000u, elapsed_s, t->searches,
           t->searches_with_match, t->bytes);
    bool listing = cf->list || cf->list_without;
    put_count(stdout, "matched_lines", !listing && !cf->count_matches, t->matched_lines);
    put_count(stdout, "matches", !listing && !cf->count_lines, t->matches);
    fputs("}}}\n", stdout);
}
