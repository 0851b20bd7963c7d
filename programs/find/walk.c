/* walk.c - operands and the -r directory walk (see walk.h). */
#include "walk.h"

#include "ignore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct entry {
    char *name;
    unsigned char type;   /* DT_* */
} entry;

static void fail(find_walk *w, const char *path, const char *why)
{
    if (!w->no_messages)
        fprintf(stderr, "hay: %s: %s\n", path, why);
    w->error = true;
}

static bool in_loop(const find_walk *w, const struct stat *st)
{
    for (const find_walk_link *d = w->dirs; d; d = d->up)
        if (d->dev == st->st_dev && d->ino == st->st_ino)
            return true;
    return false;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

/* The entry's path as it is printed: grep -r with no operand names files
 * relative to ".".  *base gets where `name` starts in it. */
static char *join(const find_walk *w, const char *dir, const char *name, size_t *base)
{
    bool bare = w->implicit_dot && !strcmp(dir, ".");
    size_t dl = bare ? 0 : strlen(dir), nl = strlen(name);
    bool slash = dl && dir[dl - 1] == '/';
    char *full = malloc(dl + nl + 2);
    if (!full)
        return NULL;
    memcpy(full, dir, dl);
    if (dl && !slash)
        full[dl++] = '/';
    memcpy(full + dl, name, nl + 1);
    if (base)
        *base = dl;
    return full;
}

/* The directory's entries but "." and "..", in name order if asked for.
 * Returns the count, or -1 (out of memory). */
static long read_entries(DIR *d, bool sorted, entry **out)
{
    entry *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            entry *nv = realloc(v, cap * sizeof *nv);
            if (!nv)
                goto oom;
            v = nv;
        }
        if (!(v[n].name = strdup(e->d_name)))
            goto oom;
        v[n++].type = e->d_type;
    }
    if (sorted && n > 1)
        qsort(v, n, sizeof *v, cmp_entry);
    *out = v;
    return (long)n;
oom:
    while (n)
        free(v[--n].name);
    free(v);
    return -1;
}

void find_walk_link_to(const find_walk *w, int dfd, find_walk_link *link)
{
    struct stat st;
    *link = (find_walk_link){ 0, 0, w->dirs };
    if (fstat(dfd, &st) == 0) {
        link->dev = st.st_dev;
        link->ino = st.st_ino;
    }
}

void find_walk_entries_free(find_walk_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

/* Whether the entry `name` of the directory `fd` is kept, and what it is
 * (*is_dir).  Messages for what cannot be looked at. */
static bool classify(find_walk *w, int fd, const char *path, const entry *e,
                     find_ignore *mine, char **full, size_t *base, bool *is_dir)
{
    const char *name = e->name;
    *full = NULL;
    if (w->skip_hidden && name[0] == '.')
        return false;
    unsigned char type = e->type;
    if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            return false;   /* gone since it was listed */
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
    }
    struct stat target;
    bool dir_known = false;   /* a directory, its stat in target */
    if (type == DT_LNK && w->follow) {   /* -R: where the link leads */
        if (fstatat(fd, name, &target, 0) < 0) {
            char *f = join(w, path, name, NULL);
            fail(w, f ? f : path, strerror(errno));
            free(f);
            return false;
        }
        type = S_ISDIR(target.st_mode)   ? DT_DIR
               : S_ISREG(target.st_mode) ? DT_REG
                                         : DT_UNKNOWN;
        dir_known = type == DT_DIR;
    }
    if (type != DT_DIR && type != DT_REG)
        return false;   /* links, devices, FIFOs, sockets (as grep -r) */
    *is_dir = type == DT_DIR;
    if (w->keep && !w->keep(w->keep_ctx, name, *is_dir, false))
        return false;
    if (!(*full = join(w, path, name, base))) {
        fail(w, path, "out of memory");
        return false;
    }
    if (mine && find_ignore_skips(mine, *full, *is_dir))
        goto skip;
    /* -R: a directory reached through a link may lead back to one on the
     * way, by a link or not. */
    if (w->follow && *is_dir && !dir_known &&
        fstatat(fd, name, &target, AT_SYMLINK_NOFOLLOW) == 0)
        dir_known = true;
    if (dir_known && in_loop(w, &target)) {
        if (!w->no_messages)
            fprintf(stderr, "hay: %s: warning: recursive directory loop\n", *full);
        goto skip;
    }
    return true;
skip:
    free(*full);
    *full = NULL;
    return false;
}

size_t find_walk_list(find_walk *w, int dfd, const char *path, find_ignore *rules,
                      find_ignore **mine, find_walk_entry **out)
{
    *out = NULL;
    *mine = rules;
    int fd = dup(dfd);   /* closedir closes its own */
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        fail(w, path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 0;
    }
    entry *v = NULL;
    long n = read_entries(d, w->sorted, &v);
    closedir(d);
    if (n < 0) {
        fail(w, path, "out of memory");
        return 0;
    }
    if (w->ignore_files) {
        size_t plen = w->implicit_dot && !strcmp(path, ".") ? 0 : strlen(path);
        if (find_ignore_enter(rules, dfd, plen && path[plen - 1] != '/' ? plen + 1 : plen,
                              mine) < 0) {
            fail(w, path, "out of memory");
            n = 0;
        }
    }
    size_t kept = 0;
    find_walk_entry *r = n ? malloc((size_t)n * sizeof *r) : NULL;
    if (n && !r)
        fail(w, path, "out of memory");
    for (long i = 0; i < n; i++) {
        char *full;
        size_t base = 0;
        bool is_dir = false;
        if (r && classify(w, dfd, path, &v[i], *mine, &full, &base, &is_dir))
            r[kept++] = (find_walk_entry){ full, base, is_dir };
        free(v[i].name);
    }
    free(v);
    *out = r;
    return kept;
}

int find_walk_open(find_walk *w, int dfd, const find_walk_entry *e)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (w->follow ? 0 : O_NOFOLLOW) |
                (e->is_dir ? O_DIRECTORY : 0);
    int fd = openat(dfd, e->name + e->base, flags);
    if (fd < 0 && errno != ELOOP)   /* ELOOP: replaced by a link since listed */
        fail(w, e->name, strerror(errno));
    return fd;
}

static bool same_dir(int fd, const struct stat *want)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == want->st_dev &&
           st.st_ino == want->st_ino;
}

/* Walks the open directory `fd` (printed as `path`), then closes it.  With
 * `up`, the parent's descriptor is opened through ".." before that (the
 * parent closed its own to keep descriptors bounded). */
static void walk_dir(find_walk *w, int fd, const char *path, unsigned depth,
                     find_ignore *rules, int *up)
{
    find_walk_link link;
    find_walk_link_to(w, fd, &link);
    w->dirs = &link;
    find_ignore *mine;
    find_walk_entry *v;
    size_t n = find_walk_list(w, fd, path, rules, &mine, &v);
    for (size_t i = 0; i < n && !w->stopped && fd >= 0; i++) {
        int cfd = find_walk_open(w, fd, &v[i]);
        if (cfd < 0)
            continue;
        if (!v[i].is_dir) {
            char *name = v[i].name;
            v[i].name = NULL;
            if (!w->visit(w->ctx, cfd, name, true))
                w->stopped = true;
        } else if (depth + 1 < FIND_WALK_FDS) {
            walk_dir(w, cfd, v[i].name, depth + 1, mine, NULL);
        } else {
            struct stat me;
            int again = -1;
            fstat(fd, &me);
            close(fd);
            walk_dir(w, cfd, v[i].name, depth + 1, mine, &again);
            if (!same_dir(again, &me)) {
                fail(w, path, "moved while it was walked");
                if (again >= 0)
                    close(again);
                again = -1;
            }
            fd = again;
        }
    }
    find_ignore_leave(mine, rules);
    w->dirs = link.up;
    find_walk_entries_free(v, n);
    if (up)
        *up = fd >= 0 ? openat(fd, "..", O_RDONLY | O_CLOEXEC | O_DIRECTORY) : -1;
    if (fd >= 0)
        close(fd);
}

void find_walk_tree(find_walk *w, int dfd, const char *path, find_ignore *rules)
{
    walk_dir(w, dfd, path, 0, rules, NULL);
}

void find_walk_operand(find_walk *w, const char *path)
{
    if (w->stopped)
        return;
    if (!strcmp(path, "-")) {
        const char *label = w->stdin_name ? w->stdin_name : "(standard input)";
        int fd = dup(STDIN_FILENO);
        char *name = strdup(label);
        if (fd < 0 || !name) {
            fail(w, label, fd < 0 ? strerror(errno) : "out of memory");
            if (fd >= 0)
                close(fd);
            free(name);
            return;
        }
        if (!w->visit(w->ctx, fd, name, false))
            w->stopped = true;
        return;
    }
    struct stat st;
    if (stat(path, &st) < 0) {
        fail(w, path, strerror(errno));
        return;
    }
    /* "." that -r searches when no operand is given is never left out. */
    if (w->keep && !(w->implicit_dot && !strcmp(path, ".")) &&
        !w->keep(w->keep_ctx, path, S_ISDIR(st.st_mode), true))
        return;
    if (S_ISDIR(st.st_mode) && !w->recursive) {
        fail(w, path, "Is a directory");
        return;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
                        (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
    if (fd < 0) {
        fail(w, path, strerror(errno));
        return;
    }
    if (S_ISDIR(st.st_mode) && !w->visit_dir) {
        walk_dir(w, fd, path, 0, NULL, NULL);
        return;
    }
    char *name = strdup(path);
    if (!name) {
        close(fd);
        fail(w, path, "out of memory");
        return;
    }
    if (!(S_ISDIR(st.st_mode) ? w->visit_dir(w->ctx, fd, name) : w->visit(w->ctx, fd, name, false)))
        w->stopped = true;
}
