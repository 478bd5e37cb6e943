/* SPDX-License-Identifier: MIT */
/*
 * gcev serve [--listen ADDR:PORT] [--pid PID ...] [--profile P] [--match REGEX] [--rescan S]
 *            [--max-processes N] [--keep-exited S] [--recycle-gcs N] [--timeout S] [--list-metrics]
 * A Prometheus exporter of per-GC metrics for every .NET process this user may attach to
 * (serve.h gives the threads and files).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gcev/gcev_session.h>

#include "cli.h"
#include "cli_session.h"
#include "commands.h"
#include "serve.h"
#include "serve_discover.h"
#include "serve_http.h"

/* The address is taken or not ours to bind (an exit status of serve's own). */
enum { SERVE_EXIT_LISTEN = 9 };

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gcev serve [--listen ADDR:PORT] [--pid PID ...] [--profile P] [--match REGEX] [--rescan S]\n"
        "                  [--max-processes N] [--keep-exited S] [--recycle-gcs N] [--timeout S] "
        "[--stacks]\n                  [--record-dir DIR]\n"
        "       gcev serve --list-metrics [--verbose]\n"
        "A Prometheus exporter: attaches to every .NET process this user may attach to (as gcev ps\n"
        "lists them, containers included; as root: all), feeds each one's GC events to its own analysis\n"
        "model (the one of gcev stats) and serves each GC's figures once the model has closed it, at\n"
        "http://ADDR:PORT/metrics (Prometheus text format 0.0.4, or OpenMetrics 1.0.0 when the Accept\n"
        "header asks for application/openmetrics-text), with /healthz. New processes are found every\n"
        "--rescan seconds; an exited one's series stay --keep-exited seconds. Runs until SIGINT/SIGTERM.\n"
        "  --listen A:P        where to listen (default 127.0.0.1:9464; [::1]:P for IPv6; port 0: any\n"
        "                      free port, printed on stderr). Only loopback unless you say otherwise.\n"
        "  --pid PID           watch only this process (repeatable, up to 64)\n"
        "  --profile P         gc-collect (default) or gc-verbose (adds AllocationTick: allocated bytes\n"
        "                      on runtimes without per-heap histories)\n"
        "  --match REGEX       watch only processes whose command line matches (POSIX extended)\n"
        "  --rescan S          look for new and exited processes every S seconds (default 10)\n"
        "  --max-processes N   watch at most N processes (default 64, at most 1024); others are counted\n"
        "                      in gcev_serve_unwatched_processes\n"
        "  --keep-exited S     keep an exited process's series S seconds (default 300)\n"
        "  --recycle-gcs N     replace a process's analysis model by a fresh one once it holds N GCs,\n"
        "                      at a point where all are reported (default 2048; memory bound)\n"
        "  --timeout S         wait at most S seconds for each answer of a runtime (default 5)\n"
        "  --stacks            ask for a stack with every event, as gcev record and dotnet-trace do (off:\n"
        "                      the metrics need none, and the runtime's stack walks cost the process)\n"
        "  --record-dir DIR    also write each session's stream to DIR/gcev-serve-PID-START-N.nettrace\n"
        "                      (what the exporter saw, for gcev stats; the files grow: tests, audits)\n"
        "  --list-metrics      print the metric families (sample name, type, labels) and exit;\n"
        "                      with --verbose also each one's help and source\n"
        "Labels: pid, process (/proc/PID/comm), runtime_version, container_id (64 hex digits from\n"
        "/proc/PID/cgroup, \"\" outside containers); generation 0|1|2|unknown (gen0..poh for heap\n"
        "sizes), type blocking|background|foreground|unknown, reason (the GCReason names, or other),\n"
        "state attaching|attached|detached|exited|failed. Pause buckets (s): 0.0001 0.00025 0.0005\n"
        "0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 +Inf.\n"
        "Exit status: 0 after SIGINT/SIGTERM, 2 usage, 9 the address cannot be listened on (in use,\n"
        "or not this machine's).\n"
        "Metrics:\n");
    for (int i = 0; i < SM_COUNT; i++) {
        const serve_metric *m = &serve_metrics[i];
        fprintf(f, "  %s%s (%s): %s\n", m->family, m->type == SERVE_COUNTER ? "_total" : "",
                serve_metric_type_name(m->type), m->help);
    }
}

static int parse_seconds(const char *opt, const char *v, double *out)
{
    char *end;
    errno = 0;
    double s = strtod(v, &end);
    if (errno || end == v || *end || !(s > 0) || s > 1e6) {
        return gcev_cli_fail("serve", "%s needs a number of seconds (0 < S <= 1000000), not '%s'", opt, v);
    }
    *out = s;
    return 0;
}

/* Binds and listens on spec ("HOST:PORT", "[V6]:PORT"); the socket, or -1 after the message. */
static int open_listener(const char *spec, int *rc)
{
    char host[256];
    const char *port;
    *rc = GCEV_EXIT_USAGE;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof host) {
            gcev_cli_fail("serve", "--listen needs HOST:PORT or [IPV6]:PORT, not '%s'", spec);
            return -1;
        }
        memcpy(host, spec + 1, (size_t)(close - spec - 1));
        host[close - spec - 1] = '\0';
        port = close + 2;
    } else {
        const char *colon = strrchr(spec, ':');
        if (!colon || (size_t)(colon - spec) >= sizeof host || colon == spec) {
            gcev_cli_fail("serve", "--listen needs HOST:PORT or [IPV6]:PORT, not '%s'", spec);
            return -1;
        }
        memcpy(host, spec, (size_t)(colon - spec));
        host[colon - spec] = '\0';
        port = colon + 1;
    }
    char *end;
    unsigned long pn = strtoul(port, &end, 10);
    if (!*port || *end || pn > 65535) {
        gcev_cli_fail("serve", "--listen: '%s' is not a port", port);
        return -1;
    }
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gr = getaddrinfo(host, port, &hints, &ai);
    if (gr != 0 || !ai) {
        gcev_cli_fail("serve", "--listen: cannot resolve '%s': %s", host, gai_strerror(gr));
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1, e = 0;
    if (fd < 0) {
        e = errno;
    } else {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ai->ai_family == AF_INET6) {
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        }
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 64) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        *rc = SERVE_EXIT_LISTEN;
        fprintf(stderr, "gcev serve: cannot listen on %s: %s%s\n", spec, strerror(e),
                e == EADDRINUSE ? " (another program, or another gcev serve, has that port: --listen)" : "");
        return -1;
    }
    /* the address as bound (port 0: the one the system chose) */
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char h[128] = "?", p[16] = "?";
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV);
    }
    int v6 = ss.ss_family == AF_INET6;
    fprintf(stderr, "gcev serve: listening on http://%s%s%s:%s/metrics\n", v6 ? "[" : "", h, v6 ? "]" : "",
            p);
    return fd;
}

int gcev_cmd_serve(int argc, char **argv)
{
    serve_ctx c;
    memset(&c, 0, sizeof c);
    c.o.listen = "127.0.0.1:9464";
    c.o.rescan_s = 10;
    c.o.max_procs = 64;
    c.o.keep_exited_s = 300;
    c.o.recycle_gcs = 2048;
    c.o.timeout_ms = 5000;
    int list = 0, verbose = 0;
    gcev_cli_args a;
    gcev_cli_args_init(&a, "serve", argc, argv);
    while (gcev_cli_args_next(&a)) {
        const char *v;
        int m, rc;
        double s;
        unsigned long long n;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if (gcev_cli_flag(&a, "--list-metrics")) {
            list = 1;
        } else if (gcev_cli_flag(&a, "--stacks")) {
            c.o.stacks = 1;
        } else if (gcev_cli_flag(&a, "--verbose")) {
            verbose = 1;
        } else if ((m = gcev_cli_value(&a, "--listen", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            c.o.listen = v;
        } else if ((m = gcev_cli_value(&a, "--pid", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            if (c.o.npids == sizeof c.o.pids / sizeof c.o.pids[0]) {
                return gcev_cli_fail("serve", "at most 64 --pid");
            }
            if ((rc = cli_parse_pid("serve", v, &c.o.pids[c.o.npids])) != 0) {
                return rc;
            }
            c.o.npids++;
        } else if ((m = gcev_cli_value(&a, "--profile", &v)) != 0) {
            static const char *const profiles[] = {"gc-collect", "gc-verbose", NULL};
            int k;
            if (m < 0 || (k = gcev_cli_choice("serve", "--profile", v, profiles)) < 0) {
                return GCEV_EXIT_USAGE;
            }
            c.o.profile = k == 0 ? GCEV_SESSION_GC_COLLECT : GCEV_SESSION_GC_VERBOSE;
        } else if ((m = gcev_cli_value(&a, "--record-dir", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            c.o.record_dir = v;
        } else if ((m = gcev_cli_value(&a, "--match", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            c.o.match = v;
        } else if ((m = gcev_cli_value(&a, "--rescan", &v)) != 0) {
            if (m < 0 || parse_seconds("--rescan", v, &c.o.rescan_s)) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--keep-exited", &v)) != 0) {
            if (m < 0 || parse_seconds("--keep-exited", v, &c.o.keep_exited_s)) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--timeout", &v)) != 0) {
            if (m < 0 || parse_seconds("--timeout", v, &s)) {
                return GCEV_EXIT_USAGE;
            }
            c.o.timeout_ms = (uint32_t)(s * 1000.0 + 0.5) ? (uint32_t)(s * 1000.0 + 0.5) : 1;
        } else if ((m = gcev_cli_value(&a, "--max-processes", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("serve", "--max-processes", v, 1024, 0, &n)) {
                return GCEV_EXIT_USAGE;
            }
            if (n == 0) {
                return gcev_cli_fail("serve", "--max-processes needs 1 to 1024");
            }
            c.o.max_procs = (uint32_t)n;
        } else if ((m = gcev_cli_value(&a, "--recycle-gcs", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("serve", "--recycle-gcs", v, 1000000, 0, &n)) {
                return GCEV_EXIT_USAGE;
            }
            if (n == 0) {
                return gcev_cli_fail("serve", "--recycle-gcs needs 1 to 1000000");
            }
            c.o.recycle_gcs = (uint32_t)n;
        } else {
            return gcev_cli_fail("serve", "unknown argument '%s' (see 'gcev serve --help')", a.arg);
        }
    }
    if (list) {
        serve_metrics_list(stdout, verbose);
        return GCEV_EXIT_OK;
    }
    regex_t re;
    if (c.o.match) {
        int e = regcomp(&re, c.o.match, REG_EXTENDED | REG_NOSUB);
        if (e != 0) {
            char msg[160];
            regerror(e, &re, msg, sizeof msg);
            return gcev_cli_fail("serve", "--match '%s': %s", c.o.match, msg);
        }
        c.match_re = &re;
    }
    int rc;
    int fd = open_listener(c.o.listen, &rc);
    if (fd < 0) {
        if (c.match_re) {
            regfree(&re);
        }
        return rc;
    }
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    c.mu = &mu;
    struct sigaction sa, old_int, old_term, old_pipe;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_pipe);
    char why[256] = "";
    void *http = serve_http_start(&c, fd, why, sizeof why);
    if (!http) {
        close(fd);
        if (why[0]) {
            fprintf(stderr, "gcev serve: libmicrohttpd could not be loaded: %s\n", why);
            rc = 1;
        } else {
            fprintf(stderr, "gcev serve: libmicrohttpd could not start on %s\n", c.o.listen);
            rc = SERVE_EXIT_LISTEN;
        }
    } else {
        while (!g_stop) {
            serve_discover_once(&c);
            double until = serve_now_ms() + c.o.rescan_s * 1000.0;
            while (!g_stop && serve_now_ms() < until) {
                struct timespec ts = {0, 50 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
        fprintf(stderr, "gcev serve: stopping\n");
        serve_discover_shutdown(&c);
        serve_http_stop(http);
        rc = GCEV_EXIT_OK;
    }
    serve_discover_free(&c);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (c.match_re) {
        regfree(&re);
    }
    return rc;
}
