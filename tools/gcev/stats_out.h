/* SPDX-License-Identifier: MIT */
/* gcev stats output: one file per format, over a finished gcev_stats model. */
#ifndef GCEV_STATS_OUT_H
#define GCEV_STATS_OUT_H

#include <gcev/gcev_stats.h>
#include <stdio.h>

typedef struct stats_report {
    const char *path;
    const gcev_trace_info *info;
    const gcev_stats *s;
    int one_gc; /* --gc N given */
    uint32_t gc_number;
    const char *read_error;  /* the trace ended with this error (output is partial), or NULL */
    const gcev_trace *trace; /* the trace read (its skipped ranges, --keep-going), or NULL */
    int csv_table;           /* CSV: index in stats_csv_tables (--table), 0 gcs */
    int one_process;         /* --process PID given */
    uint32_t process_id;
} stats_report;

/* CSV tables (--table), NULL-terminated; gcs first. */
extern const char *const stats_csv_tables[];

/* The families whose counts are listed as "events seen" (which events a trace holds differs per platform and
 * provider set). */
extern const uint16_t stats_seen_families[];
extern const size_t stats_seen_family_count;

/* The warning every format carries when events were dropped, or NULL. */
const char *stats_drop_warning(const stats_report *r);
/* The warning every format carries when damaged ranges were skipped (--keep-going), or NULL. */
const char *stats_skip_warning(const stats_report *r);
/* Whether the trace was read whole: no events dropped, nothing skipped, no read error, no table limit hit
 * (JSON "complete", CSV "trace_complete"). */
int stats_complete(const stats_report *r);
/* Whether GC g is printed (all, or only --gc N, only of --process PID). */
int stats_selected(const stats_report *r, const gcev_stats_gc *g);
/* Whether the process is printed (all, or only --process PID). */
int stats_process_selected(const stats_report *r, uint32_t process_id);
/* Sum over generations of a gen_heap member: returns 0 when no generation has the bit. */
int stats_heap_total(const gcev_stats *s, const gcev_stats_gc *g, uint32_t bit, size_t member_offset,
                     uint64_t *out);

void stats_print_text(FILE *f, const stats_report *r);
void stats_print_json(FILE *f, const stats_report *r);
/* One GC as an element of stats JSON's "gcs" array (one line, no newline): what `gcev watch
 * --format jsonl` prints per GC too, so both speak the same keys. */
void stats_print_gc_json(FILE *f, const gcev_stats *s, const gcev_stats_gc *g);
void stats_print_csv(FILE *f, const stats_report *r);
/* `gcev stats --list-metrics`: the metric tables as Markdown (doc/metrics.md), or JSON. */
void stats_print_metrics(FILE *f, int json);

#endif
