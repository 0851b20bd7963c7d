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

/* A directory being walked, linked to the one holding it: -R follows
 * links, and one back to a directory on the way makes a loop, which grep
 * skips with a warning (not an error). */
struct walk_dir_link {
    dev_t dev;
    ino_t ino;
    const struct walk_dir_link *up;
};

static bool in_loop(const find_walk *w, const struct stat *st)
{
    for (const struct walk_dir_link *d = w->dirs; d; d = d->up)
        if (d->dev == st->st_dev && d->ino == st->st_ino)
            return true;
    return false;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

/* The entry's path as it is printed: grep -r with no operand names files
 * relative to ".". */
static char *join(const find_walk *w, const char *dir, const char *name)
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

static bool same_dir(int fd, const struct stat *want)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == want->st_dev &&
           st.st_ino == want->st_ino;
}

/* Walks the open directory `dfd` (printed as `path`), then closes it.  With
 * `up`, the parent's descriptor is opened through ".." before that (the
 * parent closed its own to keep descriptors bounded). */
static void walk_dir(find_walk *w, int dfd, const char *path, unsigned depth,
                     find_ignore *rules, int *up)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        fail(w, path, strerror(errno));
        close(dfd);
        if (up)
            *up = -1;
        return;
    }
    struct stat me_st;
    struct walk_dir_link link = { 0, 0, w->dirs };
    if (fstat(dfd, &me_st) == 0) {
        link.dev = me_st.st_dev;
        link.ino = me_st.st_ino;
    }
    w->dirs = &link;
    entry *v = NULL;
    long n = read_entries(d, w->sorted, &v);
    if (n < 0) {
        fail(w, path, "out of memory");
        n = 0;
    }
    int fd = dirfd(d);
    find_ignore *mine = rules;
    if (w->ignore_files) {
        size_t plen = w->implicit_dot && !strcmp(path, ".") ? 0 : strlen(path);
        if (find_ignore_enter(rules, fd, plen && path[plen - 1] != '/' ? plen + 1 : plen,
                              &mine) < 0) {
            fail(w, path, "out of memory");
            n = 0;
        }
    }
    for (long i = 0; i < n && !w->stopped && fd >= 0; i++) {
        const char *name = v[i].name;
        if (w->skip_hidden && name[0] == '.')
            continue;
        unsigned char type = v[i].type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                continue;   /* gone since it was listed */
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
        }
        struct stat target;
        bool dir_known = false;   /* a directory, its stat in target */
        if (type == DT_LNK && w->follow) {   /* -R: where the link leads */
            if (fstatat(fd, name, &target, 0) < 0) {
                char *full = join(w, path, name);
                fail(w, full ? full : path, strerror(errno));
                free(full);
                continue;
            }
            type = S_ISDIR(target.st_mode)   ? DT_DIR
                   : S_ISREG(target.st_mode) ? DT_REG
                                             : DT_UNKNOWN;
            dir_known = type == DT_DIR;
        }
        if (type != DT_DIR && type != DT_REG)
            continue;   /* links, devices, FIFOs, sockets (as grep -r) */
        if (w->keep && !w->keep(w->keep_ctx, name, type == DT_DIR, false))
            continue;
        char *full = join(w, path, name);
        if (!full) {
            fail(w, path, "out of memory");
            break;
        }
        if (mine && find_ignore_skips(mine, full, type == DT_DIR)) {
            free(full);
            continue;
        }
        /* -R: a directory reached through a link may lead back to one on
         * the way, by a link or not. */
        if (w->follow && type == DT_DIR && !dir_known &&
            fstatat(fd, name, &target, AT_SYMLINK_NOFOLLOW) == 0)
            dir_known = true;
        if (dir_known && in_loop(w, &target)) {
            if (!w->no_messages)
                fprintf(stderr, "hay: %s: warning: recursive directory loop\n", full);
            free(full);
            continue;
        }
        int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (w->follow ? 0 : O_NOFOLLOW) |
                    (type == DT_DIR ? O_DIRECTORY : 0);
        int cfd = openat(fd, name, flags);
        if (cfd < 0) {
            if (errno != ELOOP)   /* replaced by a link since listed */
                fail(w, full, strerror(errno));
            free(full);
            continue;
        }
        if (type == DT_REG) {
            if (!w->visit(w->ctx, cfd, full, true))
                w->stopped = true;
            continue;
        }
        if (depth + 1 < FIND_WALK_FDS) {
            walk_dir(w, cfd, full, depth + 1, mine, NULL);
        } else {
            struct stat me;
            int again = -1;
            fstat(fd, &me);
            closedir(d);
            d = NULL;
            walk_dir(w, cfd, full, depth + 1, mine, &again);
            if (!same_dir(again, &me)) {
                fail(w, path, "moved while it was walked");
                if (again >= 0)
                    close(again);
                again = -1;
            }
            fd = again;
        }
        free(full);
    }
    find_ignore_leave(mine, rules);
    w->dirs = link.up;
    for (long i = 0; i < n; i++)
        free(v[i].name);
    free(v);
    if (up)
        *up = fd >= 0 ? openat(fd, "..", O_RDONLY | O_CLOEXEC | O_DIRECTORY) : -1;
    if (d)
        closedir(d);
    else if (fd >= 0)
        close(fd);
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
    if (S_ISDIR(st.st_mode)) {
        walk_dir(w, fd, path, 0, NULL, NULL);
        return;
    }
    char *name = strdup(path);
    if (!name) {
        close(fd);
        fail(w, path, "out of memory");
        return;
    }
    if (!w->visit(w->ctx, fd, name, false))
        w->stopped = true;
}
