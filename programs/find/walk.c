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

/* A directory's entry as listed: its name at `off` in the listing's
 * buffer of names. */
typedef struct entry {
    size_t off;
    unsigned char type;   /* DT_* */
} entry;

typedef struct listing {
    entry *v;
    size_t n, cap;
    char *names;
    size_t len, room;
} listing;

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

static int cmp_entry(const void *a, const void *b, void *names)
{
    return strcmp((const char *)names + ((const entry *)a)->off,
                  (const char *)names + ((const entry *)b)->off);
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

static bool add_entry(listing *l, const char *name, unsigned char type)
{
    size_t nl = strlen(name) + 1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        entry *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return false;
        l->v = v;
        l->cap = cap;
    }
    if (l->room - l->len < nl) {
        size_t room = l->room ? l->room * 2 : 4096;
        while (room - l->len < nl)
            room *= 2;
        char *names = realloc(l->names, room);
        if (!names)
            return false;
        l->names = names;
        l->room = room;
    }
    memcpy(l->names + l->len, name, nl);
    l->v[l->n++] = (entry){ l->len, type };
    l->len += nl;
    return true;
}

/* The entries of the directory open as `fd` (never read from before) but
 * "." and "..", in name order if asked for: getdents64 straight into one
 * buffer of names (no DIR, so no descriptor to copy or flags to look at).
 * Returns 0, or -1 with errno set. */
static int read_entries(int fd, bool sorted, listing *l)
{
    char buf[32 << 10] __attribute__((aligned(8)));
    memset(l, 0, sizeof *l);
    for (;;) {
        ssize_t got = getdents64(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            goto fail;
        if (got == 0)
            break;
        for (ssize_t at = 0; at < got;) {
            const struct dirent64 *e = (const struct dirent64 *)(buf + at);
            at += e->d_reclen;
            const char *nm = e->d_name;
            if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
                continue;
            if (!add_entry(l, nm, e->d_type)) {
                errno = ENOMEM;
                goto fail;
            }
        }
    }
    if (sorted && l->n > 1)
        qsort_r(l->v, l->n, sizeof *l->v, cmp_entry, l->names);
    return 0;
fail:
    free(l->v);
    free(l->names);
    memset(l, 0, sizeof *l);
    return -1;
}

void find_walk_link_to(const find_walk *w, int dfd, find_walk_link *link)
{
    struct stat st;
    *link = (find_walk_link){ 0, 0, w->dirs };
    if (w->follow && fstat(dfd, &st) == 0) {   /* only -R's loop test needs it */
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
static bool classify(find_walk *w, int fd, const char *path, const char *name,
                     unsigned char type, find_ignore *mine, char **full, size_t *base,
                     bool *is_dir)
{
    *full = NULL;
    if (w->skip_hidden && name[0] == '.')
        return false;
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
    listing l;
    if (read_entries(dfd, w->sorted, &l) < 0) {
        fail(w, path, errno == ENOMEM ? "out of memory" : strerror(errno));
        return 0;
    }
    size_t n = l.n;
    if (w->ignore_files) {
        size_t plen = w->implicit_dot && !strcmp(path, ".") ? 0 : strlen(path);
        if (find_ignore_enter(rules, dfd, plen && path[plen - 1] != '/' ? plen + 1 : plen,
                              mine) < 0) {
            fail(w, path, "out of memory");
            n = 0;
        }
    }
    size_t kept = 0;
    find_walk_entry *r = n ? malloc(n * sizeof *r) : NULL;
    if (n && !r)
        fail(w, path, "out of memory");
    for (size_t i = 0; r && i < n; i++) {
        char *full;
        size_t base = 0;
        bool is_dir = false;
        if (classify(w, dfd, path, l.names + l.v[i].off, l.v[i].type, *mine, &full, &base,
                     &is_dir))
            r[kept++] = (find_walk_entry){ full, base, is_dir };
    }
    free(l.v);
    free(l.names);
    *out = r;
    return kept;
}

int find_walk_open(find_walk *w, int dfd, const find_walk_entry *e)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (w->follow ? 0 : O_NOFOLLOW) |
                (e->is_dir ? O_DIRECTORY : 0);
    /* Reading a file need not write its inode back (atime): allowed on
     * one's own files only, so the first refusal turns it off. */
    int fd = openat(dfd, e->name + e->base, flags | (w->atime_kept ? 0 : O_NOATIME));
    if (fd < 0 && errno == EPERM && !w->atime_kept) {
        w->atime_kept = true;
        fd = openat(dfd, e->name + e->base, flags);
    }
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
        } else if (depth + 1 < (w->fd_levels ? w->fd_levels : FIND_WALK_FDS)) {
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
