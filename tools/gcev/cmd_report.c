/* SPDX-License-Identifier: MIT */
/*
 * gcev report [-o OUT] FILE
 * gcev report [-o OUT] --pid PID [--duration S] [--record FILE] [--profile P] ...
 * One self-contained HTML page of a trace's GC behaviour (gcev_report.h): summary,
 * warnings, charts and a per-GC table. Progress goes to stderr, only when stderr is
 * a terminal (cli_progress.h).
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* S_ISREG */
#endif

#include <sys/stat.h>
#if defined(_WIN32) && !defined(S_ISREG)
#define S_ISREG(m) (((m)&_S_IFMT) == _S_IFREG)
#endif

#include <errno.h>
#include <stdio.h>
#if !defined(_WIN32)
#include <unistd.h> /* close */
#endif
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_allocs.h>
#include <gcev/gcev_report.h>

#include "cli.h"
#include "cli_progress.h"
#include "cli_report.h"
#include "cli_session.h"
#include "cli_trace.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev report [-o OUT] FILE\n"
               "       gcev report [-o OUT] --pid PID [--duration S] [--record FILE] [--profile P]\n"
               "One self-contained HTML page of the GC behaviour of a .nettrace/.netperf/.etl/CTF\n"
               "trace: warnings (lost events, incomplete GCs, a truncated trace), a summary (GC mode,\n"
               "pauses and their percentiles, PerfView's per-generation GCStats), charts (heap size\n"
               "per generation, pause timeline with background GCs, pause histogram, allocation\n"
               "rate, DATAS heap count) and a sortable table of every GC. The page makes no network\n"
               "request. -o OUT names the page (default report.html; '-' for standard output).\n"
               "FILE may be '-' for standard input. --pid attaches to a running .NET process\n"
               "instead and makes the page of its GCs until --duration, Ctrl-C or its end; its\n"
               "heap and allocation sections are read from the stream once the session has\n"
               "ended: from --record FILE, else from a temporary file in $TMPDIR (or /tmp),\n"
               "removed at the end.\n" CLI_LIVE_OPTIONS_HELP
               "  --record FILE  also write the session's stream to FILE (.nettrace)\n");
}

/* gcev_stats_read_trace's callback: the shared progress line (cli_progress.h). */
static void progress(void *ctx, uint64_t events, uint64_t offset, uint64_t size)
{
    (void)offset;
    (void)size;
    gcev_cli_progress_at(ctx, events);
}

typedef struct sink {
    FILE *f;
    int err; /* errno of the first failed write */
} sink;

static int sink_write(void *ctx, const char *data, size_t size)
{
    sink *k = ctx;
    errno = 0;
    if (fwrite(data, 1, size, k->f) != size) {
        k->err = errno ? errno : EIO;
        return 1;
    }
    return 0;
}

int gcev_cli_report_trace(const char *cmd, const char *source, const char *again_path, gcev_trace *t,
                          const char *out_path)
{
    gcev_stats *s;
    if (gcev_stats_create(NULL, &s) != GCEV_OK) {
        return gcev_cli_fail(cmd, "out of memory");
    }
    gcev_cli_progress pr;
    gcev_cli_progress_start(&pr, cmd, t, 0);
    gcev_error err = {0};
    gcev_status st = gcev_stats_read_trace(s, t, pr.on ? progress : NULL, &pr, &err);
    gcev_cli_progress_end(&pr);
    int rc = GCEV_EXIT_OK;
    char read_error[512];
    gcev_report_facts facts = {0};
    facts.source = source;
    facts.info = gcev_trace_get_info(t);
    facts.generator = "gcev " GCEV_CLI_VERSION;
    if (st != GCEV_OK) {
        gcev_cli_trace_error(cmd, source, t, st, &err);
        snprintf(read_error, sizeof read_error, "%s at offset %llu",
                 err.message && err.message[0] ? err.message : gcev_status_str(st),
                 (unsigned long long)err.offset);
        facts.read_error = read_error;
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    int to_stdout = !strcmp(out_path, "-");
    sink k = {to_stdout ? stdout : NULL, 0};
    if (!to_stdout) {
        errno = 0;
        k.f = fopen(out_path, "wb");
        if (!k.f) {
            int e = errno;
            gcev_stats_free(s);
            return gcev_cli_fail(cmd, "cannot create %s: %s", out_path, strerror(e ? e : EIO));
        }
    }
    /* the heap and allocation sections: the file read again (a live session is read once; its
     * --record file, complete once the session ended, is read like a trace file) */
    gcev_report_extras extras = {sizeof extras, NULL, NULL};
    struct stat fsb;
    int again = again_path && strcmp(again_path, "-") && stat(again_path, &fsb) == 0 &&
                (S_ISREG(fsb.st_mode) || S_ISDIR(fsb.st_mode));
    if (again) {
        gcev_heap_read_file(again_path, &extras.heaps, NULL); /* what it read, even after an error */
    }
    gcev_allocs *al = NULL;
    if (again && gcev_allocs_create(NULL, &al) == GCEV_OK) {
        gcev_trace_options aopts = {.struct_size = sizeof aopts,
                                    .order = GCEV_TRACE_ORDER_FILE,
                                    .max_block_size = 0,
                                    .keep_going = 1};
        gcev_trace *at;
        if (gcev_trace_open_file(again_path, &aopts, &at, NULL) == GCEV_OK) {
            gcev_allocs_read_trace(al, at, NULL);
            gcev_trace_close(at);
        }
        extras.allocs = al;
    }
    gcev_report_options opts = {0};
    st = gcev_report_write_ex(s, &facts, &opts, &extras, sink_write, &k);
    gcev_allocs_free(al);
    gcev_heap_set_free(extras.heaps);
    size_t gcs = gcev_stats_gc_count(s);
    gcev_stats_free(s);
    if (st == GCEV_E_NOMEM) {
        gcev_cli_fail(cmd, "out of memory building the page");
    }
    if (to_stdout) {
        /* main() flushes and closes standard output and reports its errors */
        return st == GCEV_OK ? rc : GCEV_EXIT_TRACE_ERROR;
    }
    long size = ftell(k.f);
    errno = 0;
    if (fclose(k.f) != 0 && !k.err) {
        k.err = errno ? errno : EIO;
    }
    if (st != GCEV_OK || k.err) {
        if (k.err) {
            fprintf(stderr, "gcev %s: %s: write error: %s\n", cmd, out_path, strerror(k.err));
        }
        /* no half page left behind: the file this command made, never a device (-o /dev/full) */
        struct stat sb;
        if (stat(out_path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            remove(out_path);
        }
        return GCEV_EXIT_TRACE_ERROR;
    }
    fprintf(stderr, "gcev %s: wrote %s (%ld bytes, %zu GC%s)\n", cmd, out_path, size, gcs,
            gcs == 1 ? "" : "s");
    return rc;
}

int gcev_cmd_report(int argc, char **argv)
{
    const char *path = NULL, *out = "report.html", *v;
    int m, rc, taken, live_opt = 0;
    cli_live_opts live;
    memset(&live, 0, sizeof live);
    gcev_cli_args a;
    gcev_cli_args_init(&a, "report", argc, argv);
    while (gcev_cli_args_next(&a)) {
        int lrc = 0;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--pid", &v)) != 0) {
            if (m < 0 || cli_parse_pid("report", v, &live.pid)) {
                return GCEV_EXIT_USAGE;
            }
            live.have_pid = 1;
        } else if ((taken = cli_live_option(&a, 1, &live, &lrc)) != 0) {
            if (taken < 0) {
                return lrc;
            }
            live_opt = 1;
        } else if ((m = gcev_cli_value(&a, "-o", &v)) != 0 || (m = gcev_cli_value(&a, "--output", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            out = v;
        } else if ((rc = gcev_cli_file_arg(&a, &path)) != 0) {
            return rc;
        }
    }
    if (live.have_pid && path) {
        return gcev_cli_fail("report", "give either FILE or --pid PID, not both");
    }
    if (live_opt && !live.have_pid) {
        return gcev_cli_fail("report",
                             "--duration, --record, --profile, --providers and --timeout need --pid");
    }
    if (live.have_pid) {
        /* The heap and allocation sections read the stream again once the session has ended
         * (as for --record F): without --record, it is kept in a temporary file, removed at the
         * end. (No session opens on Windows: gcev_session_none.c.) */
        char tmp[4096] = "";
#if !defined(_WIN32)
        if (!live.record) {
            const char *dir = getenv("TMPDIR");
            snprintf(tmp, sizeof tmp, "%s/gcev-report-XXXXXX", dir && dir[0] ? dir : "/tmp");
            int fd = mkstemp(tmp);
            if (fd < 0) {
                fprintf(stderr,
                        "gcev report: warning: no temporary file in %s (%s): the page will have no "
                        "heap or allocation section; --record FILE keeps the stream\n",
                        dir && dir[0] ? dir : "/tmp", strerror(errno));
                tmp[0] = 0;
            } else {
                close(fd);
                live.record = tmp;
            }
        }
#endif
        gcev_session *sess;
        if ((rc = cli_live_open("report", &live, GCEV_TRACE_ORDER_TIME, &sess)) != 0) {
            if (tmp[0]) {
                remove(tmp);
            }
            return rc;
        }
        /* the page names what was watched and how: the process's command line and the profile */
        const gcev_session_info *in = gcev_session_get_info(sess);
        const char *cmdline = in->process->command_line && in->process->command_line[0]
                                  ? in->process->command_line
                                  : "command line unknown";
        const char *profile = live.nproviders                           ? "custom (--providers)"
                              : live.profile == GCEV_SESSION_GC_VERBOSE ? "gc-verbose"
                              : live.profile == GCEV_SESSION_GC_HEAP    ? "heap"
                                                                        : "gc-collect";
        char source[512];
        snprintf(source, sizeof source, "pid %u: %.400s (profile %s)", live.pid, cmdline, profile);
        gcev_trace *st = gcev_session_trace(sess);
        rc = gcev_cli_report_trace("report", source, live.record, st, out);
        /* why the session ended: the reader repeats its last status, the session says what it means */
        gcev_trace_event ev;
        gcev_error err = {0};
        gcev_status end = gcev_session_status(sess, gcev_trace_next(st, &ev, &err), &err);
        int lrc = cli_live_end("report", sess, end == GCEV_OK ? GCEV_END : end, &err);
        cli_live_close(sess);
        if (tmp[0]) {
            remove(tmp);
        }
        return lrc != GCEV_EXIT_OK ? lrc : rc;
    }
    if (!path) {
        return gcev_cli_no_file("report");
    }
    /* the analysis needs timestamp order and no stack (the allocation section reads the file again) */
    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME, .no_stacks = 1};
    gcev_trace *t;
    if (gcev_cli_open_trace("report", path, &opts, &t)) {
        return GCEV_EXIT_USAGE;
    }
    /* the analysis reads the GC set; the reader skips the rest unread (it still counts) */
    if (gcev_cli_filter_gc("report", t)) {
        gcev_trace_close(t);
        return GCEV_EXIT_USAGE;
    }
    rc = gcev_cli_report_trace("report", path, path, t, out);
    gcev_trace_close(t);
    return rc;
}
