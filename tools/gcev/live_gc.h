/* SPDX-License-Identifier: MIT */
/*
 * GCs as they end, from a live session's events in stream order (gcev watch).
 *
 * A session's stream is not in timestamp order between threads and sends no
 * sequence point for a long time, so waiting for timestamp order would hold
 * every event until the session ends. Within one thread the order holds, and
 * what makes a GC's line is logged by the threads that run it: SuspendEEBegin,
 * GCStart, GCEnd, GCHeapStats and RestartEEEnd. So this tracker pairs them per
 * thread and by GC number, with the same rules as the stats model
 * (gcev_stats.h): the pause is SuspendEEBegin -> RestartEEEnd of the
 * suspension the GC started in, a background GC's pause the sum of its own
 * GC-reason suspensions, heap size after and promoted bytes from GCHeapStats.
 * A GC is reported once it has ended, its heap statistics are in and its
 * suspension is over (or a later GC made clear that they will not come).
 */
#ifndef GCEV_LIVE_GC_H
#define GCEV_LIVE_GC_H

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

enum {
    LIVE_HAS_GENERATION = 1u << 0,
    LIVE_HAS_TYPE = 1u << 1,
    LIVE_HAS_REASON = 1u << 2,
    LIVE_HAS_END = 1u << 3,
    LIVE_HAS_PAUSE = 1u << 4,
    LIVE_HAS_HEAP = 1u << 5,     /* heap_after */
    LIVE_HAS_PROMOTED = 1u << 6, /* promoted */
};

typedef struct live_gc_record {
    uint32_t present; /* LIVE_HAS_* */
    uint32_t number, generation, type, reason;
    double start_ms, end_ms, pause_ms;
    uint64_t heap_after, promoted; /* bytes */
    int complete;                  /* 0: reported at the end of the session without its end */
} live_gc_record;

typedef void (*live_gc_fn)(void *ctx, const live_gc_record *gc);

typedef struct live_gc live_gc;

/* NULL when out of memory. fn is called once per GC, in the order the GCs complete. */
live_gc *live_gc_create(live_gc_fn fn, void *ctx);
/* Feeds one event of the session (stream order). */
void live_gc_add(live_gc *l, const gcev_trace_event *ev);
/* Reports the GCs still open (complete = 0 for those without GCEnd). */
void live_gc_flush(live_gc *l);
void live_gc_free(live_gc *l);

#endif
