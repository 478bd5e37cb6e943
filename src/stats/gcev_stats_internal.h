/* SPDX-License-Identifier: MIT */
/* The GC analysis model's private state, shared by the src/gcev_stats_*.c units. */
#ifndef GCEV_STATS_INTERNAL_H
#define GCEV_STATS_INTERNAL_H

#include <gcev/gcev_stats.h>

#include "gcev_stats_table.h"

/* Server GC runs one heap per core; beyond this many heaps mark times are not split per heap. */
enum { STATS_MARK_HEAPS = 256 };

/*
 * A suspension in progress (SuspendEEBegin seen, RestartEEEnd not yet), per
 * suspending thread: the sampling profiler's thread logs its SuspendEEBegin
 * while a GC's suspension is still open (real 3.0 traces), so one global
 * "current suspension" would pair the sampler's RestartEE with the GC.
 */
enum { STATS_SUSP_SLOTS = 16 };
typedef struct stats_suspension {
    int active;
    uint64_t thread_id;
    uint64_t seq; /* order of SuspendEEBegin, to find the most recent / evict the oldest */
    double begin_ms;
    double end_ms;
    int has_end;
    uint32_t reason;
    int has_reason;
    long gc; /* index of the GC that started inside it, -1 if none */
} stats_suspension;

struct gcev_stats {
    gcev_stats_options opts;
    int finished;
    gcev_stats_gc *gcs;
    size_t ngcs, cap_gcs;
    /* GC state machine */
    long bgc;        /* index of the background GC in progress, -1 */
    long open_inner; /* innermost GC started and not ended, -1 */
    long open_outer; /* the GC it is nested in (a background GC), -1 */
    long last_ended; /* GC whose GCEnd came last (HeapStats follow GCEnd), -1 */
    stats_suspension susp[STATS_SUSP_SLOTS];
    uint64_t susp_seq;
    uint64_t alloc_since_gc;
    /* mark times: per heap, time of the previous mark event of gc `mark_gc` */
    long mark_gc;
    double mark_last[STATS_MARK_HEAPS];
    /* AppDomainMemSurvived after the last full blocking GC */
    gcev_stats_appdomain *ads;
    size_t nads;
    uint32_t ads_gc;
    int has_ads;
    /* lifetimes */
    stats_table segments, handles;
    gcev_stats_pairing seg_pairing, handle_pairing;
    gcev_stats_segment *live_segments;
    gcev_stats_handle *live_handles;
    /* results */
    gcev_stats_summary sum;
    gcev_stats_gen_summary gens[3];
    uint64_t family_counts[GCEV_FAMILY_COUNT_];
    int have_time;
};

/* gcev_stats_model.c: the GC state machine (start/end/suspend/restart). */
gcev_status gcev_stats_model_event(gcev_stats *s, const gcev_event *ev, double ms, uint64_t tid);

/* gcev_stats_state.c */
/*
 * The GC that per-GC detail events (histories, marks, pins) of thread tid
 * belong to, or NULL: the open GC started by that thread (a BGC thread keeps
 * marking while a foreground GC runs on another), else the innermost open GC
 * (server GC heaps log from their own threads).
 */
gcev_stats_gc *gcev_stats_current_gc(gcev_stats *s, uint64_t tid);

/* gcev_stats_heap.c: per-GC detail events. Each returns 1 when it used the event. */
int gcev_stats_heap_event(gcev_stats *s, const gcev_event *ev, double ms, uint64_t tid);

/* gcev_stats_survived.c: AppDomainMemSurvived after the last full blocking GC. */
gcev_status gcev_stats_survived_event(gcev_stats *s, const gcev_app_domain_mem_survived *e);

/* gcev_stats_lifetimes.c: segments and handles (and dispatch of AppDomainMemSurvived). */
gcev_status gcev_stats_lifetime_event(gcev_stats *s, const gcev_event *ev, double ms);
gcev_status gcev_stats_lifetimes_finish(gcev_stats *s);

/* gcev_stats_summary.c */
void gcev_stats_summary_finish(gcev_stats *s);

#endif
