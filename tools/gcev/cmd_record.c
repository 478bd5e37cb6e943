/* SPDX-License-Identifier: MIT */
/*
 * gcev record PID -o FILE.nettrace [--profile gc-collect|gc-verbose] [--duration S] [--timeout S]
 * Writes a live session's stream to a .nettrace file (gcev and TraceEvent read it), reading
 * it meanwhile so that a malformed or cut-off stream is reported, not silently kept.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_allocs.h"
#include "cli_session.h"
#include "commands.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev record PID -o FILE.nettrace [--profile P] [--duration S] [--timeout S]\n"
               "--profile allocations records what gcev allocs needs: AllocationSampled (.NET 10)\n"
               "or AllocationTick, with stacks and the method events that name their frames.\n"
               "Records a running .NET process's GC events to a .nettrace file until --duration,\n"
               "Ctrl-C or the end of the process; the session is then stopped and the rundown\n"
               "written, so the file is complete. A summary goes to stderr.\n"
               "  -o FILE        the file to write (created or replaced)\n" CLI_LIVE_OPTIONS_HELP);
}

/* Runtime event ids counted in the summary. */
enum { EV_GC_START = 1 };

int gcev_cmd_record(int argc, char **argv)
{
    cli_live_opts o;
    memset(&o, 0, sizeof o);
    int allocations = 0; /* --profile allocations */
    gcev_cli_args a;
    gcev_cli_args_init(&a, "record", argc, argv);
    while (gcev_cli_args_next(&a)) {
        const char *v;
        int rc = 0, m, t;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if (cli_allocs_profile_option(&a)) {
            allocations = 1;
        } else if ((t = cli_live_option(&a, 0, &o, &rc)) != 0) {
            if (t < 0) {
                return rc;
            }
        } else if ((m = gcev_cli_value(&a, "-o", &v)) != 0 || (m = gcev_cli_value(&a, "--output", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            o.record = v;
        } else if ((rc = cli_live_pid_arg(&a, &o)) != 0) {
            return rc;
        }
    }
    if (!o.have_pid || !o.record) {
        usage(stderr);
        return GCEV_EXIT_USAGE;
    }
    if (allocations && !o.nproviders) {
        cli_allocs_providers(&o);
    }
    gcev_session *s;
    int rc = cli_live_open("record", &o, GCEV_TRACE_ORDER_FILE, &s);
    if (rc) {
        return rc;
    }
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    uint64_t events = 0, gcs = 0;
    while ((st = gcev_session_next(s, &ev, &err)) == GCEV_OK) {
        events++;
        if (ev.event_id == EV_GC_START && ev.provider_name &&
            !strcmp(ev.provider_name, "Microsoft-Windows-DotNETRuntime")) {
            gcs++;
        }
    }
    const gcev_session_info *in = gcev_session_get_info(s);
    uint64_t dropped = gcev_trace_dropped_events(gcev_session_trace(s));
    fprintf(stderr, "gcev record: %s: %llu bytes, %llu events, %llu GCs started", o.record,
            (unsigned long long)in->bytes, (unsigned long long)events, (unsigned long long)gcs);
    if (dropped) {
        fprintf(stderr, ", %llu events DROPPED by the runtime", (unsigned long long)dropped);
    }
    fprintf(stderr, "%s\n", st == GCEV_END ? "" : " (incomplete: see below)");
    rc = cli_live_end("record", s, st, &err);
    cli_live_close(s);
    return rc;
}
