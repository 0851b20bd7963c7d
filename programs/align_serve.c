/*
 * align_serve.c - `hay db serve DB --socket PATH`: a database server for
 * `hay align --server PATH` (align_client.c).  It opens DB, starts the
 * device and uploads the database once (a first search of one residue:
 * the library keeps a database's device copy for the searches after it,
 * hay_align_db_search), then serves one search at a time on a Unix-domain
 * socket (serve_proto.h).  A request runs align_db_run with the server's
 * database, scoring and device, its output and messages written to the
 * client's standard output and error (descriptors the client sends), so
 * that the client prints what `hay align` would print in one process.
 * The server's own log goes to its standard error.  SIGINT and SIGTERM end
 * it after the search in progress, removing the socket file.
 *
 * The server waits for clients most of its life, and its searches' OpenMP
 * threads should not spin meanwhile: with OMP_WAIT_POLICY unset, libgomp
 * lets each waiting thread spin (GOMP_SPINCOUNT 300,000 rounds) before it
 * sleeps, after every search, taking the cores of other processes.  libgomp
 * reads its environment when it is loaded, before main, so the server
 * starts itself again once with OMP_WAIT_POLICY=passive (exec_passive); a
 * policy the user set is kept.
 */
#include "align.h"
#include "cli.h"
#include "serve_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* How long the server waits on a client's request, each read: a client
 * that connects and sends nothing cannot hold the queue longer. */
#define CLIENT_WAIT_MS 10000

typedef struct server {
    const char *path, *socket;
    hay_align_db *db;
    hay_align_scoring *s;
    seq_file tf;                /* the served FASTA (have_tf) */
    int have_tf, quiet;
    uint64_t dev, ino;          /* DB's file */
    hay_backend backend;        /* where the searches run */
    int threads;
    const char *params;
    hay_align_db_warm *warm;
    unsigned char *blob;        /* the scoring, packed */
    size_t blen;
    int out, err;               /* the server's own standard output, error */
    FILE *log;
    unsigned long served;
} server;

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void usage_serve(FILE *f)
{
    fputs(
"Usage: hay db serve [OPTION]... DB --socket PATH\n"
"Keeps the database DB (a file of 'hay db build', or FASTA) and the device\n"
"ready and serves 'hay align --server PATH' commands one search at a time\n"
"on the Unix-domain socket PATH (created with mode 0600: only this user).\n"
"Each client gets exactly the output 'hay align' would print in one process\n"
"(a database search: --top 50 unless given).  SIGINT or SIGTERM stop the\n"
"server after the search in progress and remove PATH.\n"
"\n"
"      --socket PATH         where to listen (required); a socket file left by\n"
"                            a server that is gone is replaced, one where a\n"
"                            server answers is an error\n"
"      --backend NAME        auto (default: the GPU where there is one and\n"
"                            the database search is built for it), cpu, cuda\n"
"  -j, --threads N           threads of each search (default: all cores); a\n"
"                            client's -j takes its place for its search\n"
"      --params KEY=VAL,...  the backend's keys, for the searches of clients\n"
"                            that give none\n"
"      --matrix NAME|FILE, --gap-open N, --gap-extend N, --match N,\n"
"      --mismatch N, --dna, --protein\n"
"                            the scoring, as 'hay align' takes it: a client's\n"
"                            must be the same (else its command fails)\n"
"      --strict-input        a FASTA DB's empty record is an error\n"
"      --quiet               no log line per request on standard error\n"
"  -h, --help                this help\n"
"\n"
"Unless OMP_WAIT_POLICY is set, the server starts itself again with\n"
"OMP_WAIT_POLICY=passive, so that its search threads sleep between searches\n"
"instead of spinning on cores that other processes need.\n"
"\n"
"Exit status: 0 stopped by a signal, 2 bad input or usage.\n", f);
}

/* Unless OMP_WAIT_POLICY is set: the same command again (this process's
 * executable and arguments, as the kernel keeps them), with
 * OMP_WAIT_POLICY=passive.  Returns only when that cannot be done: the
 * server then runs with libgomp's default, and says so unless quiet. */
static void exec_passive(int quiet)
{
    if (getenv("OMP_WAIT_POLICY"))
        return;
    const char *why = "cannot read /proc/self/cmdline";
    char *buf = NULL, **args = NULL;
    size_t len = 0, cap = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        goto fail;
    for (;;) {
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap + 65536);
            if (!nb)
                goto fail;
            buf = nb;
            cap += 65536;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0)
            goto fail;
        if (got == 0)
            break;
        len += (size_t)got;
    }
    if (len == 0 || buf[len - 1] != '\0')
        goto fail;
    size_t n = 0;   /* the arguments, each NUL-terminated */
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\0';
    args = malloc((n + 1) * sizeof *args);
    if (!args || setenv("OMP_WAIT_POLICY", "passive", 1) != 0) {
        why = "out of memory";
        goto fail;
    }
    for (size_t i = 0, k = 0; k < n; i += strlen(buf + i) + 1)
        args[k++] = buf + i;
    args[n] = NULL;
    execv("/proc/self/exe", args);
    why = strerror(errno);
    unsetenv("OMP_WAIT_POLICY");
fail:
    if (!quiet)
        fprintf(stderr, "hay db serve: warning: cannot restart with "
                "OMP_WAIT_POLICY=passive (%s): the search threads may spin "
                "between searches\n", why);
    if (fd >= 0)
        close(fd);
    free(args);
    free(buf);
}

/* DB into sv (database, scoring, the file's identity).  -1 after a
 * message. */
static int open_served(server *sv, aconfig *cf)
{
    char err[1024];
    struct stat st;
    if (stat(sv->path, &st) != 0) {
        fprintf(stderr, "hay db serve: cannot open '%s': %s\n", sv->path,
                strerror(errno));
        return -1;
    }
    sv->dev = (uint64_t)st.st_dev;
    sv->ino = (uint64_t)st.st_ino;
    if (file_is_db(sv->path)) {
        if (hay_align_db_open(sv->path, &sv->db, err, sizeof err) != HAY_OK) {
            fprintf(stderr, "hay db serve: %s: %s\n", sv->path, err);
            return -1;
        }
        hay_align_db_info info;
        hay_align_db_info_get(sv->db, &info);
        if (check_db_kind(cf, "hay db serve", sv->path, info.dna))
            return -1;
        sv->s = make_scoring(cf, info.dna);
        if (!sv->s)
            return -1;
        if (hay_align_db_check_scoring(sv->db, sv->s) != HAY_OK) {
            fprintf(stderr, "hay db serve: %s: the database is encoded in the "
                    "letters %s; %s scoring has %s\n", sv->path, info.letters,
                    hay_align_scoring_name(sv->s),
                    hay_align_scoring_letters(sv->s));
            return -1;
        }
        return 0;
    }
    if (seq_file_read(sv->path, cf->strict_input, "hay db serve", &sv->tf,
                      err, sizeof err)) {
        fprintf(stderr, "hay db serve: %s\n", err);
        return -1;
    }
    sv->have_tf = 1;
    int dna = cf->mode == 1 || (cf->mode == 0 && looks_dna(&sv->tf, &sv->tf));
    sv->s = make_scoring(cf, dna);
    if (!sv->s || check_kind(cf, sv->s, &sv->tf, sv->path, "target"))
        return -1;
    sv->db = db_from_seq_file(sv->s, &sv->tf, sv->path, "hay db serve");
    return sv->db ? 0 : -1;
}

/* The device started and the database uploaded: a search of one residue
 * (the library keeps the device copy for the next searches of the same
 * scoring and params).  backend auto takes the GPU when this works. */
static int warm_up(server *sv)
{
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.align.threads = sv->threads;
    o.align.device_params = sv->params;
    o.align.score_only = 1;
    o.top_k = 1;
    int want_gpu = sv->backend == HAY_BACKEND_CUDA ||
        (sv->backend == HAY_BACKEND_AUTO &&
         hay_align_backend_check(HAY_BACKEND_CUDA) == HAY_OK);
    hay_status st = HAY_OK;
    if (want_gpu) {
        o.align.backend = HAY_BACKEND_CUDA;
        st = hay_align_db_warm_up(&o, 0, &sv->warm);
        o.warm = sv->warm;
    }
    const uint8_t one = 0;
    const hay_align_seq q = { &one, 1 };
    hay_align_db_results *r = NULL;
    if (want_gpu && st == HAY_OK) {
        st = hay_align_db_search(sv->db, sv->s, &q, 1, &o, &r);
        hay_align_db_results_free(r);
        r = NULL;
        if (st == HAY_OK) {
            sv->backend = HAY_BACKEND_CUDA;
            return 0;
        }
    }
    if (sv->backend == HAY_BACKEND_CUDA) {
        fprintf(stderr, "hay db serve: backend cuda: %s\n",
                st == HAY_ERR_NO_BACKEND ? "the database search on this "
                "backend is not built into this hay" : hay_strerror(st));
        return -1;
    }
    hay_align_db_warm_free(sv->warm);
    sv->warm = NULL;
    sv->backend = HAY_BACKEND_CPU;
    o.align.backend = HAY_BACKEND_CPU;
    o.warm = NULL;
    st = hay_align_db_search(sv->db, sv->s, &q, 1, &o, &r);
    hay_align_db_results_free(r);
    if (st != HAY_OK) {
        fprintf(stderr, "hay db serve: %s\n", hay_strerror(st));
        return -1;
    }
    return 0;
}

/* The listening socket at sv->socket, mode 0600.  -1 after a message. */
static int listen_at(server *sv)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t n = strlen(sv->socket);
    if (n == 0 || n >= sizeof a.sun_path) {
        fprintf(stderr, "hay db serve: --socket: a path of 1 to %zu bytes\n",
                sizeof a.sun_path - 1);
        return -1;
    }
    memcpy(a.sun_path, sv->socket, n);
    struct stat st;
    if (lstat(sv->socket, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            fprintf(stderr, "hay db serve: %s exists and is not a socket; "
                    "not replaced\n", sv->socket);
            return -1;
        }
        int c = sp_connect(sv->socket);
        if (c >= 0) {
            close(c);
            fprintf(stderr, "hay db serve: a server already answers at %s\n",
                    sv->socket);
            return -1;
        }
        if (unlink(sv->socket) != 0) {
            fprintf(stderr, "hay db serve: %s: a stale socket that cannot be "
                    "removed: %s\n", sv->socket, strerror(errno));
            return -1;
        }
        fprintf(stderr, "hay db serve: %s: removed a stale socket file (no "
                "server answered there)\n", sv->socket);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "hay db serve: socket: %s\n", strerror(errno));
        return -1;
    }
    mode_t old = umask(0077);
    int b = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (b != 0 || chmod(sv->socket, 0600) != 0 || listen(fd, 64) != 0) {
        fprintf(stderr, "hay db serve: %s: %s\n", sv->socket, strerror(errno));
        if (b == 0)
            unlink(sv->socket);
        close(fd);
        return -1;
    }
    return fd;
}

/* One request's command, its output on the client's descriptors (already
 * in place of standard output and error).  The exit status. */
static int run_request(server *sv, const sp_request *rq, char *words,
                       const unsigned char *blob, char *queries, double got)
{
    char *argv[SP_MAX_ARGS + 2];
    argv[0] = (char *)"hay align";
    sp_words(words, rq->args_bytes, rq->nargs, argv + 1);   /* checked by the caller */
    int argc = (int)rq->nargs + 1;
    argv[argc] = NULL;
    aconfig cf;
    int rc = align_parse_args(argc, argv, &cf, 1);
    if (rc >= 0)
        goto out;
    rc = 2;
    if (rq->has_db && (rq->db_dev != sv->dev || rq->db_ino != sv->ino)) {
        fprintf(stderr, "hay align: %s: not the database the server at %s "
                "serves (%s; compared by device and inode)\n", cf.tpath,
                sv->socket, sv->path);
        goto out;
    }
    if (!cf.tpath)
        cf.tpath = sv->path;
    if (cf.opt.backend != HAY_BACKEND_AUTO && cf.opt.backend != sv->backend) {
        fprintf(stderr, "hay align: --backend %s: the server at %s searches "
                "on %s\n", hay_backend_name(cf.opt.backend), sv->socket,
                hay_backend_name(sv->backend));
        goto out;
    }
    if (rq->scoring_bytes != sv->blen ||
        memcmp(blob, sv->blob, sv->blen) != 0) {
        char mine[256], theirs[256];
        sp_scoring_describe(sv->blob, sv->blen, mine, sizeof mine);
        sp_scoring_describe(blob, rq->scoring_bytes, theirs, sizeof theirs);
        fprintf(stderr, "hay align: the server at %s holds %s with the "
                "scoring %s; this command's is %s%s (start a server with "
                "this command's scoring options)\n", sv->socket, sv->path,
                mine, theirs, strcmp(mine, theirs) ? "" : " (another matrix)");
        goto out;
    }
    cf.opt.backend = sv->backend;
    if (cf.opt.threads == 0)
        cf.opt.threads = sv->threads;
    if (!cf.opt.device_params)
        cf.opt.device_params = sv->params;
    hay_align_phase ph[3] = {
        { "client:read_queries", rq->read_start, rq->read_end,
          rq->read_end - rq->read_start, 1 },
        { "client:wait_for_server", rq->read_end, rq->sent,
          rq->sent - rq->read_end, 1 },
        { "serve:receive", rq->sent, got, got - rq->sent, 1 },
    };
    served s = { sv->db, sv->s, sv->have_tf ? &sv->tf : NULL, sv->warm,
                 queries, (size_t)rq->query_bytes, rq->t0, rq->real0,
                 rq->proc_start, ph, 3 };
    rc = align_db_run(&cf, &s);
out:
    aconfig_free(&cf);
    return rc;
}

/* Reads n bytes of the request (n + 1 allocated, the last one zero). */
static unsigned char *read_part(int c, size_t n, const char **why)
{
    unsigned char *p = malloc(n + 1);
    if (!p) {
        *why = "out of memory";
        return NULL;
    }
    if (sp_read(c, p, n, CLIENT_WAIT_MS, NULL)) {
        *why = errno == ETIMEDOUT ? "timed out" : "closed early";
        free(p);
        return NULL;
    }
    p[n] = 0;
    return p;
}

/* Puts the client's descriptors in place of standard output and error
 * (back = 0) or the server's back (1). */
static void swap_std(const server *sv, const int *fds, int back)
{
    fflush(stdout);
    fflush(stderr);
    clearerr(stdout);
    clearerr(stderr);
    dup2(back ? sv->out : fds[0], STDOUT_FILENO);
    dup2(back ? sv->err : fds[1], STDERR_FILENO);
}

/* One connection: greeting, request, search, reply; a client that
 * misbehaves is logged and dropped. */
static void serve_one(server *sv, int c)
{
    unsigned long id = ++sv->served;
    double t0 = cli_now();
    struct ucred cr = { 0, 0, 0 };
    socklen_t cl = sizeof cr;
    int fds[2] = { -1, -1 }, nfds = 0, rc = -1;
    const char *why = NULL;
    char err[256];
    unsigned char h[SP_HEADER], fixed[SP_REQUEST_FIXED];
    unsigned char *words = NULL, *blob = NULL, *queries = NULL;
    sp_request rq;
    uint64_t n = 0;
    memset(&rq, 0, sizeof rq);
    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl);
    if (cr.uid != geteuid()) {
        why = "another user's connection";
        goto out;
    }
    size_t pl = strlen(sv->path) > SP_MAX_PATH ? SP_MAX_PATH : strlen(sv->path);
    unsigned char hello[SP_HEADER + 8 + SP_MAX_PATH];
    sp_header(hello, SP_HELLO, 8 + pl);
    uint32_t dna = (uint32_t)hay_align_scoring_is_dna(sv->s);
    uint32_t be = (uint32_t)sv->backend;
    sp_put32(hello + SP_HEADER, dna);
    sp_put32(hello + SP_HEADER + 4, be);
    memcpy(hello + SP_HEADER + 8, sv->path, pl);
    if (sp_write(c, hello, SP_HEADER + 8 + pl)) {
        why = "gone before the greeting";
        goto out;
    }
    if (sp_recv_fds(c, h, sizeof h, CLIENT_WAIT_MS, fds, 2, &nfds)) {
        why = errno == ETIMEDOUT ? "no request in time" : "closed early";
        goto out;
    }
    if (sp_header_check(h, SP_REQUEST, SP_REQUEST_FIXED + SP_MAX_ARG_BYTES +
                        SP_MAX_SCORING + SP_MAX_QUERIES, &n, err, sizeof err)) {
        why = err;
        goto out;
    }
    if (n < SP_REQUEST_FIXED) {
        why = "a request too short";
        goto out;
    }
    if (nfds != 2) {
        why = "a request without its two descriptors";
        goto out;
    }
    if (sp_read(c, fixed, sizeof fixed, CLIENT_WAIT_MS, NULL)) {
        why = "closed early";
        goto out;
    }
    if (sp_request_unpack(fixed, n, &rq, err, sizeof err)) {
        why = err;
        goto out;
    }
    if (!(words = read_part(c, rq.args_bytes, &why)) ||
        !(blob = read_part(c, rq.scoring_bytes, &why)) ||
        !(queries = read_part(c, (size_t)rq.query_bytes, &why)))
        goto out;
    char *check[SP_MAX_ARGS];   /* the words: nargs of them, NUL-terminated */
    if (sp_words((char *)words, rq.args_bytes, rq.nargs, check)) {
        why = "a request whose words do not add up";
        goto out;
    }
    double got = cli_now();
    swap_std(sv, fds, 0);
    rc = run_request(sv, &rq, (char *)words, blob, (char *)queries, got);
    swap_std(sv, fds, 1);
    unsigned char reply[SP_HEADER + 4];
    sp_header(reply, SP_REPLY, 4);
    sp_put32(reply + SP_HEADER, (uint32_t)rc);
    if (sp_write(c, reply, sizeof reply))
        why = "gone before the reply";
out:
    if (!sv->quiet || why) {
        if (rc >= 0)
            fprintf(sv->log, "hay db serve: request %lu (pid %d): exit %d, "
                    "%.3f s, %llu bytes of queries%s%s\n", id, (int)cr.pid, rc,
                    cli_now() - t0, (unsigned long long)rq.query_bytes,
                    why ? "; client " : "", why ? why : "");
        else
            fprintf(sv->log, "hay db serve: connection %lu (pid %d) dropped: "
                    "%s\n", id, (int)cr.pid, why);
    }
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    free(words);
    free(blob);
    free(queries);
}

static int parse_serve(int argc, char **argv, aconfig *cf, server *sv)
{
    enum { O_SOCKET = SC_PROTEIN + 1, O_BACKEND, O_PARAMS, O_STRICT, O_QUIET };
    static const struct option opts[] = {
        { "socket", required_argument, NULL, O_SOCKET },
        { "backend", required_argument, NULL, O_BACKEND },
        { "params", required_argument, NULL, O_PARAMS },
        SCORING_LONG_OPTIONS,
        { "strict-input", no_argument, NULL, O_STRICT },
        { "quiet", no_argument, NULL, O_QUIET },
        { "threads", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    static const char P[] = "hay db serve";
    int c;
    int32_t v;
    argv[0] = (char *)P;
    while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
        switch (c) {
        case O_SOCKET: sv->socket = optarg; break;
        case O_BACKEND:
            if (hay_backend_parse(optarg, &sv->backend) != HAY_OK ||
                sv->backend == HAY_BACKEND_OPENCL) {
                fprintf(stderr, "%s: --backend: '%s' is not auto, cpu or "
                        "cuda\n", P, optarg);
                return 2;
            }
            break;
        case O_PARAMS: sv->params = optarg; break;
        case SC_MATRIX: case SC_OPEN: case SC_EXTEND: case SC_MATCH:
        case SC_MISMATCH: case SC_DNA: case SC_PROTEIN:
            if (scoring_option(P, c, optarg, cf))
                return 2;
            break;
        case O_STRICT: cf->strict_input = 1; break;
        case O_QUIET: sv->quiet = 1; break;
        case 'j':
            if (parse_int_opt(P, optarg, "--threads", 0, 4096, &v))
                return 2;
            sv->threads = v;
            break;
        case 'h': usage_serve(stdout); return 0;
        default: usage_serve(stderr); return 2;
        }
    }
    if (argc - optind != 1 || !sv->socket) {
        fprintf(stderr, "%s: expected DB and --socket PATH\n", P);
        usage_serve(stderr);
        return 2;
    }
    sv->path = argv[optind];
    return -1;
}

int db_serve_main(int argc, char **argv)
{
    server sv;
    aconfig cf;
    memset(&sv, 0, sizeof sv);
    memset(&cf, 0, sizeof cf);
    sv.out = sv.err = -1;
    int lfd = -1, rc = parse_serve(argc, argv, &cf, &sv);
    if (rc >= 0)
        return rc;
    exec_passive(sv.quiet);
    rc = 2;
    if (sv.threads == 0)
        sv.threads = (int)cli_cpu_count();
    double t0 = cli_now();
    if (open_served(&sv, &cf) || warm_up(&sv))
        goto out;
    if (sp_scoring_pack(sv.s, &sv.blob, &sv.blen)) {
        fprintf(stderr, "hay db serve: out of memory\n");
        goto out;
    }
    /* SIGINT and SIGTERM wait for the search in progress: blocked but in
     * ppoll, between requests. */
    sigset_t block, waitmask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &waitmask);
    sigdelset(&waitmask, SIGINT);
    sigdelset(&waitmask, SIGTERM);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);   /* a client's closed pipe is its error */
    sv.out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    sv.err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    int logfd = sv.err >= 0 ? fcntl(sv.err, F_DUPFD_CLOEXEC, 3) : -1;
    sv.log = logfd >= 0 ? fdopen(logfd, "w") : NULL;
    if (sv.out < 0 || !sv.log) {
        fprintf(stderr, "hay db serve: %s\n", strerror(errno));
        goto out;
    }
    setvbuf(sv.log, NULL, _IOLBF, 0);
    lfd = listen_at(&sv);
    if (lfd < 0)
        goto out;
    hay_align_db_info info;
    hay_align_db_info_get(sv.db, &info);
    if (!sv.quiet)
        fprintf(sv.log, "hay db serve: %s: %" PRIu64 " sequences, %" PRIu64
                " residues, %s, backend %s, %d threads: ready in %.3f s at %s\n",
                sv.path, info.sequences, info.residues,
                hay_align_scoring_name(sv.s), hay_backend_name(sv.backend),
                sv.threads, cli_now() - t0, sv.socket);
    while (!stop_signal) {
        struct pollfd pf = { lfd, POLLIN, 0 };
        int r = ppoll(&pf, 1, NULL, &waitmask);
        if (r < 0 && errno != EINTR) {
            fprintf(sv.log, "hay db serve: %s\n", strerror(errno));
            break;
        }
        if (r <= 0)
            continue;
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        serve_one(&sv, c);
        close(c);
    }
    if (stop_signal && !sv.quiet)
        fprintf(sv.log, "hay db serve: stopped by %s after %lu requests; %s "
                "removed\n", stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
                sv.served, sv.socket);
    rc = stop_signal ? 0 : 2;
out:
    if (lfd >= 0) {
        close(lfd);
        unlink(sv.socket);
    }
    hay_align_db_warm_free(sv.warm);
    hay_align_db_free(sv.db);
    hay_align_scoring_free(sv.s);
    if (sv.have_tf)
        seq_file_free(&sv.tf);
    free(sv.blob);
    if (sv.log)
        fclose(sv.log);
    if (sv.out >= 0)
        close(sv.out);
    if (sv.err >= 0)
        close(sv.err);
    return rc;
}
