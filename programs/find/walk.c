/* walk.c - operands and the -r directory walk (see walk.h). */
#include "walk.h"

#include "globs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fail(find_walk *w, const char *path, const char *why)
{
    if (!w->no_messages)
        fprintf(stderr, "hay: %s: %s\n", path, why);
    w->error = true;
}

static void walk_path(find_walk *w, const char *path, bool top);

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

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry's path as it is printed: grep -r with no operand names files
 * relative to ".". */
static char *join(const find_walk *w, const char *dir, const char *entry)
{
    bool bare = w->implicit_dot && !strcmp(dir, ".");
    size_t dl = bare ? 0 : strlen(dir);
    bool slash = dl && dir[dl - 1] == '/';
    char *full = malloc(dl + strlen(entry) + 2);
    if (!full)
        return NULL;
    if (bare)
        strcpy(full, entry);
    else
        sprintf(full, slash ? "%s%s" : "%s/%s", dir, entry);
    return full;
}

static void walk_dir(find_walk *w, const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        fail(w, path, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        char *full = join(w, path, e->d_name);
        if (!full)
            break;
        names[n++] = full;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        walk_path(w, names[i], false);
        free(names[i]);
    }
    free(names);
}

static void walk_path(find_walk *w, const char *path, bool top)
{
    if (top && !strcmp(path, "-")) {
        w->visit(w->ctx, STDIN_FILENO, w->stdin_name ? w->stdin_name : "(standard input)",
                 false);
        return;
    }
    struct stat st;
    /* Inside a walk, symbolic links are not followed (as grep -r; -R
     * follows them). */
    if ((top || w->follow ? stat(path, &st) : lstat(path, &st)) < 0) {
        fail(w, path, strerror(errno));
        return;
    }
    /* "." that -r searches when no operand is given is never left out. */
    if (!(top && w->implicit_dot) &&
        find_globs_skip(w->globs, path, S_ISDIR(st.st_mode), top))
        return;
    if (S_ISDIR(st.st_mode)) {
        if (w->recursive && in_loop(w, &st)) {
            if (!w->no_messages)
                fprintf(stderr, "hay: %s: warning: recursive directory loop\n", path);
        } else if (w->recursive) {
            struct walk_dir_link link = { st.st_dev, st.st_ino, w->dirs };
            w->dirs = &link;
            walk_dir(w, path);
            w->dirs = link.up;
        } else {
            fail(w, path, "Is a directory");
        }
        return;
    }
    if (!top && !S_ISREG(st.st_mode))
        return;   /* devices, fifos and links met while walking */
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fail(w, path, strerror(errno));
        return;
    }
    w->visit(w->ctx, fd, path, !top);
    close(fd);
}

void find_walk_operand(find_walk *w, const char *path)
{
    walk_path(w, path, true);
}
