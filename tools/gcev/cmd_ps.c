/* SPDX-License-Identifier: MIT */
/*
 * gcev ps [--format text|jsonl] [--timeout S]
 * The .NET processes this user can attach to: pid, runtime version, command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_session.h>

#include "cli.h"
#include "commands.h"

enum { FMT_TEXT, FMT_JSONL };

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev ps [--format text|jsonl] [--timeout S]\n"
               "Lists the .NET processes this user can attach to (as root: all) with their runtime\n"
               "version and command line, asked over each one's diagnostic socket (ProcessInfo2).\n"
               "  --format F     text (default) or jsonl\n"
               "  --timeout S    wait at most S seconds for each process's answer (default 2)\n");
}

int gcev_cmd_ps(int argc, char **argv)
{
    int fmt = FMT_TEXT;
    uint32_t timeout_ms = 2000;
    gcev_cli_args a;
    gcev_cli_args_init(&a, "ps", argc, argv);
    while (gcev_cli_args_next(&a)) {
        const char *v;
        int m;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "jsonl", NULL}; /* FMT_* order */
            if (m < 0 || (fmt = gcev_cli_choice("ps", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--timeout", &v)) != 0) {
            char *end;
            double s = m > 0 ? strtod(v, &end) : 0;
            if (m < 0 || end == v || *end || !(s > 0) || s > 1e6) {
                return m < 0 ? GCEV_EXIT_USAGE
                             : gcev_cli_fail("ps", "--timeout needs a number of seconds, not '%s'", v);
            }
            timeout_ms = (uint32_t)(s * 1000.0 + 0.5);
        } else {
            return gcev_cli_fail("ps", "unknown argument '%s' (see 'gcev ps --help')", a.arg);
        }
    }
    uint32_t *pids;
    size_t n;
    if (gcev_process_list(&pids, &n) != GCEV_OK) {
        return gcev_cli_fail("ps", "out of memory");
    }
    if (fmt == FMT_TEXT) {
        printf("%8s  %-16s %s\n", "PID", "RUNTIME", "COMMAND");
    }
    for (size_t i = 0; i < n; i++) {
        gcev_process_info *p;
        gcev_error err = {0};
        gcev_status st = gcev_process_query(pids[i], timeout_ms, &p, &err);
        if (st == GCEV_E_NO_PROCESS || st == GCEV_E_NOT_DOTNET) {
            continue; /* exited since the listing */
        }
        if (fmt == FMT_JSONL) {
            printf("{\"pid\":%u", pids[i]);
            if (st == GCEV_OK) {
                printf(",\"ns_pid\":%u,\"runtime_version\":", p->ns_pid);
                gcev_cli_json_string(stdout, p->runtime_version);
                printf(",\"arch\":");
                gcev_cli_json_string(stdout, p->arch);
                printf(",\"command_line\":");
                gcev_cli_json_string(stdout, p->command_line);
                printf(",\"socket\":");
                gcev_cli_json_string(stdout, p->socket_path);
            } else {
                printf(",\"error\":");
                gcev_cli_json_string(stdout, err.message ? err.message : gcev_status_str(st));
            }
            printf(",\"json_version\":%d}\n", GCEV_JSON_VERSION_PS);
        } else if (st == GCEV_OK) {
            printf("%8u  %-16s %s\n", pids[i], p->runtime_version[0] ? p->runtime_version : "?",
                   p->command_line);
        } else {
            printf("%8u  %-16s (%s)\n", pids[i], "?", err.message ? err.message : gcev_status_str(st));
        }
        gcev_process_info_free(st == GCEV_OK ? p : NULL);
    }
    gcev_process_list_free(pids);
    return GCEV_EXIT_OK;
}
