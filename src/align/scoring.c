/*
 * scoring.c - scoring schemes: NCBI-format matrices (parsed from text,
 * built in or from a file), nucleotide match/mismatch, residue encoding,
 * and rescoring an alignment from its CIGAR.
 */
#include "align_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bounds that keep every engine's arithmetic exact (see sw_striped_impl.h). */
#define MAX_PENALTY 1000000
#define MAX_ABS_SCORE 1000000

static hay_status check_gaps(int32_t open, int32_t extend)
{
    if (open < 1 || extend < 0 || extend > open || open > MAX_PENALTY)
        return HAY_ERR_INVALID;
    return HAY_OK;
}

static void finish(hay_align_scoring *s)
{
    s->max_score = INT32_MIN;
    s->min_score = INT32_MAX;
    for (int i = 0; i < s->alpha * s->alpha; i++) {
        if (s->matrix[i] > s->max_score)
            s->max_score = s->matrix[i];
        if (s->matrix[i] < s->min_score)
            s->min_score = s->matrix[i];
    }
}

static hay_align_scoring *scoring_new(void)
{
    hay_align_scoring *s = calloc(1, sizeof *s);
    if (s)
        memset(s->map, -1, sizeof s->map);
    return s;
}

/* Parses one integer at *p; returns 0 if there is none. */
static int parse_int(const char **p, const char *end, int32_t *v)
{
    const char *c = *p;
    int neg = 0;
    if (c < end && (*c == '-' || *c == '+')) {
        neg = *c == '-';
        c++;
    }
    if (c >= end || !isdigit((unsigned char)*c))
        return 0;
    long x = 0;
    while (c < end && isdigit((unsigned char)*c)) {
        x = x * 10 + (*c - '0');
        if (x > MAX_ABS_SCORE)
            return 0;
        c++;
    }
    *p = c;
    *v = (int32_t)(neg ? -x : x);
    return 1;
}

hay_status hay_align_scoring_parse(const char *text, size_t len,
                                   const char *name, int32_t gap_open,
                                   int32_t gap_extend, hay_align_scoring **out,
                                   size_t *err_line)
{
    if (err_line)
        *err_line = 0;
    if (!text || !out)
        return HAY_ERR_INVALID;
    *out = NULL;
    hay_status st = check_gaps(gap_open, gap_extend);
    if (st != HAY_OK)
        return st;
    hay_align_scoring *s = scoring_new();
    if (!s)
        return HAY_ERR_NOMEM;
    unsigned char seen[HAY_ALIGN_MAX_ALPHA] = { 0 };
    int rows = 0;
    size_t lineno = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        const char *c = p;
        p = nl ? nl + 1 : end;
        while (c < le && (*c == ' ' || *c == '\t' || *c == '\r'))
            c++;
        if (c == le || *c == '#')
            continue;
        if (s->alpha == 0) {               /* the header: letters */
            while (c < le) {
                if (*c == ' ' || *c == '\t' || *c == '\r') {
                    c++;
                    continue;
                }
                unsigned char ch = (unsigned char)toupper((unsigned char)*c);
                if (c + 1 < le && !isspace((unsigned char)c[1]))
                    goto bad;              /* letters are one character */
                if (s->alpha == HAY_ALIGN_MAX_ALPHA || s->map[ch] >= 0 ||
                    isdigit(ch) || ch == '-')
                    goto bad;
                s->map[ch] = (int8_t)s->alpha;
                s->letters[s->alpha++] = (char)ch;
                c++;
            }
            continue;
        }
        unsigned char ch = (unsigned char)toupper((unsigned char)*c);
        int r = s->map[ch];
        if (r < 0 || seen[r] || rows == s->alpha)
            goto bad;
        seen[r] = 1;
        c++;
        for (int k = 0; k < s->alpha; k++) {
            while (c < le && (*c == ' ' || *c == '\t'))
                c++;
            int32_t v;
            if (!parse_int(&c, le, &v))
                goto bad;
            s->matrix[r * s->alpha + k] = v;
        }
        while (c < le && isspace((unsigned char)*c))
            c++;
        if (c != le)
            goto bad;
        rows++;
    }
    if (s->alpha == 0 || rows != s->alpha) {
        lineno = 0;
        goto bad;
    }
    for (int k = 0; k < 256; k++)             /* lower case reads as upper */
        if (islower(k) && s->map[toupper(k)] >= 0 && s->map[k] < 0)
            s->map[k] = s->map[toupper(k)];
    if (s->map['X'] >= 0) {                  /* selenocysteine, pyrrolysine */
        if (s->map['U'] < 0)
            s->map['U'] = s->map['u'] = s->map['X'];
        if (s->map['O'] < 0)
            s->map['O'] = s->map['o'] = s->map['X'];
    }
    s->open = gap_open;
    s->extend = gap_extend;
    snprintf(s->name, sizeof s->name, "%s", name ? name : "matrix");
    finish(s);
    *out = s;
    return HAY_OK;
bad:
    if (err_line)
        *err_line = lineno;
    free(s);
    return HAY_ERR_INVALID;
}

hay_status hay_align_scoring_builtin(const char *name, int32_t gap_open,
                                     int32_t gap_extend,
                                     hay_align_scoring **out)
{
    if (!name || !out)
        return HAY_ERR_INVALID;
    *out = NULL;
    for (const hay_align_builtin *b = hay_align_builtins; b->key; b++)
        if (!strcasecmp(b->key, name))
            return hay_align_scoring_parse(b->text, strlen(b->text), b->name,
                                           gap_open, gap_extend, out, NULL);
    return HAY_ERR_UNKNOWN_NAME;
}

hay_status hay_align_matrix_name(size_t i, const char **name)
{
    size_t n = 0;
    while (hay_align_builtins[n].key)
        n++;
    if (!name || i >= n)
        return HAY_ERR_INVALID;
    *name = hay_align_builtins[i].key;
    return HAY_OK;
}

hay_status hay_align_scoring_dna(int32_t match, int32_t mismatch,
                                 int32_t gap_open, int32_t gap_extend,
                                 hay_align_scoring **out)
{
    if (!out)
        return HAY_ERR_INVALID;
    *out = NULL;
    hay_status st = check_gaps(gap_open, gap_extend);
    if (st != HAY_OK)
        return st;
    if (match < 1 || mismatch >= match || match > MAX_ABS_SCORE ||
        mismatch < -MAX_ABS_SCORE)
        return HAY_ERR_INVALID;
    hay_align_scoring *s = scoring_new();
    if (!s)
        return HAY_ERR_NOMEM;
    static const char letters[] = "ACGTN";
    s->alpha = 5;
    s->dna = 1;
    memcpy(s->letters, letters, sizeof letters);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            s->matrix[a * 5 + b] = (a == b && a < 4) ? match : mismatch;
    static const char *const ambiguous = "RYSWKMBDHVN";
    for (int a = 0; a < 5; a++) {
        s->map[(unsigned char)letters[a]] = (int8_t)a;
        s->map[tolower(letters[a])] = (int8_t)a;
    }
    s->map['U'] = s->map['u'] = 3;
    for (const char *c = ambiguous; *c; c++) {
        s->map[(unsigned char)*c] = 4;
        s->map[tolower((unsigned char)*c)] = 4;
    }
    s->open = gap_open;
    s->extend = gap_extend;
    snprintf(s->name, sizeof s->name, "dna");
    finish(s);
    *out = s;
    return HAY_OK;
}

void hay_align_scoring_free(hay_align_scoring *s)
{
    free(s);
}

int hay_align_scoring_alpha(const hay_align_scoring *s)
{
    return s ? s->alpha : 0;
}

const char *hay_align_scoring_letters(const hay_align_scoring *s)
{
    return s ? s->letters : "";
}

const char *hay_align_scoring_name(const hay_align_scoring *s)
{
    return s ? s->name : "";
}

int32_t hay_align_scoring_score(const hay_align_scoring *s, uint8_t a,
                                uint8_t b)
{
    if (!s || a >= s->alpha || b >= s->alpha)
        return 0;
    return s->matrix[a * s->alpha + b];
}

void hay_align_scoring_gaps(const hay_align_scoring *s, int32_t *gap_open,
                            int32_t *gap_extend)
{
    if (gap_open)
        *gap_open = s ? s->open : 0;
    if (gap_extend)
        *gap_extend = s ? s->extend : 0;
}

int hay_align_scoring_is_dna(const hay_align_scoring *s)
{
    return s ? s->dna : 0;
}

hay_status hay_align_encode(const hay_align_scoring *s, const void *residues,
                            size_t len, uint8_t *codes, size_t *bad_pos)
{
    if (!s || (len && (!residues || !codes)))
        return HAY_ERR_INVALID;
    const unsigned char *r = residues;
    for (size_t i = 0; i < len; i++) {
        int c = s->map[r[i]];
        if (c < 0) {
            if (bad_pos)
                *bad_pos = i;
            return HAY_ERR_INVALID;
        }
        codes[i] = (uint8_t)c;
    }
    return HAY_OK;
}

hay_status hay_align_rescore(const hay_align_scoring *s, const uint8_t *q,
                             size_t m, const uint8_t *t, size_t n,
                             uint64_t q_start, uint64_t t_start,
                             const char *cigar, int32_t *score)
{
    if (!s || !q || !t || !cigar || !score || q_start > m || t_start > n)
        return HAY_ERR_INVALID;
    int64_t total = 0;
    uint64_t i = q_start, j = t_start;
    char prev = 0;
    const char *c = cigar;
    if (!*c)
        return HAY_ERR_INVALID;
    while (*c) {
        if (!isdigit((unsigned char)*c))
            return HAY_ERR_INVALID;
        uint64_t k = 0;
        while (isdigit((unsigned char)*c)) {
            if (k > (UINT64_MAX - 9) / 10)
                return HAY_ERR_INVALID;
            k = k * 10 + (uint64_t)(*c++ - '0');
        }
        char op = *c++;
        if (k == 0)
            return HAY_ERR_INVALID;
        switch (op) {
        case '=': case 'X': case 'M':
            if (k > m - i || k > n - j)
                return HAY_ERR_INVALID;
            for (uint64_t x = 0; x < k; x++, i++, j++) {
                if (q[i] >= s->alpha || t[j] >= s->alpha ||
                    (op == '=' && q[i] != t[j]) || (op == 'X' && q[i] == t[j]))
                    return HAY_ERR_INVALID;
                total += s->matrix[q[i] * s->alpha + t[j]];
            }
            break;
        case 'I': case 'D':
            if (op == 'I' ? k > m - i : k > n - j)
                return HAY_ERR_INVALID;
            for (uint64_t x = 0; x < k; x++)
                if ((op == 'I' ? q[i + x] : t[j + x]) >= s->alpha)
                    return HAY_ERR_INVALID;
            if (op == 'I')
                i += k;
            else
                j += k;
            /* Two runs of one kind in a row are one gap. */
            total -= (prev == op ? 0 : s->open - s->extend) +
                     (int64_t)k * s->extend;
            break;
        default:
            return HAY_ERR_INVALID;
        }
        prev = op;
    }
    if (total > INT32_MAX || total < INT32_MIN)
        return HAY_ERR_TOO_LARGE;
    *score = (int32_t)total;
    return HAY_OK;
}
