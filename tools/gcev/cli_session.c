/* SPDX-License-Identifier: MIT */
/* Live-session helpers of the gcev tool: options, attaching, Ctrl-C, and what each failure says. */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_session.h"
#include "cli_trace.h"

#if defined(_WIN32)
/* No sigaction on Windows: signal() installs the same handler (no session opens there:
 * gcev_session_open gives GCEV_E_UNSUPPORTED, src/session/gcev_session_none.c). */
struct sigaction {
    void (*sa_handler)(int);
    int sa_mask;
    int sa_flags;
};
#define sigemptyset(m) (*(m) = 0)
static int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    void (*prev)(int) = signal(sig, sa->sa_handler);
    if (old) {
        old->sa_handler = prev;
    }
    return 0;
}
#endif

static gcev_session *volatile g_session;
static volatile sig_atomic_t g_signals;
static struct sigaction g_old_int, g_old_term;
static int g_handlers;
static uint32_t g_timeout_ms;

static void on_signal(int sig)
{
    if (g_signals++ == 0 && g_session) {
        gcev_session_request_stop(g_session); /* async-signal-safe */
        return;
    }
    /* a second Ctrl-C: stop waiting for the rundown */
    signal(sig, SIG_DFL);
    raise(sig);
}

int cli_parse_pid(const char *cmd, const char *s, uint32_t *pid)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || v == 0 || v > INT32_MAX) {
        return gcev_cli_fail(cmd, "'%s' is not a process id", s);
    }
    *pid = (uint32_t)v;
    return 0;
}

static int parse_seconds(const char *cmd, const char *opt, const char *s, uint32_t *ms)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 1e6) {
        gcev_cli_fail(cmd, "%s needs a number of seconds (0 < S <= 1000000), not '%s'", opt, s);
        return 0;
    }
    *ms = (uint32_t)(v * 1000.0 + 0.5);
    if (*ms == 0) {
        *ms = 1;
    }
    return 1;
}

/*
 * NAME:KEYWORDS:LEVEL[:ARGS], split in place: the strings point into argv, which
 * outlives the session (argv's strings are the program's to modify).
 */
static int parse_provider(const char *cmd, const char *spec, cli_live_opts *o)
{
    if (o->nproviders == sizeof o->providers / sizeof o->providers[0]) {
        gcev_cli_fail(cmd, "at most %u --providers",
                      (unsigned)(sizeof o->providers / sizeof o->providers[0]));
        return 0;
    }
    char *v = (char *)spec;
    char *kw = strchr(v, ':');
    char *lv = kw ? strchr(kw + 1, ':') : NULL;
    char *args = lv ? strchr(lv + 1, ':') : NULL;
    if (!kw || !lv || kw == v) {
        gcev_cli_fail(cmd, "--providers needs NAME:KEYWORDS:LEVEL[:ARGS], not '%s'", v);
        return 0;
    }
    *kw++ = 0;
    *lv++ = 0;
    if (args) {
        *args++ = 0;
    }
    unsigned long long k, l;
    if (!gcev_cli_number(cmd, "--providers keywords", kw, UINT64_MAX, 1, &k) ||
        !gcev_cli_number(cmd, "--providers level", lv, 255, 0, &l)) {
        return 0;
    }
    /* the level is the runtime's to check (0-5): it answers anything else with an error */
    gcev_session_provider *p = &o->providers[o->nproviders++];
    p->name = v;
    p->keywords = k;
    p->level = (uint32_t)l;
    p->arguments = args;
    return 1;
}

int cli_live_option(gcev_cli_args *a, int allow_record, cli_live_opts *o, int *rc)
{
    static const char *const names[] = {"--duration",  "--timeout", "--profile",
                                        "--providers", "--buffer",  "--record"};
    const char *v = NULL;
    int which = -1;
    for (int k = 0; k < 6 && which < 0; k++) {
        if (k == 5 && !allow_record) {
            break;
        }
        int m = gcev_cli_value(a, names[k], &v);
        if (m < 0) {
            *rc = GCEV_EXIT_USAGE;
            return -1;
        }
        if (m > 0) {
            which = k;
        }
    }
    if (which < 0) {
        return 0;
    }
    *rc = GCEV_EXIT_USAGE;
    switch (which) {
    case 0:
        return parse_seconds(a->cmd, names[which], v, &o->duration_ms) ? 1 : -1;
    case 1:
        return parse_seconds(a->cmd, names[which], v, &o->timeout_ms) ? 1 : -1;
    case 2: {
        /* the profiles a user names (GCEV_SESSION_CUSTOM is --providers, not a name) */
        static const struct {
            const char *name;
            uint32_t profile;
        } profiles[] = {{"gc-collect", GCEV_SESSION_GC_COLLECT},
                        {"gc-verbose", GCEV_SESSION_GC_VERBOSE},
                        {"heap", GCEV_SESSION_GC_HEAP}};
        for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
            if (!strcmp(v, profiles[i].name)) {
                o->profile = profiles[i].profile;
                return 1;
            }
        }
        gcev_cli_fail(a->cmd,
                      "--profile must be gc-collect, gc-verbose or heap (--providers for your own), not '%s'",
                      v);
        return -1;
    }
    case 3:
        return parse_provider(a->cmd, v, o) ? 1 : -1;
    case 4: {
        unsigned long long mb = 1; /* stays 1 when the number is refused */
        if (!gcev_cli_number(a->cmd, "--buffer", v, 65536, 0, &mb) || mb == 0) {
            if (mb == 0) {
                gcev_cli_fail(a->cmd, "--buffer needs 1 to 65536 MB, not 0");
            }
            return -1;
        }
        o->buffer_mb = (uint32_t)mb;
        return 1;
    }
    default:
        o->record = v;
        return 1;
    }
}

int cli_live_pid_arg(const gcev_cli_args *a, cli_live_opts *o)
{
    if (!a->operands_only && a->arg[0] == '-' && a->arg[1] != '\0') {
        return gcev_cli_fail(a->cmd, "unknown option '%s' (see 'gcev %s --help')", a->arg, a->cmd);
    }
    if (o->have_pid) {
        return gcev_cli_fail(a->cmd, "one PID only, not also '%s'", a->arg);
    }
    if (cli_parse_pid(a->cmd, a->arg, &o->pid)) {
        return GCEV_EXIT_USAGE;
    }
    o->have_pid = 1;
    return 0;
}

static int exit_status(gcev_status st)
{
    switch (st) {
    case GCEV_OK:
    case GCEV_END:
        return GCEV_EXIT_OK;
    case GCEV_E_NO_PROCESS:
        return GCEV_EXIT_NO_PROCESS;
    case GCEV_E_NOT_DOTNET:
        return GCEV_EXIT_NOT_DOTNET;
    case GCEV_E_PERMISSION:
        return GCEV_EXIT_PERMISSION;
    case GCEV_E_REFUSED:
        return GCEV_EXIT_REFUSED;
    case GCEV_E_TIMEOUT:
        return GCEV_EXIT_TIMEOUT;
    case GCEV_E_PROCESS_EXITED:
        return GCEV_EXIT_EXITED;
    case GCEV_E_INVALID_ARG:
        return GCEV_EXIT_USAGE;
    default:
        return GCEV_EXIT_TRACE_ERROR;
    }
}

/* One line saying what failed, with the hint that goes with it. */
static void print_failure(const char *cmd, uint32_t pid, uint32_t timeout_ms, gcev_status st,
                          const gcev_error *err)
{
    const char *msg = err && err->message ? err->message : gcev_status_str(st);
    switch (st) {
    case GCEV_E_NO_PROCESS:
        fprintf(stderr, "gcev %s: no process with pid %u\n", cmd, pid);
        break;
    case GCEV_E_NOT_DOTNET:
        fprintf(stderr,
                "gcev %s: process %u is not a .NET process that can be attached to: %s "
                "(no dotnet-diagnostic-%u-*-socket in its temp directory, or the runtime runs with "
                "DOTNET_EnableDiagnostics=0)\n",
                cmd, pid, msg, pid);
        break;
    case GCEV_E_PERMISSION:
        /* a socket of the wrong owner is not the process's: no user may use it */
        fprintf(stderr, "gcev %s: permission denied for process %u: %s (%s)\n", cmd, pid, msg,
                strstr(msg, "neither the process's user")
                    ? "someone else made a socket under the process's name; it is not the process's"
                    : "run gcev as the process's user, or as root");
        break;
    case GCEV_E_REFUSED: {
        int32_t hr = err ? (int32_t)(uint32_t)err->offset : 0;
        fprintf(stderr, "gcev %s: process %u refused the session: %s: HRESULT 0x%08x (%s)\n", cmd, pid, msg,
                (unsigned)hr, gcev_session_hresult_name(hr));
        break;
    }
    case GCEV_E_TIMEOUT:
        fprintf(stderr, "gcev %s: process %u: %s (timeout %.1f s)\n", cmd, pid, msg,
                (timeout_ms ? timeout_ms : 5000) / 1000.0);
        break;
    case GCEV_E_PROCESS_EXITED:
        fprintf(stderr, "gcev %s: process %u: %s\n", cmd, pid, msg);
        break;
    default:
        fprintf(stderr, "gcev %s: process %u: %s: %s\n", cmd, pid, gcev_status_str(st), msg);
        break;
    }
}

int cli_live_open(const char *cmd, const cli_live_opts *o, uint32_t order, gcev_session **out)
{
    gcev_session_options so;
    memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    so.profile = o->profile;
    if (o->nproviders) {
        so.profile = GCEV_SESSION_CUSTOM;
        so.providers = o->providers;
        so.nproviders = o->nproviders;
        so.rundown_keyword = GCEV_SESSION_DEFAULT_RUNDOWN;
    }
    so.timeout_ms = o->timeout_ms;
    so.buffer_mb = o->buffer_mb;
    so.duration_ms = o->duration_ms;
    so.record_path = o->record;
    if (o->no_stacks && !o->record) {
        so.flags |= GCEV_SESSION_NO_STACKS;
    }
    gcev_trace_options to = {.struct_size = sizeof to, .order = order, .no_stacks = o->no_stacks != 0};
    so.trace = &to;
    if (so.profile == GCEV_SESSION_GC_HEAP) {
        /* said before the session exists: the runtime forces the GC as soon as it accepts the session
         * (gcev heap --pid, and any command with --profile heap) */
        fprintf(stderr,
                "gcev %s: asking process %u for a heap dump: its runtime will now run a full blocking GC "
                "(every thread paused while the heap is walked)\n",
                cmd, o->pid);
    }
    gcev_error err = {0};
    gcev_status st = gcev_session_open(o->pid, &so, out, &err);
    if (st != GCEV_OK) {
        if (st == GCEV_E_IO && o->record && err.message && strstr(err.message, "record file")) {
            fprintf(stderr, "gcev %s: cannot create %s: %s\n", cmd, o->record, err.message);
            return GCEV_EXIT_USAGE;
        }
        print_failure(cmd, o->pid, o->timeout_ms, st, &err);
        return exit_status(st);
    }
    /* the handlers first: whoever reads the line below may send SIGINT at once */
    g_signals = 0;
    g_timeout_ms = o->timeout_ms;
    g_session = *out;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: the session's poll wakes up */
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
    g_handlers = 1;
    const gcev_session_info *in = gcev_session_get_info(*out);
    char refused[96] = "";
    if (in->command < 6 && in->refused[6]) {
        snprintf(refused, sizeof refused, " (CollectTracing6: %s)",
                 gcev_session_hresult_name(in->refused[6]));
    }
    /* one write: whoever waits for this line sees all of it */
    fprintf(stderr, "gcev %s: attached to %u (.NET %s, %s) with CollectTracing%u%s; %s\n", cmd, o->pid,
            in->process->runtime_version[0] ? in->process->runtime_version : "?",
            in->process->arch[0] ? in->process->arch : "?", in->command, refused,
            o->duration_ms ? "stops after --duration or at Ctrl-C" : "Ctrl-C stops");
    return 0;
}

int cli_live_end(const char *cmd, gcev_session *s, gcev_status st, const gcev_error *err)
{
    const gcev_session_info *in = gcev_session_get_info(s);
    if (st == GCEV_END) {
        if (in->ended_by_runtime) {
            fprintf(stderr, "gcev %s: process %u ended the session (it exited); the trace is complete\n", cmd,
                    in->process->pid);
        }
        return GCEV_EXIT_OK;
    }
    /* a timeout names the wait that expired: the reply's, or the drain's after the stop (30 s) */
    print_failure(cmd, in->process->pid, in->timeout_ms ? in->timeout_ms : g_timeout_ms, st, err);
    return exit_status(st);
}

void cli_live_close(gcev_session *s)
{
    if (g_handlers) {
        sigaction(SIGINT, &g_old_int, NULL);
        sigaction(SIGTERM, &g_old_term, NULL);
        g_handlers = 0;
    }
    g_session = NULL;
    gcev_session_close(s);
}

int cli_input_open(const char *cmd, const cli_live_opts *o, uint32_t order, const gcev_trace_options *opts,
                   const char **path, char label[32], gcev_trace **t, gcev_session **sess)
{
    *t = NULL;
    *sess = NULL;
    if (!o->have_pid) {
        return gcev_cli_open_trace(cmd, *path, opts, t) ? GCEV_EXIT_USAGE : 0;
    }
    int rc = cli_live_open(cmd, o, order, sess);
    if (rc) {
        return rc;
    }
    *t = gcev_session_trace(*sess);
    snprintf(label, 32, "pid %u", o->pid);
    *path = label;
    return 0;
}

int cli_input_end(const char *cmd, const char *path, gcev_trace *t, gcev_session *sess, gcev_status st,
                  gcev_error *err, const char **read_error)
{
    if (sess) {
        int rc = cli_live_end(cmd, sess, st, err);
        if (rc != GCEV_EXIT_OK) {
            *read_error = err->message ? err->message : gcev_status_str(st);
        }
        return rc;
    }
    if (st == GCEV_END) {
        return GCEV_EXIT_OK;
    }
    gcev_cli_trace_error(cmd, path, t, st, err);
    *read_error = err->message ? err->message : gcev_status_str(st);
    return GCEV_EXIT_TRACE_ERROR;
}

void cli_input_close(gcev_trace *t, gcev_session *sess)
{
    if (sess) {
        cli_live_close(sess);
    } else {
        gcev_trace_close(t);
    }
}
