/* SPDX-License-Identifier: MIT */
/*
 * Watch a running .NET process's GC pauses live with the session API
 * (gcev_session.h): attach, print each GC's pause as the runtime restarts the
 * program after it, stop cleanly on Ctrl-C (SIGINT) or SIGTERM.
 *
 *   live_gc PID
 *
 * A pause is SuspendEEBegin -> RestartEEEnd on one thread, the GC the one whose
 * GCStart came inside it. (gcev watch does the full job: background GCs, heap
 * sizes, promoted bytes, a summary; gcev_stats.h analyses a whole trace.)
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev.h>
#include <gcev/gcev_session.h>

static gcev_session *volatile session;

static void on_signal(int sig)
{
    (void)sig;
    gcev_session_request_stop(session); /* async-signal-safe: the loop below then ends */
}

/* Microsoft-Windows-DotNETRuntime event ids used here. */
enum { GC_START = 1, RESTART_EE_END = 3, SUSPEND_EE_BEGIN = 9 };

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: live_gc PID\n");
        return 2;
    }
    gcev_session_options opts = {0}; /* dotnet-trace's gc-collect profile */
    gcev_error err = {0};
    gcev_session *s;
    gcev_status st = gcev_session_open((uint32_t)strtoul(argv[1], NULL, 10), &opts, &s, &err);
    if (st != GCEV_OK) {
        fprintf(stderr, "live_gc: %s: %s\n", gcev_status_str(st), err.message);
        return 1;
    }
    session = s;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const gcev_session_info *info = gcev_session_get_info(s);
    printf("attached to %u, .NET %s; Ctrl-C stops\n", info->process.pid, info->process.runtime_version);
    fflush(stdout);

    /* one suspension at a time is enough for workstation GC */
    uint64_t suspend_tid = 0;
    double suspend_ms = -1;
    gcev_gc_start gc = {0};
    int have_gc = 0;
    gcev_trace_event ev;
    while ((st = gcev_session_next(s, &ev, &err)) == GCEV_OK) {
        if (strcmp(ev.provider_name, "Microsoft-Windows-DotNETRuntime") != 0) {
            continue;
        }
        if (ev.event_id == SUSPEND_EE_BEGIN) {
            suspend_tid = ev.thread_id;
            suspend_ms = ev.ms;
            have_gc = 0;
        } else if (ev.event_id == GC_START && suspend_ms >= 0 &&
                   gcev_decode_gc_start(ev.payload, ev.payload_size, ev.version, ev.pointer_size, &gc, NULL,
                                        NULL) == GCEV_OK) {
            have_gc = 1;
        } else if (ev.event_id == RESTART_EE_END && ev.thread_id == suspend_tid && suspend_ms >= 0) {
            if (have_gc) {
                const char *reason = gcev_gc_reason_map_name(gc.reason);
                printf("GC %u gen %u (%s): pause %.3f ms\n", gc.count, gc.depth, reason ? reason : "?",
                       ev.ms - suspend_ms);
                fflush(stdout);
            }
            suspend_ms = -1;
        }
    }
    if (st != GCEV_END) {
        fprintf(stderr, "live_gc: %s: %s\n", gcev_status_str(st), err.message);
    }
    gcev_session_close(s);
    return st == GCEV_END ? 0 : 1;
}
