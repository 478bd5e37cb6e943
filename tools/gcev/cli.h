/* SPDX-License-Identifier: MIT */
/* Helpers shared by the subcommands of the gcev command-line tool (public API only). */
#ifndef GCEV_CLI_H
#define GCEV_CLI_H

#include <gcev/gcev.h>
#include <stdio.h>

/* Exit statuses shared by every subcommand (3 and up: live sessions, cli_session.h). */
enum {
    GCEV_EXIT_OK = 0,
    GCEV_EXIT_TRACE_ERROR = 1,
    GCEV_EXIT_USAGE = 2,
    GCEV_EXIT_NO_PROCESS = 3, /* no process with that pid */
    GCEV_EXIT_NOT_DOTNET = 4, /* no .NET diagnostic socket for it */
    GCEV_EXIT_PERMISSION = 5, /* its socket belongs to another user */
    GCEV_EXIT_REFUSED = 6,    /* the runtime answered with an error (HRESULT) */
    GCEV_EXIT_TIMEOUT = 7,    /* the runtime did not answer in time */
    GCEV_EXIT_EXITED = 8      /* the process died during the session: its last block is lost */
};

/* "gcev <cmd>: <message>" on stderr; returns GCEV_EXIT_USAGE. */
int gcev_cli_fail(const char *cmd, const char *fmt, ...);

/*
 * The arguments of a subcommand, argv[0] being its name: options as "--name value"
 * or "--name=value"; "--" ends the options (every later argument is an operand,
 * so a FILE may start with '-').
 *
 *   gcev_cli_args a;
 *   gcev_cli_args_init(&a, "count", argc, argv);
 *   while (gcev_cli_args_next(&a)) {
 *       if (gcev_cli_flag(&a, "--help")) ...
 *       else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) { if (m < 0) return 2; ... }
 *       else if ((rc = gcev_cli_file_arg(&a, &path)) != 0) return rc;
 *   }
 */
typedef struct gcev_cli_args {
    const char *cmd;
    int argc;
    char **argv;
    int next;          /* index of the next argument */
    int operands_only; /* "--" seen */
    const char *arg;   /* the current argument */
} gcev_cli_args;

void gcev_cli_args_init(gcev_cli_args *a, const char *cmd, int argc, char **argv);
/* Moves to the next argument (skipping the first "--"): 1, or 0 when there is none. */
int gcev_cli_args_next(gcev_cli_args *a);
/* Whether the current argument is the option `name` without a value ("--gc-only"). */
int gcev_cli_flag(const gcev_cli_args *a, const char *name);
/*
 * Whether the current argument is the option `name` with a value: 1 with *value set
 * ("--name=value", or the next argument, which is then consumed), 0 when it is
 * another argument, -1 when the value is missing ("gcev <cmd>: --name needs a value"
 * printed).
 */
int gcev_cli_value(gcev_cli_args *a, const char *name, const char **value);
/*
 * An unsigned number in 0..max for `option`: 1 with *out set, else 0 after
 * "gcev <cmd>: <option> needs a number, not 'x'" or "... <option> x is out of range
 * (0 to max)". Decimal, or 0x-prefixed hex when hex is nonzero.
 */
int gcev_cli_number(const char *cmd, const char *option, const char *text, unsigned long long max, int hex,
                    unsigned long long *out);

/*
 * Index of `value` in the NULL-terminated `names`; otherwise prints
 * "gcev <cmd>: <option> must be a, b or c, not 'value'" and returns -1.
 */
int gcev_cli_choice(const char *cmd, const char *option, const char *value, const char *const *names);

/*
 * The current argument when it is none of the command's options: the single FILE,
 * or an error for an unknown option or a second FILE. Returns 0 (taken) or the exit
 * status to return.
 */
int gcev_cli_file_arg(const gcev_cli_args *a, const char **path);
/* "gcev <cmd>: no FILE given (...)": the FILE operand is missing. Returns GCEV_EXIT_USAGE. */
int gcev_cli_no_file(const char *cmd);
/* How messages name a FILE operand: the path, or "standard input" for "-". */
const char *gcev_cli_file_label(const char *path);

/*
 * Standard output: whether a write to it has failed so far (the OS's reason is
 * kept for gcev_cli_finish_output). Commands that write much check it as they go.
 */
int gcev_cli_out_failed(void);
/*
 * Flushes and closes standard output. On a write error anywhere (earlier writes,
 * the flush or the close) prints "gcev <cmd>: write error: <OS reason>" and
 * returns GCEV_EXIT_TRACE_ERROR (or rc when rc is already a failure); else rc.
 */
int gcev_cli_finish_output(const char *cmd, int rc);

/* Formats with the snprintf-style formatter into a malloc'ed string (NULL on OOM). */
char *gcev_cli_format(size_t (*fn)(const gcev_event *, char *, size_t), const gcev_event *ev);

/*
 * The layout version each command's JSON carries as "json_version" (in every object a
 * command prints at top level: each line of dump's JSONL, each element of schema's array).
 * A change of a command's keys or of what their values mean bumps its version and is
 * recorded in CHANGELOG.md.
 */
enum {
    GCEV_JSON_VERSION_COUNT = 2, /* 2: skipped_ranges, skipped_bytes, skipped (--keep-going) */
    GCEV_JSON_VERSION_DECODE = 1,
    GCEV_JSON_VERSION_DUMP = 2, /* 2: {"skipped":{...}} lines (--keep-going) */
    GCEV_JSON_VERSION_SCHEMA = 1,
    GCEV_JSON_VERSION_PS = 1, /* ps --format jsonl, each line */
    GCEV_JSON_VERSION_WATCH =
        2, /* watch --format jsonl, each GC line and the summary (2: {"gc":{stats keys}}) */
    GCEV_JSON_VERSION_STATS = 4 /* 2: TraceEvent's metrics, per-heap records, processes;
                                 * 3: skipped, summary.skipped_ranges / skipped_bytes (--keep-going);
                                 * 4: handles/segments count each operation once (created = creations),
                                 * reassigned, merged_events, unmatched_after_loss */
};

/* Writes s as a JSON string literal (base's escaper: valid UTF-8 passed through, ill-formed
 * bytes as U+FFFD, controls escaped). */
void gcev_cli_json_string(FILE *out, const char *s);
/* The same without the quotes (a part of a longer string). */
void gcev_cli_json_chars(FILE *out, const char *s);

/* The manifest symbol of an event description ("GCStart_V2"); "" for NULL. */
const char *gcev_cli_symbol(const gcev_event_desc *d);
/* The name of a provider; "" for NULL. */
const char *gcev_cli_provider_name(const gcev_provider *p);

#endif
