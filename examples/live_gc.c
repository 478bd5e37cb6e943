/* SPDX-License-Identifier: MIT */
/*
 * Watch a running .NET process's GC pauses live with the session API
 * (gcev_session.h) and the GC analysis model's GC-end callback (gcev_stats.h):
 * attach, print each GC's pause as the model closes the GC, stop cleanly on
 * Ctrl-C (SIGINT) or SIGTERM.
 *
 *   live_gc PID
 *
 * The session is read in GCEV_TRACE_ORDER_STREAM: timestamp order, released at
 * the runtime's ~100 ms flushes. The model decides what a pause is (background
 * GCs included): the numbers are those `gcev stats` gives. (gcev watch does the
 * full job: heap sizes, promoted bytes, a summary.)
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev.h>
#include <gcev/gcev_session.h>
#include <gcev/gcev_stats.h>

static gcev_session *volatile session;

static void on_signal(int sig)
{
    (void)sig;
    gcev_session_request_stop(session); /* async-signal-safe: the read below then ends */
}

static void on_gc(void *ctx, const gcev_stats *s, const gcev_stats_gc *g)
{
    (void)ctx;
    (void)s;
    const char *reason = (g->present & GCEV_STATS_GC_HAS_REASON) ? gcev_gc_reason_name(g->reason) : NULL;
    const char *type = (g->present & GCEV_STATS_GC_HAS_TYPE) ? gcev_stats_gc_type_name(g->type) : NULL;
    if (g->present & GCEV_STATS_GC_HAS_PAUSE) {
        printf("GC %u gen %u %s (%s): pause %.3f ms\n", g->number, g->generation, type ? type : "?",
               reason ? reason : "?", g->pause_ms);
    } else {
        printf("GC %u gen %u %s (%s): pause unknown\n", g->number, g->generation, type ? type : "?",
               reason ? reason : "?");
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: live_gc PID\n");
        return 2;
    }
    gcev_session_options opts = {.struct_size = sizeof opts}; /* dotnet-trace's gc-collect profile */
    gcev_trace_options to = {.struct_size = sizeof to, .order = GCEV_TRACE_ORDER_STREAM};
    opts.trace = &to;
    gcev_error err = {0};
    gcev_stats *model;
    if (gcev_stats_create(NULL, &model) != GCEV_OK ||
        gcev_stats_set_gc_callback(model, on_gc, NULL) != GCEV_OK) {
        fprintf(stderr, "live_gc: out of memory\n");
        return 1;
    }
    gcev_session *s;
    gcev_status st = gcev_session_open((uint32_t)strtoul(argv[1], NULL, 10), &opts, &s, &err);
    if (st != GCEV_OK) {
        fprintf(stderr, "live_gc: %s: %s\n", gcev_status_str(st), err.message);
        gcev_stats_free(model);
        return 1;
    }
    session = s;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const gcev_session_info *info = gcev_session_get_info(s);
    printf("attached to %u, .NET %s; Ctrl-C stops\n", info->process->pid, info->process->runtime_version);
    fflush(stdout);

    /* every event into the model; on_gc prints each GC it closes, the last ones at the end */
    st = gcev_stats_read_trace(model, gcev_session_trace(s), NULL, NULL, &err);
    st = gcev_session_status(s, st == GCEV_OK ? GCEV_END : st, &err);
    if (st != GCEV_END) {
        fprintf(stderr, "live_gc: %s: %s\n", gcev_status_str(st), err.message);
    }
    gcev_session_close(s);
    gcev_stats_free(model);
    return st == GCEV_END ? 0 : 1;
}
