/* SPDX-License-Identifier: MIT */
/* Helpers shared by the live-session subcommands (ps, watch, record, stats --pid). */
#ifndef GCEV_CLI_SESSION_H
#define GCEV_CLI_SESSION_H

#include <gcev/gcev.h>
#include <gcev/gcev_session.h>

#include "cli.h"

typedef struct cli_live_opts {
    uint32_t pid;
    int have_pid;
    uint32_t duration_ms; /* 0: until Ctrl-C or the process ends */
    const char *record;   /* --record FILE / -o FILE */
    uint32_t profile;     /* gcev_session_profile */
    uint32_t timeout_ms;  /* --timeout S */
    uint32_t buffer_mb;   /* --buffer MB: the runtime's circular buffer (0: 256) */
    /* --providers NAME:KEYWORDS:LEVEL[:ARGS] (repeatable): a custom session instead of a profile */
    gcev_session_provider providers[16];
    size_t nproviders;
    /* set by a command that never reads a stack: the runtime is then asked for none (each costs
     * the process a stack walk per event), unless --record keeps the stream for other tools */
    int no_stacks;
} cli_live_opts;

/* The options every live command takes, one line each, for the usage texts. */
#define CLI_LIVE_OPTIONS_HELP                                                                                \
    "  --duration S   stop after S seconds (default: at Ctrl-C, or when the process exits)\n"                \
    "  --profile P    gc-collect (default: GC events at Informational level, as dotnet-trace's\n"            \
    "                 profile), gc-verbose (also allocation ticks, GC handles, pins, joins) or heap\n"       \
    "                 (a heap dump: the runtime forces a full blocking GC; see gcev heap)\n"                 \
    "  --timeout S    wait at most S seconds for each answer of the runtime (default 5)\n"                   \
    "  --providers NAME:KEYWORDS:LEVEL[:ARGS]  instead of a profile, this provider (repeatable; keywords\n"  \
    "                 in hex or decimal, level 0-5; the default rundown)\n"

/* Parses a pid; prints the error and returns GCEV_EXIT_USAGE when s is not one, else 0. */
int cli_parse_pid(const char *cmd, const char *s, uint32_t *pid);

/*
 * The current argument as one of --duration, --profile, --timeout, --buffer, --providers and
 * (when allow_record) --record, with its value ("--name value" or "--name=value").
 * Returns 1 when taken, 0 when not one of them, or -1 after printing an error
 * (*rc = the exit status).
 */
int cli_live_option(gcev_cli_args *a, int allow_record, cli_live_opts *o, int *rc);

/*
 * The current argument when it is none of the command's options: the PID operand,
 * or an error for an unknown option, a second PID or one that is not a number.
 * Returns 0 (taken) or the exit status to return.
 */
int cli_live_pid_arg(const gcev_cli_args *a, cli_live_opts *o);

/*
 * Attaches (gcev_session_open) with the options and the trace order; on
 * success SIGINT and SIGTERM ask the session to stop (a second one ends gcev
 * at once) and a line "attached to ..." goes to stderr. Returns 0, or prints
 * the error and returns its exit status.
 */
int cli_live_open(const char *cmd, const cli_live_opts *o, uint32_t order, gcev_session **out);

/*
 * The end of a session: maps the last status to an exit status and prints
 * what happened (nothing for a stop we asked for; a note when the process ended
 * the session by itself; the error otherwise).
 */
int cli_live_end(const char *cmd, gcev_session *s, gcev_status st, const gcev_error *err);

/* Closes the session and restores the signal handlers. */
void cli_live_close(gcev_session *s);

/*
 * What an analysis command reads: a live session when o->have_pid (cli_live_open() with
 * order; *sess is then the session, *t its trace and *path "pid N", written into label),
 * else the trace file *path opened with opts (*sess NULL). Returns 0, or the exit status
 * after printing the error. cli_input_close() closes either.
 */
int cli_input_open(const char *cmd, const cli_live_opts *o, uint32_t order, const gcev_trace_options *opts,
                   const char **path, char label[32], gcev_trace **t, gcev_session **sess);
void cli_input_close(gcev_trace *t, gcev_session *sess);
/*
 * How reading that input ended: st is GCEV_END for the clean end, else the error (a
 * session's status, as gcev_session_next() or gcev_session_status() gives it). Prints what
 * happened (cli_live_end(), gcev_cli_trace_error()), points *read_error at the error's
 * message (left as it was when there is none) and returns the exit status.
 */
int cli_input_end(const char *cmd, const char *path, gcev_trace *t, gcev_session *sess, gcev_status st,
                  gcev_error *err, const char **read_error);

#endif
