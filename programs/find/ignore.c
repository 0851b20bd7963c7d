/* ignore.c - .gitignore and .ignore rules for --ignore (see ignore.h). */
#include "ignore.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RULES_MAX_BYTES ((size_t)1 << 20)   /* a bigger ignore file is cut */

typedef struct rule {
    const char *pat;
    bool negate, dir_only, anchored, deep;   /* deep: holds "**" */
} rule;

struct find_ignore {
    const find_ignore *parent;
    size_t prefix_len;     /* printed paths of this directory's entries
                              start after this many bytes */
    char *text;            /* the files' bytes, cut into patterns */
    rule *rules;
    size_t n;
};

/* Cuts text into rules (the patterns point into text). */
static int parse(find_ignore *ig)
{
    size_t cap = 0;
    for (char *line = ig->text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        while (len && line[len - 1] == ' ')
            line[--len] = '\0';
        if (!len || line[0] == '#')
            continue;
        rule r = { line, false, false, false, false };
        if (r.pat[0] == '!') {
            r.negate = true;
            r.pat++;
        } else if (r.pat[0] == '\\' && (r.pat[1] == '#' || r.pat[1] == '!')) {
            r.pat++;
        }
        len = strlen(r.pat);
        if (len && r.pat[len - 1] == '/') {
            r.dir_only = true;
            ((char *)r.pat)[--len] = '\0';
        }
        if (!len)
            continue;
        r.anchored = strchr(r.pat, '/') != NULL;
        if (r.pat[0] == '/')
            r.pat++;
        r.deep = strstr(r.pat, "**") != NULL;
        if (ig->n == cap) {
            cap = cap ? cap * 2 : 16;
            rule *nr = realloc(ig->rules, cap * sizeof *nr);
            if (!nr)
                return -1;
            ig->rules = nr;
        }
        ig->rules[ig->n++] = r;
    }
    return 0;
}

/* Appends the file's bytes (with a newline) to *text. */
static int slurp(int dfd, const char *name, char **text, size_t *len)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;   /* none, or unreadable: no rules */
    int rc = 0;
    char buf[8192];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0 && *len < RULES_MAX_BYTES) {
        char *t = realloc(*text, *len + (size_t)got + 2);
        if (!t) {
            rc = -1;
            break;
        }
        memcpy(t + *len, buf, (size_t)got);
        *len += (size_t)got;
        t[*len] = '\0';
        *text = t;
    }
    close(fd);
    if (rc == 0 && *text) {
        (*text)[(*len)++] = '\n';
        (*text)[*len] = '\0';
    }
    return rc;
}

int find_ignore_enter(find_ignore *parent, int dfd, size_t prefix_len, find_ignore **out)
{
    char *text = NULL;
    size_t len = 0;
    *out = parent;
    if (slurp(dfd, ".gitignore", &text, &len) < 0 || slurp(dfd, ".ignore", &text, &len) < 0) {
        free(text);
        return -1;
    }
    if (!text)
        return 0;
    find_ignore *ig = calloc(1, sizeof *ig);
    if (!ig) {
        free(text);
        return -1;
    }
    ig->parent = parent;
    ig->prefix_len = prefix_len;
    ig->text = text;
    if (parse(ig) < 0) {
        find_ignore_leave(ig, NULL);
        return -1;
    }
    *out = ig;
    return 0;
}

void find_ignore_leave(find_ignore *dir, find_ignore *parent)
{
    if (!dir || dir == parent)
        return;
    free(dir->rules);
    free(dir->text);
    free(dir);
}

bool find_ignore_skips(const find_ignore *rules, const char *path, bool is_dir)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const find_ignore *ig = rules; ig; ig = ig->parent) {
        const char *rel = strlen(path) >= ig->prefix_len ? path + ig->prefix_len : path;
        for (size_t i = ig->n; i-- > 0;) {
            const rule *r = &ig->rules[i];
            if (r->dir_only && !is_dir)
                continue;
            bool hit = r->anchored
                           ? fnmatch(r->pat, rel, r->deep ? 0 : FNM_PATHNAME) == 0
                           : fnmatch(r->pat, base, 0) == 0;
            if (hit)
                return !r->negate;
        }
    }
    return false;
}
