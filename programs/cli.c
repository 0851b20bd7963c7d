/* cli.c - small utilities of the `hay` program. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_read_fd(int fd, const char *name, uint8_t **data, size_t *len,
                char *err, size_t errcap)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        goto nomem;
    for (;;) {
        if (n == cap) {
            if (cap > SIZE_MAX / 2)
                goto nomem;
            uint8_t *b = realloc(buf, cap * 2);
            if (!b)
                goto nomem;
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errcap, "%s: %s", name, strerror(errno));
            free(buf);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *data = buf;
    *len = n;
    return 0;
nomem:
    free(buf);
    snprintf(err, errcap, "%s: out of memory reading input", name);
    return -1;
}

int cli_read_all(const char *path, uint8_t **data, size_t *len, char *err,
                 size_t errcap)
{
    if (!strcmp(path, "-"))
        return cli_read_fd(STDIN_FILENO, "(standard input)", data, len, err, errcap);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    int r = cli_read_fd(fd, path, data, len, err, errcap);
    close(fd);
    return r;
}

int cli_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    uint64_t mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        default: return -1;
        }
        if (end[1] && !((end[1] == 'i' || end[1] == 'B') && !end[2]) &&
            !(end[1] == 'i' && end[2] == 'B' && !end[3]))
            return -1;
    }
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

void cli_json_string_to(FILE *out, const char *text)
{
    putc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            putc(*c, out);
    }
    putc('"', out);
}

void cli_json_string(const char *text)
{
    cli_json_string_to(stdout, text);
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Asked once per process: glibc reads /sys/devices/system/cpu/online for
 * it, and hay find asks per file (its -c path) on a walk of many files. */
static unsigned cpu_count;
static pthread_once_t cpu_count_once = PTHREAD_ONCE_INIT;

static void cpu_count_init(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_count = n > 0 ? (unsigned)n : 1u;
}

unsigned cli_cpu_count(void)
{
    pthread_once(&cpu_count_once, cpu_count_init);
    return cpu_count;
}
