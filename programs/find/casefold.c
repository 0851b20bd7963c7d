/* casefold.c - case variants of UTF-8 patterns for -i (see casefold.h). */
#include "casefold.h"

#include "casefold_table.h"

#include <langinfo.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool find_casefold_locale_is_utf8(void)
{
    const char *old = setlocale(LC_CTYPE, NULL);
    char *saved = old ? strdup(old) : NULL;
    bool utf8 = false;
    if (setlocale(LC_CTYPE, "")) {
        const char *cs = nl_langinfo(CODESET);
        utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    }
    setlocale(LC_CTYPE, saved ? saved : "C");
    free(saved);
    return utf8;
}

size_t find_utf8_decode(const uint8_t *p, size_t len, uint32_t *cp)
{
    if (len == 0)
        return 0;
    uint8_t b = p[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t n;
    uint32_t c, min;
    if (b >= 0xC2 && b <= 0xDF)
        n = 2, c = b & 0x1F, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF)
        n = 3, c = b & 0x0F, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4)
        n = 4, c = b & 0x07, min = 0x10000;
    else
        return 0;
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

static size_t utf8_encode(uint32_t c, uint8_t *out)
{
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xC0 | c >> 6);
        out[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | c >> 12);
        out[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | c >> 18);
    out[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

/* The orbit of c, or -1 when c has no case variants. */
static int orbit_of(uint32_t c)
{
    size_t lo = 0, hi = CF_NINDEX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cf_index_cp[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < CF_NINDEX && cf_index_cp[lo] == c ? cf_index_orbit[lo] : -1;
}

static bool ascii_upper(uint32_t c)
{
    return c >= 'A' && c <= 'Z';
}

/* One piece of a pattern: a code point and the ones it may be replaced by
 * (alt[0] is c itself), or bytes taken as they are (nalt == 0). */
#define MAX_ORBIT 8
typedef struct piece {
    const uint8_t *raw;
    size_t rawlen;
    uint32_t alt[MAX_ORBIT];
    int nalt;
} piece;

/* c's replacements other than itself.  An ASCII capital is left out where
 * its small letter is there (HAY_CASELESS matches both). */
static int fill_alternatives(piece *pc, uint32_t c)
{
    pc->alt[0] = c;
    pc->nalt = 1;
    int k = orbit_of(c);
    if (k < 0)
        return 0;
    uint32_t self_lower = ascii_upper(c) ? c + 32 : c;
    for (uint16_t i = cf_orbit_start[k]; i < cf_orbit_start[k + 1]; i++) {
        uint32_t m = cf_members[i];
        if (m == c || m == self_lower || ascii_upper(m) || pc->nalt == MAX_ORBIT)
            continue;
        pc->alt[pc->nalt++] = m;
    }
    return pc->nalt - 1;
}

bool find_casefold_needed(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = find_utf8_decode(p + i, len - i, &c);
        if (n > 1 && orbit_of(c) >= 0)
            return true;
        i += n ? n : 1;
    }
    return false;
}

static int push(find_variants *v, uint8_t *data, size_t len, uint32_t id)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        hay_pattern *items = realloc(v->items, cap * sizeof *items);
        if (!items)
            return -1;
        v->items = items;
        uint32_t *owner = realloc(v->owner, cap * sizeof *owner);
        if (!owner)
            return -1;
        v->owner = owner;
        v->cap = cap;
    }
    memset(&v->items[v->n], 0, sizeof v->items[v->n]);
    v->items[v->n].data = data;
    v->items[v->n].len = len;
    v->owner[v->n] = id;
    v->n++;
    return 0;
}

int find_variants_add(find_variants *v, const uint8_t *p, size_t len, uint32_t id)
{
    uint8_t *s = malloc(len ? len : 1);
    if (!s)
        return -1;
    memcpy(s, p, len);
    if (push(v, s, len, id) < 0) {
        free(s);
        return -1;
    }
    return 0;
}

int find_casefold_expand(find_variants *v, const uint8_t *p, size_t len, uint32_t id,
                         size_t limit, size_t *covered)
{
    piece *pcs = malloc((len ? len : 1) * sizeof *pcs);
    int *digit = calloc(len ? len : 1, sizeof *digit);
    int rc = -1;
    if (!pcs || !digit)
        goto out;
    size_t np = 0, i = 0;
    double total = 1;
    while (i < len) {
        uint32_t c;
        size_t n = find_utf8_decode(p + i, len - i, &c);
        piece *pc = &pcs[np];
        pc->raw = p + i;
        pc->rawlen = n ? n : 1;
        pc->nalt = 0;
        if (n && (n > 1 || orbit_of(c) >= 0) && fill_alternatives(pc, c) == 0)
            pc->nalt = 0;   /* no variants: keep the bytes as given */
        if (np && total * (pc->nalt ? pc->nalt : 1) > (double)limit)
            break;   /* the rest is verified after the scan */
        total *= pc->nalt ? pc->nalt : 1;
        i += pc->rawlen;
        np++;
    }
    *covered = i;
    /* Every combination, by an odometer over the pieces: the first is the
     * pattern as given. */
    for (;;) {
        uint8_t *s = malloc(4 * i + 1), *o = s;
        if (!s)
            goto out;
        for (size_t k = 0; k < np; k++) {
            if (pcs[k].nalt == 0 || digit[k] == 0) {
                memcpy(o, pcs[k].raw, pcs[k].rawlen);
                o += pcs[k].rawlen;
            } else {
                o += utf8_encode(pcs[k].alt[digit[k]], o);
            }
        }
        if (push(v, s, (size_t)(o - s), id) < 0) {
            free(s);
            goto out;
        }
        size_t k = 0;
        while (k < np && (pcs[k].nalt == 0 || ++digit[k] == pcs[k].nalt)) {
            digit[k] = 0;
            k++;
        }
        if (k == np)
            break;
    }
    rc = 0;
out:
    free(pcs);
    free(digit);
    return rc;
}

/* Whether text code point t matches pattern code point c. */
static bool same_case(uint32_t c, uint32_t t)
{
    if (c == t)
        return true;
    if (c < 0x80 && t < 0x80)
        return (c | 0x20) == (t | 0x20) && (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    int k = orbit_of(c);
    return k >= 0 && k == orbit_of(t);
}

size_t find_casefold_match(const uint8_t *pat, size_t plen, const uint8_t *text, size_t tlen)
{
    size_t i = 0, j = 0;
    while (i < plen) {
        uint32_t c, t;
        size_t pn = find_utf8_decode(pat + i, plen - i, &c);
        if (!pn) {
            if (j >= tlen || text[j] != pat[i])
                return SIZE_MAX;
            i++, j++;
            continue;
        }
        size_t tn = find_utf8_decode(text + j, tlen - j, &t);
        if (!tn || !same_case(c, t))
            return SIZE_MAX;
        i += pn;
        j += tn;
    }
    return j;
}

void find_variants_free(find_variants *v)
{
    for (size_t i = 0; i < v->n; i++)
        free((void *)v->items[i].data);
    free(v->items);
    free(v->owner);
    memset(v, 0, sizeof *v);
}
