/* SPDX-License-Identifier: MIT */
/* gcev report's page writer, shared by every source of events (a trace file, a live session). */
#ifndef GCEV_CLI_REPORT_H
#define GCEV_CLI_REPORT_H

#include <gcev/gcev_trace.h>

/*
 * Reads every event of t (opened with GCEV_TRACE_ORDER_TIME) into a GC analysis and
 * writes its HTML page (gcev_report.h) to out_path ("-": standard output). source
 * names what t reads in the page and in messages (a path, "pid 1234"). A trace
 * error after some events still writes the page, which then warns that it is
 * partial. The heap and allocation sections come from a second reading of the file
 * again_path (the trace file itself, or a live session's --record file; NULL: none).
 * Prints "gcev <cmd>: ..." messages; returns the exit status (0, 1 after a trace or
 * write error, 2 when out_path cannot be created).
 */
int gcev_cli_report_trace(const char *cmd, const char *source, const char *again_path, gcev_trace *t,
                          const char *out_path);

#endif
