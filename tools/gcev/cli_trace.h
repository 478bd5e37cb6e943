/* SPDX-License-Identifier: MIT */
/* Helpers shared by the trace subcommands (count, dump). */
#ifndef GCEV_CLI_TRACE_H
#define GCEV_CLI_TRACE_H

#include <gcev/gcev_trace.h>

#include "cli.h"
#include <stddef.h>
#include <stdio.h>

/* Opens FILE, or standard input for "-"; prints the error and returns nonzero on failure. */
int gcev_cli_open_trace(const char *cmd, const char *path, const gcev_trace_options *opts, gcev_trace **out);
/* The provider as users name it: its name, else the GUID (lowercase 8-4-4-4-12), else "". */
const char *gcev_cli_provider_label(const gcev_trace_event *ev, char guid_buf[37]);
/* The compiled descriptor of the event, or NULL (no schema for this provider/id/version). */
const gcev_event_desc *gcev_cli_event_desc(const gcev_trace_event *ev);
/* The event's name: the compiled symbol, else the trace's own name. */
const char *gcev_cli_event_name(const gcev_trace_event *ev);
/*
 * What the CLI prints for an event's kind (its metadata record and version): the
 * provider label, the event name and the compiled descriptor, worked out once per
 * kind (ev->kind) and kept, so walking a trace does no string work per event. `row`
 * is the caller's (gcev count's table row); SIZE_MAX until it sets it.
 */
typedef struct gcev_cli_kind {
    const void *key; /* ev->kind, NULL for an unused slot */
    uint16_t version;
    const gcev_event_desc *desc;
    char *provider; /* copies owned by the cache (the event's own strings for an event
                       without a kind, valid as long as the event) */
    char *name;
    size_t row;
} gcev_cli_kind;

typedef struct gcev_cli_kinds {
    gcev_cli_kind *slots; /* open addressing by (key, version) */
    size_t cap, n;
    gcev_cli_kind scratch; /* the answer for an event without a kind (not kept) */
    char guid[37];         /* its provider's GUID text */
    gcev_cli_kind *last;   /* the previous event's (consecutive events often share one) */
} gcev_cli_kinds;

gcev_cli_kind *gcev_cli_kind_find(gcev_cli_kinds *k, const gcev_trace_event *ev);

/* The kind of ev (cached when ev->kind is set); NULL when out of memory. The result
 * lives until gcev_cli_kinds_free(), or for an event without a kind until the next
 * call and as long as the event. */
static inline gcev_cli_kind *gcev_cli_kind_of(gcev_cli_kinds *k, const gcev_trace_event *ev)
{
    gcev_cli_kind *x = k->last;
    if (ev->kind && x && x->key == ev->kind && x->version == ev->version) {
        return x;
    }
    return gcev_cli_kind_find(k, ev);
}
void gcev_cli_kinds_free(gcev_cli_kinds *k);

/*
 * Prints a trace error as "gcev <cmd>: FILE: <what> at offset N": <what> is the
 * reader's message (after the status when the message does not already say it),
 * then the OS's reason for an I/O error (asked again of t: an I/O error is sticky
 * and sets errno each time gcev_trace_next returns it).
 */
void gcev_cli_trace_error(const char *cmd, const char *path, gcev_trace *t, gcev_status st,
                          const gcev_error *err);

/*
 * --keep-going (gcev_trace_options.keep_going): the ranges the reader skipped. On stderr,
 * one line per recorded range, "gcev <cmd>: FILE: skipped N bytes at offset O: <fault>",
 * then "gcev <cmd>: FILE: K damaged ranges skipped (B bytes): <what> is incomplete" (those
 * past the reader's records are counted there). Returns 1 when anything was skipped (the
 * command then exits 1), else 0.
 */
int gcev_cli_report_skips(const char *cmd, const char *path, const gcev_trace *t, const char *what);
/* A skipped range as a JSON object: {"offset","bytes","reason","fault_offset","message"}. */
void gcev_cli_skip_json(FILE *f, const gcev_trace_skip *k);
/* The recorded ranges as a JSON array. */
void gcev_cli_skips_json(FILE *f, const gcev_trace *t);
/*
 * The trace filter options of count and dump (gcev_trace_set_filter): --gc-only (the GC set,
 * GCEV_TRACE_FILTER_GC), --provider NAME|GUID (repeatable), --keywords K, --level N.
 */
enum { GCEV_CLI_MAX_PROVIDERS = 64 };
typedef struct gcev_cli_filter {
    gcev_trace_filter f;
    const char *providers[GCEV_CLI_MAX_PROVIDERS];
    int given; /* an option was given: the filter is set */
} gcev_cli_filter;
/* 1 when the current argument is one of these options (taken), 0 when it is another, -1 after
 * a usage error was printed. */
int gcev_cli_filter_arg(gcev_cli_args *a, const char *cmd, gcev_cli_filter *cf);
/* Sets the filter on t when an option was given; 0, or nonzero after printing why not. */
int gcev_cli_filter_apply(const char *cmd, gcev_cli_filter *cf, gcev_trace *t);
/* Sets the GC set as t's filter (stats, report: the events the analysis reads); 0, or nonzero
 * after printing why not. */
int gcev_cli_filter_gc(const char *cmd, gcev_trace *t);
#define GCEV_CLI_FILTER_HELP                                                                                 \
    "  --provider P only events of provider P (name or GUID; repeatable)\n"                                  \
    "  --keywords K only events with one of the keyword bits K (hex with 0x, or decimal)\n"                  \
    "  --level N    only events of level N or more important (1 Critical .. 5 Verbose;\n"                    \
    "               level 0 and events without a level pass)\n"                                              \
    "               (events that are not wanted are skipped by the reader, unread)\n"

/* The --help text of --keep-going, shared by count, dump and stats. */
#define GCEV_CLI_KEEP_GOING_HELP                                                                             \
    "  --keep-going read past damage: a corrupt block or buffer is skipped to the next one the\n"            \
    "               format lets gcev find, and each skipped range (offset, bytes, reason) is\n"              \
    "               reported on standard error (and in the JSON); the exit status is then 1, as\n"           \
    "               the output is incomplete\n"

#endif
