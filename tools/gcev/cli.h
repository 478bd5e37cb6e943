/* SPDX-License-Identifier: MIT */
/* Helpers shared by the subcommands of the gcev command-line tool (public API only). */
#ifndef GCEV_CLI_H
#define GCEV_CLI_H

#include <gcev/gcev.h>
#include <stdio.h>

/* Exit statuses shared by every subcommand. */
enum { GCEV_EXIT_OK = 0, GCEV_EXIT_TRACE_ERROR = 1, GCEV_EXIT_USAGE = 2 };

/* "gcev <cmd>: <message>" on stderr; returns GCEV_EXIT_USAGE. */
int gcev_cli_fail(const char *cmd, const char *fmt, ...);

/*
 * Index of `value` in the NULL-terminated `names`; otherwise prints
 * "gcev <cmd>: <option> must be a, b or c, not 'value'" and returns -1.
 */
int gcev_cli_choice(const char *cmd, const char *option, const char *value, const char *const *names);

/*
 * An argument that is not one of the command's options: the single FILE, or an
 * error for an unknown option or a second FILE. Returns 0 (taken) or the exit
 * status to return.
 */
int gcev_cli_file_arg(const char *cmd, const char *arg, const char **path);

/* Formats with the snprintf-style formatter into a malloc'ed string (NULL on OOM). */
char *gcev_cli_format(size_t (*fn)(const gcev_event *, char *, size_t), const gcev_event *ev);

/* Writes s as a JSON string literal (UTF-8 passed through, controls escaped). */
void gcev_cli_json_string(FILE *out, const char *s);

/* The manifest symbol of an event description ("GCStart_V2"); "" for NULL. */
const char *gcev_cli_symbol(const gcev_event_desc *d);
/* The name of a provider; "" for NULL. */
const char *gcev_cli_provider_name(const gcev_provider *p);

#endif
