/* SPDX-License-Identifier: MIT */
/* The metric table of gcev serve (serve_metrics.h): the one place a metric is defined. */
#include "serve_metrics.h"

#include <string.h>

#define PROC "PROC"

/* clang-format off */
const serve_metric serve_metrics[SM_COUNT] = {
    {SM_GCS, "gcev_gcs", SERVE_COUNTER, "", PROC " generation type reason",
     "each GC the stats model closes (gcev_stats_set_gc_callback): generation (GCEV_STATS_GC_HAS_GENERATION, "
     "else unknown), type (HAS_TYPE), reason (HAS_REASON; gcev_gc_reason_name, else other)",
     "GCs by condemned generation, type and reason"},
    {SM_GCS_INCOMPLETE, "gcev_gcs_incomplete", SERVE_COUNTER, "", PROC,
     "closed GCs without GCEV_STATS_GC_COMPLETE (their end was lost or the session ended first)",
     "GCs whose end the session did not see (counted in gcev_gcs_total too)"},
    {SM_PAUSE, "gcev_gc_pause_seconds", SERVE_HISTOGRAM, "seconds", PROC " generation type",
     "gcev_stats_gc.pause_ms (GCEV_STATS_GC_HAS_PAUSE): SuspendEEBegin to RestartEEEnd, a background GC's own "
     "suspensions",
     "GC pause (execution engine suspended), by generation and type"},
    {SM_SUSPENSION, "gcev_gc_suspension_seconds", SERVE_COUNTER, "seconds", PROC,
     "gcev_stats_gc.suspension_ms (HAS_SUSPENSION): SuspendEEBegin to SuspendEEEnd",
     "time spent suspending the threads for GCs"},
    {SM_PAUSE_RATIO, "gcev_gc_pause_last_minute_ratio", SERVE_GAUGE, "ratio", PROC,
     "pause_ms of the GCs whose pause started (pause_start_ms, else start_ms) in the last 60 s of the "
     "session's clock, over 60 s (over the session's age when younger)",
     "share of the last minute the process was paused by GCs (0-1)"},
    {SM_PROMOTED, "gcev_gc_promoted_bytes", SERVE_COUNTER, "bytes", PROC,
     "gcev_stats_gc.promoted_bytes (HAS_PROMOTED: GCHeapStats TotalPromotedSize0..4)",
     "bytes promoted (survived) by GCs"},
    {SM_ALLOCATED, "gcev_gc_allocated_bytes", SERVE_COUNTER, "bytes", PROC,
     "allocated_since_last_gc (HAS_ALLOCATED_SINCE: GCPerHeapHistory UserAllocated gen0+LOH+POH), else "
     "allocated_bytes (HAS_ALLOCATED: AllocationTick, gc-verbose)",
     "bytes allocated by the program, as the GCs report them"},
    {SM_HEAP_SIZE, "gcev_heap_size_after_bytes", SERVE_GAUGE, "bytes", PROC " generation",
     "gens[g].size_after (GCEV_STATS_HEAP_HAS_SIZE_AFTER) of the last GC that had it; generation gen0 gen1 "
     "gen2 loh poh",
     "size of each generation after the last GC"},
    {SM_HEAP_FRAG, "gcev_heap_fragmentation_bytes", SERVE_GAUGE, "bytes", PROC " generation",
     "gens[g].frag_after (GCEV_STATS_HEAP_HAS_FRAG_AFTER: free list + free objects) of the last GC that had it",
     "free space in each generation after the last GC"},
    {SM_COMMITTED, "gcev_gc_committed_bytes", SERVE_GAUGE, "bytes", PROC,
     "committed_after (HAS_COMMITTED_AFTER: GCDynamicEvent CommittedUsage, .NET 8+): in_use + "
     "in_global_decommit + in_free + in_global_free + bookkeeping",
     "memory the GC had committed after the last GC"},
    {SM_HEAPS, "gcev_gc_heaps", SERVE_GAUGE, "", PROC,
     "heap_count (HAS_HEAP_COUNT: GCGlobalHeapHistory NumHeaps) of the last GC that had it",
     "GC heaps at the last GC (1: workstation GC)"},
    {SM_DATAS_HEAPS, "gcev_gc_datas_heaps", SERVE_GAUGE, "", PROC,
     "datas_heap_count (HAS_DATAS: the last SizeAdaptationTuning NewNHeaps) of the last GC that had it",
     "heap count DATAS chose at the last GC that tuned it (.NET 8+ server GC)"},
    {SM_EVENTS, "gcev_session_events", SERVE_COUNTER, "", PROC, "events read from the process's session",
     "events received from the process"},
    {SM_DROPPED, "gcev_session_dropped_events", SERVE_COUNTER, "", PROC,
     "gcev_trace_dropped_events() of the session (gaps in the sequence numbers), reported to the model by "
     "gcev_stats_note_dropped()",
     "events the runtime dropped (its buffer was full)"},
    {SM_STATE, "gcev_session_state", SERVE_GAUGE, "", PROC " state",
     "the process's session state: 1 for the current one of attaching attached detached exited failed, 0 "
     "for the others",
     "session state of the process (1: current)"},
    {SM_ATTACHES, "gcev_session_attaches", SERVE_COUNTER, "", PROC,
     "sessions opened to the process",
     "sessions opened to the process (more than 1: re-attached)"},
    {SM_RECYCLES, "gcev_model_recycles", SERVE_COUNTER, "", PROC,
     "stats models replaced by a fresh one after all their GCs were reported (--recycle-gcs)",
     "times the process's analysis model was recreated to bound memory"},
    {SM_SERVE_CPU, "gcev_serve_cpu_seconds", SERVE_COUNTER, "seconds", "", "getrusage(RUSAGE_SELF): user + system",
     "CPU time used by the exporter"},
    {SM_SERVE_RSS, "gcev_serve_resident_memory_bytes", SERVE_GAUGE, "bytes", "", "/proc/self/statm resident pages",
     "resident memory of the exporter"},
    {SM_SERVE_SESSIONS, "gcev_serve_sessions", SERVE_GAUGE, "", "state",
     "processes in each session state (attaching attached detached exited failed)",
     "processes watched, by session state"},
    {SM_SERVE_UNWATCHED, "gcev_serve_unwatched_processes", SERVE_GAUGE, "", "",
     ".NET processes found but not watched: over --max-processes",
     ".NET processes left unwatched by the --max-processes bound"},
    {SM_SERVE_SCRAPE, "gcev_serve_scrape_duration_seconds", SERVE_GAUGE, "seconds", "",
     "time to write the previous /metrics exposition",
     "time the previous scrape took to build"},
    {SM_SERVE_SCRAPES, "gcev_serve_scrapes", SERVE_COUNTER, "", "", "requests of /metrics served",
     "scrapes served"},
};
/* clang-format on */

const double serve_pause_bounds[SERVE_PAUSE_BUCKETS] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                        0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   2.5};
const char *const serve_pause_le[SERVE_PAUSE_BUCKETS] = {"0.0001", "0.00025", "0.0005", "0.001", "0.0025",
                                                         "0.005",  "0.01",    "0.025",  "0.05",  "0.1",
                                                         "0.25",   "0.5",     "1.0",    "2.5"};

const char *serve_metric_type_name(serve_metric_type t)
{
    return t == SERVE_COUNTER ? "counter" : t == SERVE_GAUGE ? "gauge" : "histogram";
}

void serve_metrics_list(FILE *f, int verbose)
{
    for (int i = 0; i < SM_COUNT; i++) {
        const serve_metric *m = &serve_metrics[i];
        char labels[160] = "";
        size_t n = 0;
        const char *p = m->labels;
        while (*p && n < sizeof labels - 64) {
            size_t w = strcspn(p, " ");
            if (w == 4 && !strncmp(p, PROC, 4)) {
                n += (size_t)snprintf(labels + n, sizeof labels - n,
                                      "%spid,process,runtime_version,container_id", n ? "," : "");
            } else {
                n += (size_t)snprintf(labels + n, sizeof labels - n, "%s%.*s", n ? "," : "", (int)w, p);
            }
            p += w;
            p += strspn(p, " ");
        }
        fprintf(f, "%s%s %s %s\n", m->family, m->type == SERVE_COUNTER ? "_total" : "",
                serve_metric_type_name(m->type), n ? labels : "-");
        if (verbose) {
            fprintf(f, "    %s\n    source: %s\n", m->help, m->source);
        }
    }
}
