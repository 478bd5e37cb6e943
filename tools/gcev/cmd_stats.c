/* SPDX-License-Identifier: MIT */
/*
 * gcev stats [--format text|csv|json] [--table T] [--gc N] [--process PID] FILE
 * gcev stats [--format ...] [--gc N] --pid PID [--duration S] [--record FILE] [--profile P]
 * gcev stats --list-metrics [--format text|json]
 * GC analysis of a trace (gcev_stats.h): a per-GC table, per-generation and
 * whole-trace summaries, segment/handle lifetimes; with --pid, of a live
 * session (the same analysis, on the stream). Progress goes to stderr, and only
 * when stderr is a terminal, so pipes and files stay clean.
 */

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "cli_session.h"
#include "commands.h"
#include "cli_trace.h"
#include "stats_out.h"

enum { FMT_TEXT, FMT_CSV, FMT_JSON };

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gcev stats [--format text|csv|json] [--table T] [--gc N] [--process PID]\n"
        "                  [--compat traceevent] [--keep-going] FILE\n"
        "       gcev stats [--format text|csv|json] [--gc N] --pid PID [--duration S]\n"
        "                  [--record FILE] [--profile P] [--timeout S]\n"
        "       gcev stats --list-metrics [--format text|json]\n"
        "GC analysis of a .nettrace/.netperf/.etl trace: each GC (generation, reason, type,\n"
        "pause, duration, promoted bytes, heap sizes, TraceEvent's TraceGC metrics), per\n"
        "process its GCStats, pause percentiles and longest pauses, segments and GC handles\n"
        "never freed. --gc N shows GC number N only, in detail; --process PID the GCs and\n"
        "summaries of process PID only (generations[] and summary stay the whole trace's).\n"
        "--table (csv): gcs (default), generations, heaps, processes, gcstats, gen_summaries\n"
        "or summary, one record kind per table. --compat traceevent gives\n"
        "TraceEvent 4.0's numbers, its defects included (doc/stats.md). FILE may be '-' for\n"
        "standard input. Values missing from the trace print as '-' (text), empty cells\n"
        "(csv) or absent keys (json).\n"
        "Two allocation figures: \"Allocated (AllocationTick sum)\" adds up the runtime's\n"
        "allocation samples (one per ~100 KB) over the whole trace; \"Allocated (GC-observed)\",\n"
        "per process, adds what each complete GC found allocated since the GC before\n"
        "(TraceEvent's AllocedSinceLastGCMB). \"Max alloc rate\" is the highest GC-observed\n"
        "rate over at least 10 ms between GCs (--compat traceevent: TraceEvent's, over any\n"
        "interval, however short).\n" GCEV_CLI_KEEP_GOING_HELP
        "               (the GCs a skipped range touches are marked incomplete; json:\n"
        "               \"skipped\", summary \"skipped_ranges\", \"skipped_bytes\")\n"
        "--list-metrics prints every value of the analysis, per record kind: its key (JSON\n"
        "path; CSV column with '_' for '.'), unit, TraceEvent's name and definition\n"
        "(Markdown, as doc/metrics.md; --format json for programs).\n"
        "--pid attaches to a running .NET process instead and analyses its GCs until\n"
        "--duration, Ctrl-C or its end; --record FILE keeps the session's stream.\n" CLI_LIVE_OPTIONS_HELP);
}

static void progress(void *ctx, uint64_t events, uint64_t offset, uint64_t size)
{
    (void)offset;
    (void)size;
    gcev_cli_progress_at(ctx, events);
}

int gcev_cmd_stats(int argc, char **argv)
{
    const char *path = NULL, *v;
    int fmt = FMT_TEXT, m, rc;
    stats_report r = {0};
    gcev_stats_options sopts;
    memset(&sopts, 0, sizeof sopts);
    sopts.struct_size = sizeof sopts;
    cli_live_opts live;
    memset(&live, 0, sizeof live);
    live.no_stacks = 1; /* the GC analysis reads none */
    int live_opt = 0;   /* a live-session option was given */
    int keep_going = 0;
    int table_opt = 0; /* --table given */
    int list_metrics = 0;
    gcev_cli_args a;
    gcev_cli_args_init(&a, "stats", argc, argv);
    while (gcev_cli_args_next(&a)) {
        int lrc = 0, t;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--pid", &v)) != 0) {
            if (m < 0 || cli_parse_pid("stats", v, &live.pid)) {
                return GCEV_EXIT_USAGE;
            }
            live.have_pid = 1;
        } else if ((t = cli_live_option(&a, 1, &live, &lrc)) != 0) {
            if (t < 0) {
                return lrc;
            }
            live_opt = 1;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "csv", "json", NULL}; /* FMT_* order */
            if (m < 0 || (fmt = gcev_cli_choice("stats", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--compat", &v)) != 0) {
            static const char *const compat[] = {"traceevent", NULL};
            if (m < 0 || gcev_cli_choice("stats", "--compat", v, compat) < 0) {
                return GCEV_EXIT_USAGE;
            }
            sopts.traceevent_compat = 1;
        } else if (gcev_cli_flag(&a, "--keep-going")) {
            keep_going = 1;
        } else if (gcev_cli_flag(&a, "--list-metrics")) {
            list_metrics = 1;
        } else if ((m = gcev_cli_value(&a, "--table", &v)) != 0) {
            if (m < 0 || (r.csv_table = gcev_cli_choice("stats", "--table", v, stats_csv_tables)) < 0) {
                return GCEV_EXIT_USAGE;
            }
            table_opt = 1;
        } else if ((m = gcev_cli_value(&a, "--process", &v)) != 0) {
            unsigned long long n;
            if (m < 0 || !gcev_cli_number("stats", "--process", v, UINT32_MAX, 0, &n)) {
                return GCEV_EXIT_USAGE;
            }
            r.process_id = (uint32_t)n;
            r.one_process = 1;
        } else if ((m = gcev_cli_value(&a, "--gc", &v)) != 0) {
            unsigned long long n;
            if (m < 0 || !gcev_cli_number("stats", "--gc", v, UINT32_MAX, 0, &n)) {
                return GCEV_EXIT_USAGE;
            }
            r.gc_number = (uint32_t)n;
            r.one_gc = 1;
        } else if ((rc = gcev_cli_file_arg(&a, &path)) != 0) {
            return rc;
        }
    }
    if (list_metrics) {
        if (path || live.have_pid || live_opt || keep_going || table_opt || sopts.traceevent_compat ||
            r.one_gc || r.one_process || fmt == FMT_CSV) {
            return gcev_cli_fail("stats",
                                 "--list-metrics takes no FILE and no option but --format text|json");
        }
        stats_print_metrics(stdout, fmt == FMT_JSON);
        return GCEV_EXIT_OK;
    }
    if (live.have_pid && path) {
        return gcev_cli_fail("stats", "give either FILE or --pid PID, not both");
    }
    if (live_opt && !live.have_pid) {
        return gcev_cli_fail("stats",
                             "--duration, --record, --profile, --providers and --timeout need --pid");
    }
    if (!path && !live.have_pid) {
        return gcev_cli_no_file("stats");
    }
    if (table_opt && fmt != FMT_CSV) {
        return gcev_cli_fail("stats", "--table chooses a CSV table: it needs --format csv");
    }
    if (keep_going && live.have_pid) {
        return gcev_cli_fail("stats", "--keep-going reads a FILE, not a live session (--pid)");
    }
    /* the model needs timestamp order: file order interleaves threads (events of different threads
     * interleave) */
    gcev_trace_options opts = {
        .struct_size = sizeof opts,
        .order = GCEV_TRACE_ORDER_TIME,
        .keep_going = (uint32_t)keep_going,
        .no_stacks = 1 /* the GC analysis reads none: the time order then copies none */
    };
    gcev_trace *t;
    gcev_session *sess;
    char pid_label[32];
    int orc = cli_input_open("stats", &live, GCEV_TRACE_ORDER_TIME, &opts, &path, pid_label, &t, &sess);
    if (orc) {
        return orc;
    }
    if (!sess && gcev_cli_filter_gc("stats", t)) {
        /* the analysis reads the GC set; the reader skips the rest unread (it still counts) */
        gcev_trace_close(t);
        return GCEV_EXIT_USAGE;
    }
    gcev_stats *s;
    if (gcev_stats_create(&sopts, &s) != GCEV_OK) {
        cli_input_close(t, sess);
        return gcev_cli_fail("stats", "out of memory");
    }
    gcev_cli_progress pr;
    gcev_cli_progress_start(&pr, "stats", t, 0);
    gcev_error err = {0};
    gcev_status st = gcev_stats_read_trace(s, t, pr.on ? progress : NULL, &pr, &err);
    gcev_cli_progress_end(&pr);
    /* GCEV_OK is the clean end; a live session's says why it ended */
    gcev_status end = st == GCEV_OK ? GCEV_END : st;
    if (sess) {
        end = gcev_session_status(sess, end, &err);
    }
    rc = cli_input_end("stats", path, t, sess, end, &err, &r.read_error);
    r.path = path;
    r.info = gcev_trace_get_info(t);
    r.trace = t;
    r.s = s;
    if (r.one_gc && !gcev_stats_gc_find(s, r.gc_number)) {
        gcev_cli_fail("stats", "no GC number %u in %s", r.gc_number, gcev_cli_file_label(path));
        rc = GCEV_EXIT_USAGE;
    } else if (r.one_process && !gcev_stats_process_find(s, r.process_id)) {
        gcev_cli_fail("stats", "no GC events of process %u in %s", r.process_id, gcev_cli_file_label(path));
        rc = GCEV_EXIT_USAGE;
    } else if (fmt == FMT_JSON) {
        stats_print_json(stdout, &r);
    } else if (fmt == FMT_CSV) {
        stats_print_csv(stdout, &r);
    } else {
        stats_print_text(stdout, &r);
    }
    if (stats_drop_warning(&r) && fmt != FMT_TEXT) {
        /* the output carries it too; this is for the person at the terminal */
        fprintf(stderr, "gcev stats: warning: %s\n", stats_drop_warning(&r));
    }
    if (!sess && gcev_cli_report_skips("stats", path, t, "the analysis is") && rc == GCEV_EXIT_OK) {
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    gcev_stats_free(s);
    cli_input_close(t, sess);
    return rc;
}
