/* patfile.c - pattern lists: splitting, escape decoding, ownership. */
#include "patfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long pat_decode_escapes(uint8_t *s, size_t len, size_t *bad)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            s[o++] = s[i];
            continue;
        }
        int hi, lo;
        if (i + 3 < len && s[i + 1] == 'x' &&
            (hi = hexval(s[i + 2])) >= 0 && (lo = hexval(s[i + 3])) >= 0) {
            s[o++] = (uint8_t)(hi << 4 | lo);
            i += 3;
            continue;
        }
        if (bad)
            *bad = i;
        return -1;
    }
    return (long)o;
}

static int push(pat_list *l, const uint8_t *p, size_t len)
{
    if (len == 0) {
        l->empty++;
        return 0;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        hay_pattern *it = realloc(l->items, cap * sizeof *it);
        if (!it)
            return -1;
        l->items = it;
        l->cap = cap;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return -1;
    memcpy(copy, p, len);
    l->items[l->n].data = copy;
    l->items[l->n].len = len;
    l->n++;
    return 0;
}

int pat_list_add_text(pat_list *l, const uint8_t *text, size_t len,
                      bool escapes, bool final_newline_ends, const char *origin,
                      char *err, size_t errcap)
{
    size_t line = 1, pos = 0;
    uint8_t *tmp = NULL;
    if (len == 0 && final_newline_ends)
        return 0;   /* an empty pattern file holds no patterns */
    while (pos <= len) {
        const uint8_t *nl = pos < len ? memchr(text + pos, '\n', len - pos) : NULL;
        size_t end = nl ? (size_t)(nl - text) : len;
        if (!nl && end == pos && final_newline_ends && pos > 0)
            break;   /* the newline that ended the previous line ended the list */
        size_t n = end - pos;
        const uint8_t *p = text + pos;
        if (escapes) {
            uint8_t *t = realloc(tmp, n ? n : 1);
            if (!t)
                goto nomem;
            tmp = t;
            memcpy(tmp, p, n);
            size_t bad = 0;
            long m = pat_decode_escapes(tmp, n, &bad);
            if (m < 0) {
                snprintf(err, errcap,
                         "%s:%zu: invalid escape at column %zu (only \\xHH is allowed)",
                         origin, line, bad + 1);
                free(tmp);
                return -1;
            }
            p = tmp;
            n = (size_t)m;
        }
        if (push(l, p, n) < 0)
            goto nomem;
        if (!nl)
            break;
        pos = end + 1;
        line++;
    }
    free(tmp);
    return 0;
nomem:
    free(tmp);
    snprintf(err, errcap, "%s: out of memory", origin);
    return -1;
}

void pat_list_free(pat_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((void *)l->items[i].data);
    free(l->items);
    memset(l, 0, sizeof *l);
}
