/* SPDX-License-Identifier: MIT */
/* Helpers shared by the trace subcommands (count, dump). */
#ifndef GCEV_CLI_TRACE_H
#define GCEV_CLI_TRACE_H

#include <gcev/gcev_trace.h>

/* Opens FILE, or standard input for "-"; prints the error and returns nonzero on failure. */
int gcev_cli_open_trace(const char *cmd, const char *path, const gcev_trace_options *opts, gcev_trace **out);
/* The provider as users name it: its name, else the GUID (lowercase 8-4-4-4-12), else "". */
const char *gcev_cli_provider_label(const gcev_trace_event *ev, char guid_buf[37]);
/* The compiled descriptor of the event, or NULL (no schema for this provider/id/version). */
const gcev_event_desc *gcev_cli_event_desc(const gcev_trace_event *ev);
/* The event's name: the compiled symbol, else the trace's own name. */
const char *gcev_cli_event_name(const gcev_trace_event *ev);
/*
 * Prints a trace error as "gcev <cmd>: FILE: <what> at offset N": <what> is the
 * reader's message (after the status when the message does not already say it),
 * then the OS's reason for an I/O error (asked again of t: an I/O error is sticky
 * and sets errno each time gcev_trace_next returns it).
 */
void gcev_cli_trace_error(const char *cmd, const char *path, gcev_trace *t, gcev_status st,
                          const gcev_error *err);

#endif
