/* SPDX-License-Identifier: MIT */
/*
 * gcev serve's metrics: the one table of every metric family the exporter writes (name,
 * type, unit, labels, which gcev_stats_gc member or present bit feeds it, help). The
 * exposition writer (serve_expo.c), `gcev serve --list-metrics`, the man page and README's
 * list all follow it; tests/serve compares README's list with --list-metrics.
 */
#ifndef GCEV_SERVE_METRICS_H
#define GCEV_SERVE_METRICS_H

#include <stdio.h>

typedef enum serve_metric_type { SERVE_COUNTER, SERVE_GAUGE, SERVE_HISTOGRAM } serve_metric_type;

/* Every family, in exposition order (serve_metrics[] rows, by this index). */
typedef enum serve_metric_id {
    SM_GCS,
    SM_GCS_INCOMPLETE,
    SM_PAUSE,
    SM_SUSPENSION,
    SM_PAUSE_RATIO,
    SM_PROMOTED,
    SM_ALLOCATED,
    SM_HEAP_SIZE,
    SM_HEAP_FRAG,
    SM_COMMITTED,
    SM_HEAPS,
    SM_DATAS_HEAPS,
    SM_EVENTS,
    SM_DROPPED,
    SM_STATE,
    SM_ATTACHES,
    SM_RECYCLES,
    SM_SERVE_CPU,
    SM_SERVE_RSS,
    SM_SERVE_SESSIONS,
    SM_SERVE_UNWATCHED,
    SM_SERVE_SCRAPE,
    SM_SERVE_SCRAPES,
    SM_COUNT
} serve_metric_id;

typedef struct serve_metric {
    serve_metric_id id;
    const char *family; /* the family name; counters' samples add "_total" */
    serve_metric_type type;
    const char *unit;   /* OpenMetrics unit (the name's suffix), "" when none */
    const char *labels; /* labels beyond the process labels ("PROC" = pid, process,
                         * runtime_version, container_id), space-separated */
    const char *source; /* what feeds it */
    const char *help;
} serve_metric;

extern const serve_metric serve_metrics[SM_COUNT];

/* "counter", "gauge", "histogram". */
const char *serve_metric_type_name(serve_metric_type t);

/* The pause histogram's upper bounds, seconds (+Inf follows). */
enum { SERVE_PAUSE_BUCKETS = 14 };
extern const double serve_pause_bounds[SERVE_PAUSE_BUCKETS];
/* Their le label values as written ("0.0001" ...). */
extern const char *const serve_pause_le[SERVE_PAUSE_BUCKETS];

/* One line per family: "NAME TYPE LABELS", the sample name as scraped (counters with
 * _total), labels comma-separated ("-" when none); then, with verbose, the help and source. */
void serve_metrics_list(FILE *f, int verbose);

#endif
